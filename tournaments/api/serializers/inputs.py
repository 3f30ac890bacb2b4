"""Input serializers (strict: unknown fields are refused) for leagues, nights, competitions,
tournaments and score sheets."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from cya_site.serializers import IdField, StrictInputSerializer, WebhookUrlField
from games.api.rules import RuleOptionsField, rules_build
from games.engine import PRESETS
from tournaments.models import Penalty, RoundClock, ScoreVote, SubstitutePolicy, Tournament
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
    organiser_entries_settle = serializers.BooleanField(
        required=False,
        default=False,
        help_text="An organiser's entry of a round counts at once (default: the table's "
        "players confirm it, and the organiser can settle it)",
    )


class LeagueSettingsInputSerializer(StrictInputSerializer):
    organiser_entries_settle = serializers.BooleanField(
        required=False,
        default=None,
        help_text="An organiser's entry of a round counts at once; false: the table's "
        "players confirm it, and the organiser can settle it. Left out: unchanged",
    )
    substitute_policy = serializers.ChoiceField(
        choices=SubstitutePolicy.choices,
        required=False,
        default=None,
        help_text="How the game of a player who left, replaced by a substitute, is scored. "
        "Left out: unchanged",
    )


class SubstituteInputSerializer(StrictInputSerializer):
    """A substitute for the player at ``seat`` (0-based) who left: a roster ``member``,
    or a guest by ``name``; the ``reason`` is public."""

    seat = serializers.IntegerField(min_value=0, max_value=7)
    member = IdField(required=False, allow_null=True, default=None)
    name = serializers.CharField(max_length=80, required=False, default="", allow_blank=True)
    reason = serializers.CharField(max_length=500, required=False, default="", allow_blank=True)


class PenaltyInputSerializer(StrictInputSerializer):
    """Points or dollars off a competitor's standing, with a public reason; a season's
    at ``night`` (default: the last night up to today)."""

    competitor = IdField()
    kind = serializers.ChoiceField(choices=Penalty.Kind.choices)
    amount = serializers.FloatField(min_value=0, max_value=10**12)
    reason = serializers.CharField(max_length=500, required=False, default="", allow_blank=True)
    night = IdField(required=False, allow_null=True, default=None)


class PenaltyWithdrawInputSerializer(StrictInputSerializer):
    """Withdraw a penalty given by mistake, with a public reason."""

    penalty = IdField()
    reason = serializers.CharField(max_length=500, required=False, default="", allow_blank=True)


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
        help_text=(
            "The round this entry is for: the next round, or it is refused with stale_round "
            "(two phones entering one round store it once)"
        ),
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
    url = WebhookUrlField(help_text="http(s), leading to public internet addresses only")
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
    after_night = serializers.DateField(
        required=False,
        allow_null=True,
        default=None,
        help_text="A season's standings after the night of this date: the games played "
        "up to it, whenever they were recorded",
    )
    after_round = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        max_value=1000,
        help_text="A tournament's standings after this round",
    )
    as_of = serializers.DateTimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="As recorded at this moment: the audit trail, before later corrections",
    )
    night = IdField(
        required=False, allow_null=True, default=None, help_text="One game night of a season"
    )
    format = serializers.ChoiceField(choices=["json", "csv"], required=False, default="json")


class ClockInputSerializer(StrictInputSerializer):
    """What an organiser does to the round clock of a night's round in play."""

    action = serializers.ChoiceField(choices=["start", "pause", "resume", "extend"])
    minutes = serializers.IntegerField(
        required=False,
        default=None,
        allow_null=True,
        help_text="start: the round's length (default 75); extend: the minutes to add",
    )
    policy = serializers.ChoiceField(
        choices=RoundClock.Policy.choices,
        required=False,
        default=RoundClock.Policy.FINISH_ROUND,
        help_text="start: at time, finish the round in play, or stop at once",
    )
