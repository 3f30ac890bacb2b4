from rest_framework.routers import SimpleRouter

from bots.api.views import BotViewSet, LadderViewSet, MatchViewSet

router = SimpleRouter()
router.register("bots", BotViewSet, basename="bot")
router.register("ladder", LadderViewSet, basename="ladder")
router.register("matches", MatchViewSet, basename="match")

urlpatterns = router.urls
