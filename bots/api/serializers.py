"""Input serializers (strict) and read-only output ones for bots, versions, the ladder."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from bots import ratings
from bots.models import Bot, BotVersion, Match, MatchEntry, RatingChange, Strike
from bots.strategies import STRATEGIES
from cya_site.serializers import IdField, StrictInputSerializer, WebhookUrlField


class BotCreateInputSerializer(StrictInputSerializer):
    name = serializers.CharField(max_length=40)
    kind = serializers.ChoiceField(choices=Bot.Kind.choices)
    description = serializers.CharField(max_length=500, required=False, default="")


class VersionCreateInputSerializer(StrictInputSerializer):
    tag = serializers.CharField(max_length=60, required=False, default="")
    strategy = serializers.ChoiceField(
        choices=sorted(STRATEGIES), required=False, default="", help_text="Built-in bots"
    )
    url = WebhookUrlField(
        required=False,
        default="",
        help_text="Webhooks: http(s), leading to public internet addresses only",
    )
    secret = serializers.CharField(
        max_length=200,
        required=False,
        default="",
        write_only=True,
        help_text="Webhooks: signs every request; never shown again",
    )


class AlertsInputSerializer(StrictInputSerializer):
    url = WebhookUrlField(
        allow_blank=True,
        help_text='Told (POST, JSON) when a version of the bot is paused; "" for none',
    )


class DecisionLogQuerySerializer(StrictInputSerializer):
    game = IdField(help_text="The game whose decisions to read")


class TokenInputSerializer(StrictInputSerializer):
    name = serializers.CharField(max_length=100, default="bot")


class BotTokenSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField()
    key = serializers.CharField(help_text="Shown once: store it now")


class VersionSerializer(serializers.ModelSerializer[BotVersion]):
    """A version; its webhook URL and validation log only for its owner (and staff)."""

    ordinal = serializers.FloatField(help_text="mu - 3 sigma: the leaderboard's number")
    provisional = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField(help_text="Webhooks; only for the owner and staff")
    validation_log = serializers.SerializerMethodField()
    pause_reason = serializers.ChoiceField(
        choices=BotVersion.PauseReason.choices,
        allow_blank=True,
        read_only=True,
        help_text='Why it is paused; "" when it is not',
    )
    pause_detail = serializers.SerializerMethodField(
        help_text="Why it was paused; only for the owner and staff"
    )

    class Meta:
        model = BotVersion
        fields = (
            "id",
            "number",
            "tag",
            "strategy",
            "url",
            "status",
            "created_at",
            "validated_at",
            "validation_log",
            "mu",
            "sigma",
            "ordinal",
            "provisional",
            "games_played",
            "matches_played",
            "paused_at",
            "pause_reason",
            "pause_detail",
        )
        read_only_fields = fields

    def get_pause_detail(self, version: BotVersion) -> str | None:
        return version.pause_detail if self._owns(version) else None

    def get_provisional(self, version: BotVersion) -> bool:
        return ratings.provisional(version.sigma, version.games_played)

    def get_url(self, version: BotVersion) -> str | None:
        """Where the platform sends decisions: the owner's server, not for everyone to
        see (anyone could flood it); None for others."""
        return version.url if self._owns(version) else None

    def get_validation_log(self, version: BotVersion) -> list[str] | None:
        return list(version.validation_log) if self._owns(version) else None

    def _owns(self, version: BotVersion) -> bool:
        user = self.context.get("user")
        return user is not None and (user.pk == version.bot.owner_id or user.is_staff)


class BotSerializer(serializers.ModelSerializer[Bot]):
    owner = serializers.CharField(source="owner.username")
    username = serializers.CharField(source="user.username", help_text="The account it plays as")
    latest = serializers.SerializerMethodField()
    alert_url = serializers.SerializerMethodField(
        help_text="The webhook told of pauses; only for the owner and staff"
    )

    class Meta:
        model = Bot
        fields = (
            "id",
            "name",
            "kind",
            "description",
            "owner",
            "username",
            "created_at",
            "is_active",
            "latest",
            "alert_url",
        )
        read_only_fields = fields

    def get_alert_url(self, bot: Bot) -> str | None:
        user = self.context.get("user")
        owns = user is not None and (user.pk == bot.owner_id or user.is_staff)
        return bot.alert_url if owns else None

    def get_latest(self, bot: Bot) -> dict[str, Any] | None:
        version = max(bot.versions.all(), key=lambda v: v.number, default=None)
        return None if version is None else VersionSerializer(version, context=self.context).data


class LeaderboardRowSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    bot = serializers.CharField()
    owner = serializers.CharField()
    version = serializers.IntegerField()
    version_id = serializers.IntegerField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField()
    games_played = serializers.IntegerField()
    provisional = serializers.BooleanField()


class StrikeSerializer(serializers.ModelSerializer[Strike]):
    seat = serializers.IntegerField(source="control.seat.number")
    game = serializers.IntegerField(source="control.seat.game_id")
    version_number = serializers.IntegerField(
        source="control.version.number", help_text="The bot version that was struck"
    )

    class Meta:
        model = Strike
        fields = (
            "game",
            "seat",
            "version_number",
            "game_version",
            "reason",
            "detail",
            "elapsed_ms",
            "created_at",
        )
        read_only_fields = fields


class RatingChangeSerializer(serializers.ModelSerializer[RatingChange]):
    bot = serializers.CharField(source="version.bot.name")
    version_number = serializers.IntegerField(source="version.number")
    explanation = serializers.SerializerMethodField()

    class Meta:
        model = RatingChange
        fields = (
            "bot",
            "version_number",
            "mu_before",
            "sigma_before",
            "mu_after",
            "sigma_after",
            "expected_place",
            "actual_place",
            "explanation",
        )
        read_only_fields = fields

    def get_explanation(self, change: RatingChange) -> str:
        delta = change.mu_after - change.mu_before
        verdict = "better than" if change.actual_place < change.expected_place else "worse than"
        if abs(change.actual_place - change.expected_place) < 0.25:
            verdict = "as"
        sigma = change.sigma_after - change.sigma_before
        return (
            f"expected place {change.expected_place:.2f}, finished {change.actual_place} "
            f"({verdict} expected): mu {delta:+.2f}, sigma {sigma:+.2f}"
        )


class MatchEntrySerializer(serializers.ModelSerializer[MatchEntry]):
    bot = serializers.CharField(source="version.bot.name")
    version_number = serializers.IntegerField(source="version.number")

    class Meta:
        model = MatchEntry
        fields = ("position", "bot", "version_number", "place", "dollars", "forfeited")
        read_only_fields = fields


class MatchSerializer(serializers.ModelSerializer[Match]):
    entries = MatchEntrySerializer(many=True)
    games = serializers.SerializerMethodField()
    rating_changes = RatingChangeSerializer(many=True)

    class Meta:
        model = Match
        fields = (
            "id",
            "kind",
            "status",
            "duplicate",
            "decision_ms",
            "time_bank_ms",
            "created_at",
            "started_at",
            "finished_at",
            "void_reason",
            "entries",
            "games",
            "rating_changes",
        )
        read_only_fields = fields

    def get_games(self, match: Match) -> list[int]:
        return [mg.game_id for mg in match.match_games.all()]
