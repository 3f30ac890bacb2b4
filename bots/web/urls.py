from django.urls import path

from bots.web import views

urlpatterns = [
    path("ladder/", views.ladder, name="ladder"),
    path("bots/", views.bot_list, name="bots"),
    path("bots/new/", views.bot_new, name="bot-new"),  # before <name>: "new" is no bot's name
    path("bots/<str:name>/", views.bot_detail, name="bot"),
    path("bots/<str:name>/versions/", views.version_new, name="bot-version-new"),
    path("bots/<str:name>/tokens/", views.token_new, name="bot-token-new"),
]
