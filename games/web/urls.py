from django.urls import path

from games.web import replay, table, views

urlpatterns = [
    path("games/", views.live_games, name="live-games"),
    *table.urlpatterns,
    *replay.urlpatterns,
]
