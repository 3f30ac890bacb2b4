from bots.api.views import BotViewSet, LadderViewSet, MatchViewSet
from cya_site.routes import Router

router = Router()
router.register("bots", BotViewSet, basename="bot")
router.register("ladder", LadderViewSet, basename="ladder")
router.register("matches", MatchViewSet, basename="match")

urlpatterns = router.urls
