"""Output serializers: what the API shows of leagues, nights, competitions, tournaments and
score sheets."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from tournaments.models import (
    CheckIn,
    Competition,
    Competitor,
    GameNight,
    League,
    Member,
    Penalty,
    ScoreRecord,
    ScoreVote,
    Season,
    Substitution,
    Tournament,
    TournamentRound,
)


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
    name = serializers.CharField(help_text='A substitute shows as "Eve for Cleo"')
    competitor = serializers.IntegerField()
    tally = serializers.IntegerField(
        allow_null=True, help_text="The seat's running tally; null until a round is recorded"
    )


class TableSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField(help_text="0-based; pages show table number + 1")
    game = serializers.IntegerField()
    status = serializers.CharField()
    players = SitterSerializer(many=True)
    rounds_recorded = serializers.IntegerField()
    waiting = serializers.IntegerField(help_text="Recorded rounds not yet confirmed")
    disputed = serializers.BooleanField()
    disputed_round = serializers.IntegerField(
        allow_null=True, help_text="The first disputed round: the one the organiser settles"
    )
    winners = serializers.ListField(child=serializers.IntegerField(), help_text="Seats")


class NightRoundSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    quality = serializers.DictField(child=serializers.IntegerField())
    finished = serializers.BooleanField()
    tables = TableSerializer(many=True)


class DeskCountsSerializer(serializers.Serializer[Any]):
    playing = serializers.IntegerField()
    waiting = serializers.IntegerField(help_text="Tables with a round not yet confirmed")
    disputed = serializers.IntegerField(help_text="Tables with a disputed round")
    finished = serializers.IntegerField()


class DeskSerializer(serializers.Serializer[Any]):
    """The organiser's desk: who came, the round in play and its tables by state."""

    checked_in = serializers.IntegerField()
    seated = serializers.IntegerField(help_text="Players at the current round's tables")
    rounds = serializers.IntegerField(help_text="Seating draws so far")
    current = NightRoundSerializer(allow_null=True)
    tables = DeskCountsSerializer()
    disputed = TableSerializer(many=True, help_text="The tables that need the organiser")


class ClockSerializer(serializers.Serializer[Any]):
    """A round clock as read now from the server's clock."""

    round = serializers.IntegerField(help_text="The night's round it times")
    length_seconds = serializers.IntegerField(help_text="With the extensions")
    policy = serializers.CharField(help_text="finish_round or stop")
    policy_text = serializers.CharField()
    started_at = serializers.DateTimeField()
    paused = serializers.BooleanField()
    remaining_seconds = serializers.IntegerField(help_text="Never below 0")
    expired = serializers.BooleanField()
    ends_at = serializers.DateTimeField(allow_null=True, help_text="None while paused")
    at_time = serializers.CharField(help_text="What the policy means once time is up")


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
            "organiser_entries_settle",
            "substitute_policy",
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
    penalty_points = serializers.FloatField(help_text="Placement points taken off (in points)")
    penalty_dollars = serializers.IntegerField(help_text="Dollars taken off (in dollars)")
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


class SubstitutionSerializer(serializers.ModelSerializer[Substitution]):
    absent = serializers.CharField(source="absent.name")
    by = serializers.CharField(source="actor.username")

    class Meta:
        model = Substitution
        fields = (
            "id",
            "game",
            "seat",
            "absent",
            "substitute_name",
            "from_round",
            "policy",
            "reason",
            "by",
            "created_at",
        )
        read_only_fields = fields


class PenaltySerializer(serializers.ModelSerializer[Penalty]):
    name = serializers.CharField(source="competitor.name")
    night = serializers.DateField(source="night.date", allow_null=True, default=None)
    round = serializers.IntegerField(source="round.number", allow_null=True, default=None)
    by = serializers.CharField(source="actor.username")

    class Meta:
        model = Penalty
        fields = (
            "id",
            "competitor",
            "name",
            "kind",
            "amount",
            "reason",
            "night",
            "round",
            "by",
            "created_at",
            "withdrawn_at",
            "withdraw_reason",
        )
        read_only_fields = fields


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
