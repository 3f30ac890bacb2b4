"""Club pages: leagues, rosters, nights, score sheets, standings, tournaments, projector.

Each page module keeps its own routes; they are gathered here.
"""

from tournaments.web import (
    desk,
    leagues,
    nights,
    players,
    quickplay,
    sheets,
    standings,
    tournaments,
)

urlpatterns = [
    *leagues.urlpatterns,
    *nights.urlpatterns,
    *desk.urlpatterns,
    *sheets.urlpatterns,
    *tournaments.urlpatterns,
    *standings.urlpatterns,
    *players.urlpatterns,
    *quickplay.urlpatterns,
]
