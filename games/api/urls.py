from django.urls import path

from cya_site.routes import Router
from games.api.stream import game_stream
from games.api.views import GameViewSet

router = Router()
router.register("games", GameViewSet, basename="game")

urlpatterns = [
    path("games/<id:pk>/stream/", game_stream, name="game-stream"),
    *router.urls,
]
