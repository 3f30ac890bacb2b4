"""Staff views of games: read-mostly, since the action log is the truth."""

from django.contrib import admin

from games.models import Event, Game, Playout, Round, RoundScore, Seat


class SeatInline(admin.TabularInline[Seat, Game]):
    model = Seat
    extra = 0
    fields = ("number", "user", "joined_at", "resigned_at", "place", "tally", "is_winner")
    readonly_fields = ("joined_at", "resigned_at", "place", "tally", "is_winner")


@admin.register(Game)
class GameAdmin(admin.ModelAdmin[Game]):
    list_display = ("id", "status", "mode", "seat_count", "version", "round_number", "created_at")
    list_filter = ("status", "mode", "seat_count")
    search_fields = ("id", "seats__user__username")
    inlines = (SeatInline,)
    readonly_fields = ("seed", "version", "to_act", "decision_kind", "round_number", "winners")


@admin.register(Event)
class EventAdmin(admin.ModelAdmin[Event]):
    list_display = ("game", "seq", "seat", "origin", "created_at")
    list_filter = ("origin",)
    readonly_fields = (
        "game",
        "seq",
        "seat",
        "actor",
        "action",
        "action_code",
        "public_events",
        "origin",
        "idempotency_key",
        "created_at",
    )

    def has_change_permission(self, request: object, obj: Event | None = None) -> bool:
        return False  # the log is append-only


@admin.register(Playout)
class PlayoutAdmin(admin.ModelAdmin[Playout]):
    list_display = ("game", "first_seq", "last_seq", "origin", "created_at")
    list_filter = ("origin",)
    readonly_fields = ("game", "first_seq", "codes", "origin", "created_at")

    def has_change_permission(self, request: object, obj: Playout | None = None) -> bool:
        return False  # the log is append-only


@admin.register(RoundScore)
class RoundScoreAdmin(admin.ModelAdmin[RoundScore]):
    list_display = ("round", "seat", "dollars", "tally", "won_round")


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin[Round]):
    list_display = ("game", "number", "finished_at")
