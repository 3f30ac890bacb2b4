from django.urls import path
from rest_framework.routers import SimpleRouter

from games.api.stream import game_stream
from games.api.views import GameViewSet

router = SimpleRouter()
router.register("games", GameViewSet, basename="game")

urlpatterns = [
    path("games/<int:pk>/stream/", game_stream, name="game-stream"),
    *router.urls,
]
