"""Staff views of leagues, tournaments and the score ledgers (append-only: read-only here)."""

from django.contrib import admin

from tournaments.models import (
    ChangeLog,
    Competition,
    Competitor,
    Delivery,
    GameNight,
    League,
    Result,
    ScoreRecord,
    ScoreVote,
    Season,
    Tournament,
    TournamentRound,
    Webhook,
)


class ReadOnly(admin.ModelAdmin):  # type: ignore[type-arg]
    """Ledgers and logs are append-only: no edits or deletions through the admin."""

    def has_change_permission(self, request: object, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: object, obj: object = None) -> bool:
        return False


admin.site.register([ScoreRecord, ScoreVote, ChangeLog, Result, Delivery], ReadOnly)
admin.site.register(
    [Competition, Competitor, League, Season, GameNight, Tournament, TournamentRound, Webhook]
)
