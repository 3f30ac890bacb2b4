"""Input serializers (strict: unknown fields are refused) and read-only output ones."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from cya_site.errors import DomainError
from cya_site.serializers import StrictInputSerializer
from games import selectors
from games.api.rules import RuleOptionsField, rules_build
from games.engine import PRESETS
from games.engine.state import DECISION_NAMES
from games.models import Event, Game, Round, Seat
from games.seating import BotChoice

MAX_WAIT_SECONDS = 30
DEFAULT_WAIT_SECONDS = 25


class BotSeatInputSerializer(StrictInputSerializer):
    exactly_one_of = ("strategy", "version")  # the schema's oneOf (cya_site/schema.py)

    seat = serializers.IntegerField(min_value=0, max_value=7)
    strategy = serializers.CharField(
        min_length=1,
        max_length=20,
        trim_whitespace=False,  # a name as given: one the platform lacks is unknown_strategy
        required=False,
        help_text="A built-in strategy: random, greedy, shark",
    )
    version = serializers.IntegerField(
        min_value=1,
        max_value=2**63 - 1,
        required=False,
        help_text="A validated version of an active bot (version_id in GET /api/v1/ladder/)",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Exactly one of ``strategy`` and ``version``."""
        if ("strategy" in attrs) == ("version" in attrs):
            raise serializers.ValidationError(
                {"strategy": ["Name a built-in strategy or a bot version, not both or neither."]}
            )
        return attrs


def bot_choices(given: list[dict[str, Any]]) -> list[BotChoice]:
    """The validated ``bots`` of a create or a fork as the service takes them."""
    return [
        BotChoice(seat=b["seat"], strategy=b.get("strategy", ""), version=b.get("version"))
        for b in given
    ]


class GameCreateInputSerializer(StrictInputSerializer):
    preset = serializers.ChoiceField(choices=sorted(PRESETS), default="2021")
    seats = serializers.IntegerField(min_value=2, max_value=8, default=4)
    options = RuleOptionsField(
        misplaced={"seats": "seats is not an option: give it beside options."},
        required=False,
        default=dict,
        help_text='RuleSet options over the preset, e.g. {"ending": "quick", '
        '"advanced": {"penny_jar": true}}; see docs/engine.md',
    )
    take_seat = serializers.BooleanField(default=True)
    decision_seconds = serializers.IntegerField(
        min_value=1, max_value=86_400, required=False, allow_null=True, default=None
    )
    time_bank_seconds = serializers.IntegerField(
        min_value=0, max_value=86_400, required=False, allow_null=True, default=None
    )
    bots = BotSeatInputSerializer(
        many=True,
        required=False,
        default=list,
        help_text="Seats to fill with bots; the table then starts by itself once full",
    )
    auto_start = serializers.BooleanField(
        default=False, help_text="Start by itself once every seat is taken (always with bots)"
    )
    rated = serializers.BooleanField(
        default=False,
        help_text="Its result moves the online ratings of everyone seated (docs/ratings.md)",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Build the RuleSet (the engine refuses bad options with ``invalid_rules``) and
        the bot choices."""
        attrs["rules"] = rules_build(attrs["preset"], attrs["options"], seats=attrs["seats"])
        if len(attrs["bots"]) >= attrs["seats"] and attrs["take_seat"]:
            # counts the schema cannot compare: the rules of this table refuse it (422)
            raise DomainError("invalid", "Leave a seat for yourself.", {"field": "bots"})
        attrs["bots"] = bot_choices(attrs["bots"])
        return attrs


class ForkInputSerializer(StrictInputSerializer):
    step = serializers.IntegerField(
        min_value=0, help_text="Fork the position after this many actions (as replay/view/)"
    )
    redeal = serializers.BooleanField(
        default=False,
        help_text="Deal the cards no seat has seen again: the deck, the hands (sizes kept) "
        "and the face-down draft-pile cards",
    )
    take_seat = serializers.BooleanField(default=True)
    seat = serializers.IntegerField(
        min_value=0,
        max_value=7,
        required=False,
        allow_null=True,
        default=None,
        help_text="The seat you take: by default the one you had in the game, else 0",
    )
    decision_seconds = serializers.IntegerField(
        min_value=1, max_value=86_400, required=False, allow_null=True, default=None
    )
    time_bank_seconds = serializers.IntegerField(
        min_value=0, max_value=86_400, required=False, allow_null=True, default=None
    )
    bots = BotSeatInputSerializer(
        many=True,
        required=False,
        default=list,
        help_text="Seats to fill with bots; the table then starts by itself once full",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """The bot choices as the service takes them."""
        attrs["bots"] = bot_choices(attrs["bots"])
        return attrs


class JoinInputSerializer(StrictInputSerializer):
    seat = serializers.IntegerField(min_value=0, max_value=7, required=False, allow_null=True)


class StartInputSerializer(StrictInputSerializer):
    seed = serializers.IntegerField(
        min_value=0, max_value=2**63 - 1, required=False, allow_null=True, help_text="Staff only"
    )


@extend_schema_field({"type": "object", "additionalProperties": True})
class ActionField(serializers.JSONField):
    """An action: a JSON object, judged by the engine (422 ``malformed_action`` when it
    names no action of the game, RULES.md's decisions)."""

    def to_internal_value(self, data: Any) -> Any:
        """The action as the body carried it. The API reads JSON bodies only
        (cya_site.parsers), whose values are JSON already: DRF's check, encoding the value
        again on every move, could never fail; a form's JSON text is still decoded."""
        if getattr(data, "is_json_string", False):
            return super().to_internal_value(data)
        return data


class ActionInputSerializer(StrictInputSerializer):
    action = ActionField(
        help_text='One of the decision\'s legal_actions, e.g. {"type": "discard", "card": "piano"}'
    )
    version = serializers.IntegerField(
        min_value=0, help_text="The version of the decision this action answers"
    )
    debug = serializers.CharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        max_length=65536,
        help_text=(
            "A bot's note on this decision, kept in its decision log for its owner only "
            "(cut to 1 KiB of UTF-8); ignored for people"
        ),
    )


class AbortInputSerializer(StrictInputSerializer):
    reason = serializers.CharField(max_length=20, default="aborted")


class WaitQuerySerializer(StrictInputSerializer):
    after = serializers.IntegerField(min_value=0, help_text="The version the caller has seen")
    timeout = serializers.FloatField(
        min_value=0,
        max_value=MAX_WAIT_SECONDS,
        default=DEFAULT_WAIT_SECONDS,
        help_text="Seconds to wait at most",
    )


class StreamQuerySerializer(StrictInputSerializer):
    updates = serializers.BooleanField(
        default=False, help_text="Every change of the game, not only your decisions"
    )


class EventsQuerySerializer(StrictInputSerializer):
    after = serializers.IntegerField(min_value=-1, default=-1)
    limit = serializers.IntegerField(min_value=1, max_value=500, default=200)


class ReplayViewQuerySerializer(StrictInputSerializer):
    step = serializers.IntegerField(min_value=0)
    seat = serializers.IntegerField(min_value=0, max_value=7, required=False, allow_null=True)


# --- output ---------------------------------------------------------------------------


class PlayerSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    username = serializers.CharField()
    is_bot = serializers.BooleanField()


class SeatSerializer(serializers.ModelSerializer[Seat]):
    player = PlayerSerializer(source="user", allow_null=True)
    resigned = serializers.SerializerMethodField()

    class Meta:
        model = Seat
        fields = (
            "number",
            "player",
            "joined_at",
            "resigned",
            "time_bank_ms",
            "place",
            "tally",
            "round_wins",
            "is_winner",
        )
        read_only_fields = fields

    def get_resigned(self, seat: Seat) -> bool:
        return seat.resigned_at is not None


class RoundSerializer(serializers.ModelSerializer[Round]):
    scores = serializers.SerializerMethodField(help_text="Dollars by seat")
    tallies = serializers.SerializerMethodField(help_text="Running tallies by seat after it")
    winners = serializers.SerializerMethodField(help_text="Seats with the round's top score")

    class Meta:
        model = Round
        fields = ("number", "finished_at", "scores", "tallies", "winners")
        read_only_fields = fields

    def _rows(self, round_: Round) -> list[Any]:
        return sorted(round_.scores.all(), key=lambda r: r.seat.number)

    def get_scores(self, round_: Round) -> list[int]:
        return [r.dollars for r in self._rows(round_)]

    def get_tallies(self, round_: Round) -> list[int]:
        return [r.tally for r in self._rows(round_)]

    def get_winners(self, round_: Round) -> list[int]:
        return [r.seat.number for r in self._rows(round_) if r.won_round]


class ForkOriginSerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField(help_text="The game it was forked from")
    step = serializers.IntegerField(help_text="That game's actions played before the fork")
    redeal = serializers.BooleanField(help_text="The cards no seat had seen were dealt again")


class GameSerializer(serializers.ModelSerializer[Game]):
    """A game as anyone may see it: no hands, no deck, and the seed only once it ended."""

    created_by = serializers.CharField(source="created_by.username")
    seats = SeatSerializer(many=True)
    rounds = RoundSerializer(many=True)
    seed = serializers.SerializerMethodField(help_text="Revealed when the game has ended")
    bot_seats = serializers.ListField(
        child=serializers.IntegerField(), help_text="Seats played by bots the platform moves"
    )
    decision_kind = serializers.ChoiceField(choices=["", *DECISION_NAMES])
    fork = serializers.SerializerMethodField(help_text="Where a forked game started; else null")

    class Meta:
        model = Game
        fields = (
            "id",
            "status",
            "mode",
            "rules",
            "seat_count",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
            "version",
            "round_number",
            "to_act",
            "decision_kind",
            "decision_seconds",
            "time_bank_seconds",
            "deadline",
            "seats",
            "rounds",
            "winners",
            "end_reason",
            "seed",
            "bot_seats",
            "auto_start",
            "rated",
            "fork",
        )
        read_only_fields = fields

    def get_seed(self, game: Game) -> int | None:
        ended = game.status in (Game.Status.FINISHED, Game.Status.ABORTED)
        return game.seed if ended else None

    @extend_schema_field(ForkOriginSerializer(allow_null=True))
    def get_fork(self, game: Game) -> dict[str, Any] | None:
        return selectors.fork_origin(game)


class DecisionSerializer(serializers.Serializer[Any]):
    decision_id = serializers.CharField(help_text="game:version; unique per decision")
    game = serializers.IntegerField()
    seat = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=DECISION_NAMES)
    version = serializers.IntegerField(help_text="Send it back with the action")
    legal_actions = serializers.ListField(child=serializers.JSONField())
    deadline = serializers.DateTimeField(allow_null=True)
    time_bank_ms = serializers.IntegerField(allow_null=True)
    observation = serializers.JSONField(help_text="The seat's view: see docs/engine.md")


class DecisionEnvelopeSerializer(serializers.Serializer[Any]):
    decision = DecisionSerializer(allow_null=True, help_text="Null when another seat must act")
    version = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Game.Status.choices)
    to_act = serializers.IntegerField(allow_null=True)


class LogEntrySerializer(serializers.Serializer[Any]):
    seq = serializers.IntegerField()
    seat = serializers.IntegerField(allow_null=True)
    events = serializers.ListField(child=serializers.JSONField())


class GameStatusSerializer(serializers.ModelSerializer[Game]):
    """Where a game stands: enough to know whose turn it is (GET the game for the rest)."""

    decision_kind = serializers.ChoiceField(choices=["", *DECISION_NAMES])

    class Meta:
        model = Game
        fields = (
            "id",
            "status",
            "version",
            "round_number",
            "to_act",
            "decision_kind",
            "deadline",
            "winners",
            "end_reason",
        )
        read_only_fields = fields


class ActionResultSerializer(serializers.Serializer[Any]):
    entry = LogEntrySerializer()
    replayed = serializers.BooleanField(help_text="True when the Idempotency-Key was seen before")
    game = GameStatusSerializer()
    decision = DecisionSerializer(allow_null=True, help_text="Your next decision, if it is yours")


class WaitResultSerializer(serializers.Serializer[Any]):
    changed = serializers.BooleanField()
    version = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Game.Status.choices)
    to_act = serializers.IntegerField(allow_null=True)
    your_turn = serializers.BooleanField()


class ReplayEntrySerializer(LogEntrySerializer):
    action = serializers.JSONField(allow_null=True)
    origin = serializers.ChoiceField(
        choices=Event.Origin.choices, help_text="Who chose the action (deal: the deal itself)"
    )


class ReplaySerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField()
    seed = serializers.IntegerField()
    rules = serializers.JSONField()
    fork = ForkOriginSerializer(
        allow_null=True, help_text="A fork's log starts from this position, not a deal"
    )
    log = ReplayEntrySerializer(many=True)
