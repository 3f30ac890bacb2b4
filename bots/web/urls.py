from django.urls import path

from bots.web import challenges, decisions, play, views
from cya_site import routes as _routes  # noqa: F401 - registers the <id:...> converter

urlpatterns = [
    path("ladder/", views.ladder, name="ladder"),
    path("play/", play.lobby, name="play"),
    path("play/<id:pk>/join/", play.join, name="play-join"),
    path("play/<id:pk>/rematch/", play.rematch, name="play-rematch"),
    path("play/fork/<id:pk>/", play.fork, name="play-fork"),
    path("bots/", views.bot_list, name="bots"),
    path("bots/new/", views.bot_new, name="bot-new"),  # before <name>: "new" is no bot's name
    path("bots/<str:name>/", views.bot_detail, name="bot"),
    path("bots/<str:name>/versions/", views.version_new, name="bot-version-new"),
    path("bots/<str:name>/tokens/", views.token_new, name="bot-token-new"),
    path("bots/<str:name>/pause/", views.version_pause, name="bot-pause"),
    path("bots/<str:name>/resume/", views.version_resume, name="bot-resume"),
    path("bots/<str:name>/alerts/", views.alerts_set, name="bot-alerts"),
    path("challenges/new/", challenges.challenge_new, name="challenge-new"),
    path("challenges/<id:pk>/", challenges.challenge_detail, name="challenge"),
    path(
        "bots/<str:name>/games/<id:game>/decision-log/",
        decisions.download,
        name="bot-decision-log",
    ),
]
