"""Challenges over HTTP: ``POST /api/v1/challenges/`` starts one (the challenging bot's
owner only), and anyone reads them, with a row per deal (bots.challenges).

Its serializers live here beside the viewset: a challenge's results are read as
``bots.challenge_results.Results``, not as a model's rows.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import User
from bots import challenge_results, challenges
from bots.models import Bot, Challenge
from bots.web.figures import replay_path
from cya_site.errors import DomainError
from cya_site.routes import MAX_ID
from cya_site.serializers import StrictInputSerializer
from cya_site.viewsets import ApiViewSet
from games.api.rules import RuleOptionsField, rules_build
from games.engine import PRESETS

STATUSES = (challenge_results.SCHEDULED, challenge_results.RUNNING, challenge_results.FINISHED)


class ChallengeOpponentInputSerializer(StrictInputSerializer):
    exactly_one_of = ("strategy", "version")  # the schema's oneOf (cya_site/schema.py)

    strategy = serializers.CharField(
        min_length=1,
        max_length=20,
        trim_whitespace=False,  # a name as given: one the platform lacks is unknown_strategy
        required=False,
        help_text="A built-in strategy: random, greedy, shark, ismcts",
    )
    version = serializers.IntegerField(
        min_value=1,
        max_value=MAX_ID,
        required=False,
        help_text="A ready version of an active bot, anyone's (version_id in GET /api/v1/ladder/)",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Exactly one of ``strategy`` and ``version``."""
        if ("strategy" in attrs) == ("version" in attrs):
            raise serializers.ValidationError(
                {"strategy": ["Name a built-in strategy or a bot version, not both or neither."]}
            )
        return attrs


class ChallengeCreateInputSerializer(StrictInputSerializer):
    bot = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, help_text="Your bot's id: its ready version challenges"
    )
    opponents = serializers.ListField(
        child=ChallengeOpponentInputSerializer(),
        min_length=1,
        max_length=challenges.MAX_OPPONENTS,
        help_text="Who it plays, in seat order after it: one seat each",
    )
    deals = serializers.IntegerField(
        min_value=1,
        max_value=challenges.MAX_DEALS,
        default=4,
        help_text="Duplicate deals: each is played once per rotation of the seats",
    )
    preset = serializers.ChoiceField(choices=sorted(PRESETS), default="2021")
    options = RuleOptionsField(
        misplaced={"seats": "seats is not an option: the table has a seat per entrant."},
        required=False,
        default=dict,
        help_text='RuleSet options over the preset, e.g. {"ending": "quick", '
        '"advanced": {"penny_jar": true}}; see docs/engine.md',
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Build the RuleSet, a seat per entrant (``invalid_rules`` for options the engine
        cannot play), and the opponents as the service takes them."""
        opponents = [
            challenges.Opponent(strategy=o.get("strategy", ""), version=o.get("version"))
            for o in attrs["opponents"]
        ]
        seats = 1 + len(opponents)
        attrs["rules"] = rules_build(attrs.pop("preset"), attrs.pop("options"), seats=seats)
        attrs["opponents"] = opponents
        return attrs


class ChallengeEntrantSerializer(serializers.Serializer[Any]):
    position = serializers.IntegerField(help_text="Its seat in each deal's first game")
    bot = serializers.CharField(source="version.bot.name")
    owner = serializers.CharField(source="version.bot.owner.username")
    version = serializers.IntegerField(source="version.number")
    version_id = serializers.IntegerField(source="version.pk")
    place = serializers.IntegerField(
        allow_null=True, help_text="Over the finished deals; null before the first"
    )
    deals_played = serializers.IntegerField()
    first_places = serializers.IntegerField()
    mean_place = serializers.FloatField(allow_null=True)
    mean_place_half = serializers.FloatField(
        allow_null=True, help_text="Half-width of the mean place's 95% interval (2+ deals)"
    )
    dollars = serializers.IntegerField(help_text="Summed over the finished deals' games")


class ChallengeCellSerializer(serializers.Serializer[Any]):
    place = serializers.IntegerField(allow_null=True, help_text="null until the deal ended")
    dollars = serializers.IntegerField(allow_null=True)
    forfeited = serializers.BooleanField(help_text="A seat of it went to the autopilot")


class ChallengeGameSerializer(serializers.Serializer[Any]):
    rotation = serializers.IntegerField()
    game = serializers.IntegerField(source="game_id")
    finished = serializers.BooleanField()
    replay = serializers.SerializerMethodField(help_text="Its replay page, once played")

    def get_replay(self, link: challenge_results.GameLink) -> str | None:
        return replay_path(link.game_id) if link.finished else None


class ChallengeDealSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    match = serializers.IntegerField(source="match_id")
    status = serializers.CharField(help_text="Its match's: scheduled, running, finished, voided")
    results = ChallengeCellSerializer(
        source="cells", many=True, help_text="Each entrant's, in position order"
    )
    games = ChallengeGameSerializer(many=True)


class ChallengeSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(source="challenge.pk")
    bot = serializers.CharField(source="challenge.bot.name", help_text="The challenging bot")
    by = serializers.CharField(source="challenge.by.username")
    created_at = serializers.DateTimeField(source="challenge.created_at")
    status = serializers.ChoiceField(choices=STATUSES)
    deal_count = serializers.IntegerField(source="challenge.deals")
    deals_finished = serializers.IntegerField()
    rules = serializers.JSONField(source="challenge.rules")
    entrants = ChallengeEntrantSerializer(many=True)
    deals = ChallengeDealSerializer(many=True)


def _user(request: Request) -> User:
    if not isinstance(request.user, User):
        raise NotAuthenticated
    return request.user


class ChallengeViewSet(ApiViewSet[Challenge]):
    """Challenges: unrated matches of duplicate deals that a bot's owner starts; anyone
    may read their results."""

    serializer_class = ChallengeSerializer
    permission_classes = (IsAuthenticatedOrReadOnly,)
    filter_backends = ()

    def get_queryset(self) -> QuerySet[Challenge]:
        return challenge_results.challenges_with_deals(Challenge.objects.all())

    @extend_schema(responses={200: ChallengeSerializer(many=True)})
    def list(self, request: Request) -> Response:
        """Every challenge, newest first, with its results so far."""
        page = self.paginate_queryset(self.get_queryset())
        assert page is not None  # paginated
        rows = [challenge_results.challenge_results(c) for c in page]
        return self.get_paginated_response(ChallengeSerializer(rows, many=True).data)

    def retrieve(self, request: Request, pk: str) -> Response:
        """A challenge: its entrants' standing, and each deal's places and replays."""
        results = challenge_results.challenge_results(self.get_object())
        return Response(ChallengeSerializer(results).data)

    @extend_schema(request=ChallengeCreateInputSerializer, responses={201: ChallengeSerializer})
    def create(self, request: Request) -> Response:
        """Challenge: your bot against the opponents named, on ``deals`` duplicate deals,
        unrated. ``too_many_challenges`` (429, ``Retry-After``) past CHALLENGES_PER_DAY."""
        data = ChallengeCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        bot = Bot.objects.filter(pk=fields.pop("bot")).first()
        if bot is None:
            raise DomainError("no_such_bot", "No bot has that id.", {"field": "bot"})
        challenge = challenges.challenge_create(by=_user(request), bot=bot, **fields)
        results = challenge_results.challenge_results(self.get_queryset().get(pk=challenge.pk))
        return Response(ChallengeSerializer(results).data, status=status.HTTP_201_CREATED)
