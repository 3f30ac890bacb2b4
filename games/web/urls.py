from django.urls import path

from games.web import replay, table, views

urlpatterns = [
    path("games/", views.live_games, name="live-games"),
    path("your-turn/", views.your_turn, name="your-turn"),
    *table.urlpatterns,
    *replay.urlpatterns,
]
