from django.urls import path

from games.web import table, views

urlpatterns = [
    path("games/", views.live_games, name="live-games"),
    *table.urlpatterns,
]
