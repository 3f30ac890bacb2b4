from cya_site.routes import Router
from tournaments.api.views.competitions import CompetitionViewSet
from tournaments.api.views.leagues import LeagueViewSet, MemberViewSet, SeasonViewSet
from tournaments.api.views.nights import NightViewSet
from tournaments.api.views.players import PlayerViewSet
from tournaments.api.views.quickplay import QuickPairingViewSet
from tournaments.api.views.recorded import RecordedGameViewSet
from tournaments.api.views.tournaments import TournamentViewSet

router = Router()
router.register("leagues", LeagueViewSet, basename="league")
router.register("members", MemberViewSet, basename="member")
router.register("seasons", SeasonViewSet, basename="season")
router.register("nights", NightViewSet, basename="night")
router.register("competitions", CompetitionViewSet, basename="competition")
router.register("recorded-games", RecordedGameViewSet, basename="recorded-game")
router.register("tournaments", TournamentViewSet, basename="tournament")
router.register("players", PlayerViewSet, basename="player")
router.register("quick-pairing", QuickPairingViewSet, basename="quick-pairing")

urlpatterns = router.urls
