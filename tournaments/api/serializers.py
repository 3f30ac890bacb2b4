"""Input serializers (strict) and output ones for leagues, tournaments and score sheets."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from cya_site.serializers import IdField, StrictInputSerializer
from games.api.rules import RuleOptionsField, rules_build
from games.engine import PRESETS
from tournaments.models import (
    CheckIn,
    Competition,
    Competitor,
    GameNight,
    League,
    Member,
    ScoreRecord,
    ScoreVote,
    Season,
    Tournament,
    TournamentRound,
)
from tournaments.ranking import CRITERIA
from tournaments.services import MAX_BEST_OF


class RulesInputSerializer(StrictInputSerializer):
    """A preset and option overrides, built into a RuleSet (refused with invalid_rules)."""

    preset = serializers.ChoiceField(choices=sorted(PRESETS), default="2021")
    options = RuleOptionsField(
        misplaced={"seats": "seats is not an option: each table seats its players."},
        required=False,
        default=dict,
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs["rules"] = rules_build(attrs["preset"], attrs["options"])
        return attrs


class LeagueCreateInputSerializer(StrictInputSerializer):
    name = serializers.CharField(max_length=120)
    slug = serializers.SlugField(max_length=60)
    description = serializers.CharField(required=False, default="", allow_blank=True)
    rules = RulesInputSerializer(required=False, default=dict)


class OrganiserInputSerializer(StrictInputSerializer):
    username = serializers.CharField(max_length=150)


class SeasonCreateInputSerializer(StrictInputSerializer):
    name = serializers.CharField(max_length=120)
    starts_on = serializers.DateField()
    ends_on = serializers.DateField(required=False, allow_null=True, default=None)
    best_of = serializers.IntegerField(
        min_value=1, max_value=MAX_BEST_OF, required=False, allow_null=True, default=None
    )
    tiebreaks = serializers.ListField(
        child=serializers.ChoiceField(choices=CRITERIA), required=False, default=list
    )


class NightCreateInputSerializer(StrictInputSerializer):
    date = serializers.DateField()
    venue = serializers.CharField(max_length=120, required=False, default="", allow_blank=True)
    notes = serializers.CharField(required=False, default="", allow_blank=True)


class CompetitorInputSerializer(StrictInputSerializer):
    name = serializers.CharField(max_length=80, required=False, default="")
    username = serializers.CharField(max_length=150, required=False, allow_null=True, default=None)
    bot_version = IdField(required=False, allow_null=True, default=None)
    member = IdField(
        required=False, allow_null=True, default=None, help_text="A roster member of the league"
    )


class MemberInputSerializer(StrictInputSerializer):
    name = serializers.CharField(max_length=80, required=False, default="")
    username = serializers.CharField(
        max_length=150,
        required=False,
        allow_null=True,
        default=None,
        help_text="An account; empty for a guest known by name",
    )


class MemberLinkInputSerializer(StrictInputSerializer):
    username = serializers.CharField(max_length=150)


class CheckInInputSerializer(StrictInputSerializer):
    member = IdField(help_text="A roster member of the night's league")


class DrawInputSerializer(StrictInputSerializer):
    table_sizes = serializers.ListField(
        child=serializers.IntegerField(min_value=2, max_value=6),
        min_length=1,
        max_length=5,
        default=[3, 4, 5],
        help_text="Allowed table sizes",
    )
    preferred_size = serializers.IntegerField(min_value=2, max_value=6, default=4)
    seed = serializers.IntegerField(min_value=0, max_value=2**62, required=False, allow_null=True)


class TableInputSerializer(StrictInputSerializer):
    competitors = serializers.ListField(
        child=IdField(), min_length=2, max_length=8, help_text="Ids in seat order"
    )
    night = IdField(required=False, allow_null=True, default=None)
    rules = RulesInputSerializer(required=False, default=None, allow_null=True)


class RoundInputSerializer(StrictInputSerializer):
    dollars = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=100_000_000),
        min_length=2,
        max_length=8,
        help_text="This round's dollars, by seat",
    )
    round = serializers.IntegerField(
        min_value=1,
        max_value=1000,
        required=False,
        allow_null=True,
        default=None,
        help_text="The round meant (optional): refused with stale_round if it is not the next",
    )


class VoteInputSerializer(StrictInputSerializer):
    verdict = serializers.ChoiceField(choices=ScoreVote.Verdict.choices)
    reason = serializers.CharField(max_length=500, required=False, default="", allow_blank=True)


class CorrectionInputSerializer(StrictInputSerializer):
    dollars = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=100_000_000),
        min_length=2,
        max_length=8,
        allow_null=True,
        help_text="The round's corrected dollars; null removes the last round",
    )
    reason = serializers.CharField(max_length=500)


class WebhookInputSerializer(StrictInputSerializer):
    url = serializers.URLField(
        max_length=500, help_text="http(s), leading to public internet addresses only"
    )
    secret = serializers.CharField(max_length=200, required=False, default="", write_only=True)


class TournamentCreateInputSerializer(StrictInputSerializer):
    name = serializers.CharField(max_length=120)
    format = serializers.ChoiceField(choices=Tournament.Format.choices)
    entrants = serializers.ChoiceField(choices=Tournament.Entrants.choices)
    play = serializers.ChoiceField(choices=Tournament.Play.choices, default=Tournament.Play.DIGITAL)
    rules = RulesInputSerializer(required=False, default=dict)
    rounds = serializers.IntegerField(min_value=1, max_value=20)
    table_sizes = serializers.ListField(
        child=serializers.IntegerField(min_value=2, max_value=6), min_length=1, default=[3, 4, 5]
    )
    preferred_size = serializers.IntegerField(min_value=2, max_value=6, default=4)
    tiebreaks = serializers.ListField(
        child=serializers.ChoiceField(choices=CRITERIA), required=False, default=list
    )
    seed = serializers.IntegerField(min_value=0, max_value=2**62, required=False, allow_null=True)
    decision_ms = serializers.IntegerField(min_value=50, max_value=60_000, default=1000)
    time_bank_ms = serializers.IntegerField(min_value=0, max_value=600_000, default=15_000)
    league = IdField(
        required=False,
        allow_null=True,
        default=None,
        help_text="A club's tournament: entrants from its roster, run by its organisers",
    )


class StandingsQuerySerializer(StrictInputSerializer):
    as_of = serializers.DateTimeField(required=False, allow_null=True, default=None)
    night = IdField(
        required=False, allow_null=True, default=None, help_text="One game night of a season"
    )
    format = serializers.ChoiceField(choices=["json", "csv"], required=False, default="json")


# --- output -----------------------------------------------------------------------------


class CompetitionSerializer(serializers.ModelSerializer[Competition]):
    class Meta:
        model = Competition
        fields = ("id", "kind", "name", "created_at", "tiebreaks", "best_of", "lot_seed")
        read_only_fields = fields


class CompetitorSerializer(serializers.ModelSerializer[Competitor]):
    username = serializers.CharField(source="user.username", allow_null=True, default=None)

    class Meta:
        model = Competitor
        fields = ("id", "number", "name", "username", "bot_version", "member", "joined_at")
        read_only_fields = fields


class MemberSerializer(serializers.ModelSerializer[Member]):
    username = serializers.CharField(source="user.username", allow_null=True, default=None)

    class Meta:
        model = Member
        fields = ("id", "league", "name", "username", "created_at")
        read_only_fields = fields


class CheckInSerializer(serializers.ModelSerializer[CheckIn]):
    member = serializers.IntegerField(source="competitor.member_id")
    competitor = serializers.IntegerField(source="competitor_id")
    name = serializers.CharField(source="competitor.name")
    by = serializers.CharField(source="by.username")

    class Meta:
        model = CheckIn
        fields = ("member", "competitor", "name", "by", "created_at")
        read_only_fields = fields


class SitterSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    name = serializers.CharField()
    competitor = serializers.IntegerField()


class TableSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField(help_text="0-based; pages show table number + 1")
    game = serializers.IntegerField()
    status = serializers.CharField()
    players = SitterSerializer(many=True)
    rounds_recorded = serializers.IntegerField()
    waiting = serializers.IntegerField(help_text="Recorded rounds not yet confirmed")
    disputed = serializers.BooleanField()
    winners = serializers.ListField(child=serializers.IntegerField(), help_text="Seats")


class NightRoundSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    quality = serializers.DictField(child=serializers.IntegerField())
    finished = serializers.BooleanField()
    tables = TableSerializer(many=True)


class NightSerializer(serializers.ModelSerializer[GameNight]):
    class Meta:
        model = GameNight
        fields = ("id", "season", "date", "venue", "notes")
        read_only_fields = fields


class SeasonSerializer(serializers.ModelSerializer[Season]):
    competition = CompetitionSerializer()
    nights = NightSerializer(many=True)

    class Meta:
        model = Season
        fields = ("id", "league", "name", "starts_on", "ends_on", "competition", "nights")
        read_only_fields = fields


class LeagueSerializer(serializers.ModelSerializer[League]):
    organisers = serializers.SlugRelatedField[Any](slug_field="username", many=True, read_only=True)
    seasons = serializers.PrimaryKeyRelatedField[Any](many=True, read_only=True)

    class Meta:
        model = League
        fields = (
            "id",
            "name",
            "slug",
            "description",
            "rules",
            "organisers",
            "seasons",
            "created_at",
        )
        read_only_fields = fields


class RoundSummarySerializer(serializers.ModelSerializer[TournamentRound]):
    games = serializers.SerializerMethodField()

    class Meta:
        model = TournamentRound
        fields = ("number", "status", "plan", "games")
        read_only_fields = fields

    def get_games(self, round_: TournamentRound) -> list[dict[str, Any]]:
        seen: dict[int, dict[str, Any]] = {}
        for entry in round_.gameentry_set.select_related("game").order_by("table"):
            seen.setdefault(
                entry.game_id,
                {"game": entry.game_id, "table": entry.table, "status": entry.game.status},
            )
        return list(seen.values())


class TournamentSerializer(serializers.ModelSerializer[Tournament]):
    competition = CompetitionSerializer()
    organiser = serializers.CharField(source="organiser.username")
    round_set = RoundSummarySerializer(many=True)
    progress = serializers.SerializerMethodField()

    class Meta:
        model = Tournament
        fields = (
            "id",
            "competition",
            "organiser",
            "league",
            "format",
            "entrants",
            "play",
            "status",
            "rules",
            "rounds",
            "table_sizes",
            "preferred_size",
            "seed",
            "decision_ms",
            "time_bank_ms",
            "created_at",
            "round_set",
            "progress",
        )
        read_only_fields = fields

    def get_progress(self, tournament: Tournament) -> dict[str, int]:
        rounds = list(tournament.round_set.all())
        return {
            "rounds": tournament.rounds,
            "rounds_finished": sum(r.status == TournamentRound.Status.FINISHED for r in rounds),
            "games": sum(len(r.plan) for r in rounds if r.status != TournamentRound.Status.SEATED),
        }


class StandingRowSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    competitor = serializers.IntegerField()
    name = serializers.CharField()
    games = serializers.IntegerField()
    points = serializers.FloatField()
    placement = serializers.FloatField()
    dsi = serializers.FloatField()
    rounds_won = serializers.IntegerField()
    wins = serializers.IntegerField()
    best_dsi = serializers.FloatField()
    dollars = serializers.IntegerField()
    decided_by = serializers.ListField(child=serializers.CharField())


class VoteSerializer(serializers.ModelSerializer[ScoreVote]):
    voter = serializers.CharField(source="voter.username")

    class Meta:
        model = ScoreVote
        fields = ("voter", "verdict", "reason", "as_organiser", "created_at")
        read_only_fields = fields


class ScoreRecordSerializer(serializers.ModelSerializer[ScoreRecord]):
    actor = serializers.CharField(source="actor.username")
    votes = VoteSerializer(many=True)
    superseded = serializers.SerializerMethodField()

    class Meta:
        model = ScoreRecord
        fields: tuple[str, ...] = (
            "id",
            "round_number",
            "dollars",
            "kind",
            "status",
            "supersedes",
            "superseded",
            "actor",
            "reason",
            "created_at",
            "votes",
        )
        read_only_fields: tuple[str, ...] = fields

    def get_superseded(self, record: ScoreRecord) -> bool:
        return hasattr(record, "superseded_by")


class RoundEntrySerializer(ScoreRecordSerializer):
    """The record an entry made, or the one an earlier entry with its key made (a replay)."""

    replayed = serializers.SerializerMethodField(
        help_text="True when the Idempotency-Key was seen before: nothing was written"
    )

    class Meta(ScoreRecordSerializer.Meta):
        fields = (*ScoreRecordSerializer.Meta.fields, "replayed")
        read_only_fields = fields

    def get_replayed(self, record: ScoreRecord) -> bool:
        replayed: bool = self.context["replayed"]
        return replayed


class ChangeSerializer(serializers.Serializer[Any]):
    at = serializers.DateTimeField(source="created_at")
    by = serializers.CharField(source="actor.username", allow_null=True, default=None)
    action = serializers.CharField()
    subject = serializers.CharField()
    reason = serializers.CharField()
    before = serializers.JSONField(allow_null=True)
    after = serializers.JSONField(allow_null=True)


class WebhookCreatedSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    url = serializers.URLField()
    secret = serializers.CharField(help_text="Shown once: verify signatures with it")


class GameRowSerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField()
    mode = serializers.CharField()
    status = serializers.CharField()
    night = serializers.DateField(allow_null=True)
    round = serializers.IntegerField(allow_null=True)
    table = serializers.IntegerField(allow_null=True)
    seat = serializers.IntegerField()
    competitor = serializers.CharField()
    place = serializers.IntegerField(allow_null=True)
    dollars = serializers.IntegerField(allow_null=True)
