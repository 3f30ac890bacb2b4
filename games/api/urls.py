from django.urls import path

from cya_site.lean import lean
from cya_site.routes import Router
from games.api.lean_waits import anonymous_wait
from games.api.stream import game_stream
from games.api.views import GameViewSet
from games.api.waits import game_wait

router = Router()
router.register("games", GameViewSet, basename="game")

# the DRF action as the router would route it (its @action arguments included)
_wait_action = GameViewSet.as_view(
    {"get": "wait"}, basename="game", detail=True, **GameViewSet.wait.kwargs
)

urlpatterns = [
    path("games/<id:pk>/stream/", game_stream, name="game-stream"),
    # before the router's: the wait waits on the event loop, in front of the DRF action,
    # and a crowd's anonymous wait is answered there without it (games.api.lean_waits)
    path("games/<id:pk>/wait/", lean(anonymous_wait)(game_wait(_wait_action))),
    *router.urls,
]
