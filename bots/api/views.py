"""Bots over HTTP: entries, versions, bot tokens, strikes, the ladder and its matches."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import User
from bots import decision_log, health, selectors, services
from bots.api.filters import MatchFilter
from bots.api.serializers import (
    AlertsInputSerializer,
    BotCreateInputSerializer,
    BotSerializer,
    BotTokenSerializer,
    DecisionLogQuerySerializer,
    LeaderboardRowSerializer,
    MatchSerializer,
    StrikeSerializer,
    TokenInputSerializer,
    VersionCreateInputSerializer,
    VersionSerializer,
)
from bots.models import Bot, BotVersion, Match
from cya_site.errors import DomainError
from cya_site.viewsets import ApiViewSet

STRIKES_SHOWN = 200


def _user(request: Request) -> User:
    if not isinstance(request.user, User):
        raise NotAuthenticated
    return request.user


class BotViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, ApiViewSet[Bot]):
    """Bot entries: anyone may look; owners register bots and their versions."""

    serializer_class = BotSerializer
    permission_classes = (IsAuthenticatedOrReadOnly,)
    filterset_fields = ("kind",)

    def get_queryset(self) -> QuerySet[Bot]:
        return Bot.objects.select_related("owner", "user").prefetch_related("versions")

    def get_serializer_context(self) -> dict[str, object]:
        return {**super().get_serializer_context(), "user": self.request.user}

    @extend_schema(request=BotCreateInputSerializer, responses={201: BotSerializer})
    def create(self, request: Request) -> Response:
        """Register a bot (webhook or API client; built-in strategies are staff's)."""
        data = BotCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        bot = services.bot_create(owner=_user(request), **data.validated_data)
        body = BotSerializer(
            self.get_queryset().get(pk=bot.pk), context=self.get_serializer_context()
        )
        return Response(body.data, status=status.HTTP_201_CREATED)

    @extend_schema(methods=["get"], responses={200: VersionSerializer(many=True)})
    @extend_schema(
        methods=["post"], request=VersionCreateInputSerializer, responses={201: VersionSerializer}
    )
    # Paginated: a bot gains a version with every upload, so the list has no bound.
    @action(detail=True, methods=["get", "post"], filter_backends=[], pages=True)
    def versions(self, request: Request, pk: str) -> Response:
        """List a bot's versions, newest first, or create a new immutable one (validated first)."""
        context = self.get_serializer_context()
        if request.method == "GET":
            rows = self.get_object().versions.select_related("bot").order_by("-number")
            return self.page_response(rows, VersionSerializer, context=context)
        data = VersionCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        bot = self.get_object()
        version = services.version_create(bot=bot, by=_user(request), **data.validated_data)
        return Response(VersionSerializer(version, context=context).data, status=201)

    @extend_schema(request=TokenInputSerializer, responses={201: BotTokenSerializer})
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def tokens(self, request: Request, pk: str) -> Response:
        """A token for an API-client bot to play with (shown once)."""
        data = TokenInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        bot = self.get_object()
        token, key = services.bot_token_create(bot=bot, by=_user(request), **data.validated_data)
        body = {"id": token.pk, "name": token.name, "prefix": token.prefix, "key": key}
        return Response(BotTokenSerializer(body).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={200: VersionSerializer})
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def pause(self, request: Request, pk: str) -> Response:
        """Take the bot's ready version off the ladder until it is resumed (owner, staff):
        ``nothing_to_pause`` (409) when it has none."""
        version = health.version_pause(bot=self.get_object(), by=_user(request))
        return Response(VersionSerializer(version, context=self.get_serializer_context()).data)

    @extend_schema(request=None, responses={200: VersionSerializer})
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def resume(self, request: Request, pk: str) -> Response:
        """Put the bot's paused version back on the ladder, once its handshake (repeated
        first, for a webhook) passes: ``handshake_failed`` (409, with the handshake's
        ``reason`` and ``detail``) leaves it paused; ``not_paused`` (409) when none is."""
        version = health.version_resume(bot=self.get_object(), by=_user(request))
        return Response(VersionSerializer(version, context=self.get_serializer_context()).data)

    @extend_schema(request=AlertsInputSerializer, responses={200: BotSerializer})
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def alerts(self, request: Request, pk: str) -> Response:
        """Set the webhook told when a version of the bot is paused (owner, staff)."""
        data = AlertsInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        bot = health.bot_alerts_set(bot=self.get_object(), by=_user(request), **data.validated_data)
        return Response(BotSerializer(bot, context=self.get_serializer_context()).data)

    @extend_schema(responses={200: StrikeSerializer(many=True)})
    # A plain array: the latest strikes only, at most STRIKES_SHOWN.
    @action(
        detail=True,
        methods=["get"],
        permission_classes=[IsAuthenticated],
        filter_backends=[],
        pagination_class=None,
    )
    def strikes(self, request: Request, pk: str) -> Response:
        """The bot's latest strikes and why (its owner and staff only)."""
        bot = self.get_object()
        user = _user(request)
        if bot.owner_id != user.pk and not user.is_staff:
            raise DomainError(
                "permission_denied", "Only the bot's owner sees its strikes.", status=403
            )
        latest = selectors.bot_strikes(bot, STRIKES_SHOWN)
        return Response(StrikeSerializer(latest, many=True).data)

    @extend_schema(
        parameters=[DecisionLogQuerySerializer],
        responses={(200, "application/x-ndjson"): OpenApiTypes.STR},
    )
    @action(
        detail=True,
        methods=["get"],
        permission_classes=[IsAuthenticated],
        filter_backends=[],
        pagination_class=None,
        url_path="decision-log",
        query_serializer=DecisionLogQuerySerializer,
    )
    def decision_log(self, request: Request, pk: str) -> HttpResponse:
        """The bot's decision log in one game, as NDJSON, one decision a line: the
        request's size, the answer, the latency, any strike and the bot's debug note (its
        owner only; docs/bot-protocol.md, "The decision log")."""
        game = self.query_valid()["game"]
        found = decision_log.bot_lines(bot=self.get_object(), game_id=game, user=_user(request))
        return decision_log.download(found, f"game-{game}-bot-{pk}-decisions.ndjson")


class LadderViewSet(ApiViewSet[BotVersion]):
    """The leaderboard: every ranked version by its conservative rating (mu - 3 sigma)."""

    permission_classes = (IsAuthenticatedOrReadOnly,)
    serializer_class = LeaderboardRowSerializer
    pagination_class = None
    queryset = BotVersion.objects.none()  # list() builds the board itself

    @extend_schema(responses={200: LeaderboardRowSerializer(many=True)})
    def list(self, request: Request) -> Response:
        """Ranked versions, best first; provisional ratings are flagged."""
        return Response(LeaderboardRowSerializer(selectors.leaderboard(), many=True).data)


class MatchViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, ApiViewSet[Match]):
    """Ladder and validation matches, with each rating change explained."""

    serializer_class = MatchSerializer
    permission_classes = (IsAuthenticatedOrReadOnly,)
    filterset_class = MatchFilter

    def get_queryset(self) -> QuerySet[Match]:
        return selectors.match_rows(Match.objects.all())
