"""Staff views of bots, versions, matches and strikes."""

from django.contrib import admin

from bots.models import Bot, BotVersion, Match, MatchEntry, RatingChange, SeatControl, Strike


class VersionInline(admin.TabularInline[BotVersion, Bot]):
    model = BotVersion
    extra = 0
    fields = ("number", "tag", "strategy", "url", "status", "mu", "sigma", "games_played")
    readonly_fields = fields


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin[Bot]):
    list_display = ("name", "kind", "owner", "is_active", "created_at")
    list_filter = ("kind", "is_active")
    search_fields = ("name", "owner__username")
    # set by its owner (the bot's page, the API), where the address is checked
    readonly_fields = ("alert_url",)
    inlines = (VersionInline,)


class EntryInline(admin.TabularInline[MatchEntry, Match]):
    model = MatchEntry
    extra = 0
    readonly_fields = ("version", "position", "place", "dollars", "forfeited")


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin[Match]):
    list_display = ("id", "kind", "status", "attempts", "created_at", "rated_at")
    list_filter = ("kind", "status")
    inlines = (EntryInline,)


@admin.register(Strike)
class StrikeAdmin(admin.ModelAdmin[Strike]):
    list_display = ("control", "reason", "game_version", "elapsed_ms", "created_at")
    list_filter = ("reason",)


admin.site.register(SeatControl)
admin.site.register(RatingChange)
