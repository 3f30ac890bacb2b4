"""Club pages: leagues, rosters, nights, score sheets, standings, tournaments, projector.

Each page module keeps its own routes; they are gathered here.
"""

from tournaments.web import leagues, standings, tournaments

urlpatterns = [
    *leagues.urlpatterns,
    *tournaments.urlpatterns,
    *standings.urlpatterns,
]
