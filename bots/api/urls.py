from bots.api.challenges import ChallengeViewSet
from bots.api.views import BotViewSet, LadderViewSet, MatchViewSet
from cya_site.routes import Router

router = Router()
router.register("bots", BotViewSet, basename="bot")
router.register("challenges", ChallengeViewSet, basename="challenge")
router.register("ladder", LadderViewSet, basename="ladder")
router.register("matches", MatchViewSet, basename="match")

urlpatterns = router.urls
