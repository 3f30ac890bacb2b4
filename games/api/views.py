"""Games over HTTP: tables, seats, decisions, the action endpoint, waiting, replays.

Handlers validate input, run exactly one service or selector, and render output. Domain
errors (DomainError and the engine's coded errors) are rendered by the one exception
handler, so there is no try/except here.

The play loop's two endpoints (``decision`` and ``actions``) answer with data that is
already plain JSON (games.feed and games.selectors build it, and the streams send the
same objects), so they skip the response serializers, which only describe them in the
schema; tests hold the two equal.
"""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import User
from cya_site.errors import DomainError
from cya_site.idempotency import IDEMPOTENCY_HEADER, idempotency_key, replay_status
from cya_site.viewsets import ApiViewSet
from games import feed, selectors, services, store
from games.api import waits
from games.api.filters import GameFilter
from games.api.serializers import (
    AbortInputSerializer,
    ActionInputSerializer,
    ActionResultSerializer,
    DecisionEnvelopeSerializer,
    EventsQuerySerializer,
    ForkInputSerializer,
    GameCreateInputSerializer,
    GameSerializer,
    JoinInputSerializer,
    LogEntrySerializer,
    ReplaySerializer,
    ReplayViewQuerySerializer,
    StartInputSerializer,
    WaitQuerySerializer,
    WaitResultSerializer,
)
from games.models import Game


def _user(request: Request) -> User:
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated
    return user


class GameViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, ApiViewSet[Game]):
    """Tables and the games played at them."""

    serializer_class = GameSerializer
    permission_classes = (IsAuthenticatedOrReadOnly,)
    filterset_class = GameFilter
    throttle_scope: str | None = None
    # The play loop's endpoints read the game row alone; the seats, players and round
    # scores the full representation prefetches would be wasted on them.
    LEAN_ACTIONS = frozenset({"observation", "wait", "events", "replay", "replay_view", "fork"})

    def get_queryset(self) -> QuerySet[Game]:
        if self.action == "observation":
            return Game.objects.select_related("snapshot")
        if self.action in self.LEAN_ACTIONS:
            return Game.objects.all()
        return selectors.game_list()

    def _render(self, game: Game, code: int = status.HTTP_200_OK) -> Response:
        fresh = self.get_queryset().get(pk=game.pk)
        return Response(GameSerializer(fresh).data, status=code)

    @extend_schema(request=GameCreateInputSerializer, responses={201: GameSerializer})
    def create(self, request: Request) -> Response:
        """Open a table: a preset, seats and rule options; you take seat 0 unless told not to.

        ``bots`` seat built-in strategies or validated bot versions; such a table starts
        by itself once the people's seats are taken."""
        data = GameCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        game = services.game_create(
            by=_user(request),
            rules=data.validated_data["rules"],
            take_seat=data.validated_data["take_seat"],
            decision_seconds=data.validated_data["decision_seconds"],
            time_bank_seconds=data.validated_data["time_bank_seconds"],
            bots=data.validated_data["bots"],
            auto_start=data.validated_data["auto_start"],
            rated=data.validated_data["rated"],
        )
        return self._render(game, status.HTTP_201_CREATED)

    @extend_schema(request=JoinInputSerializer, responses={200: GameSerializer})
    @action(detail=True, methods=["post"])
    def join(self, request: Request, pk: str) -> Response:
        """Take a seat at an open table (the lowest free one, or the one named)."""
        data = JoinInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        game = self.get_object()
        services.game_join(game=game, user=_user(request), seat=data.validated_data.get("seat"))
        return self._render(game)

    @extend_schema(request=None, responses={200: GameSerializer})
    @action(detail=True, methods=["post"])
    def leave(self, request: Request, pk: str) -> Response:
        """Give up your seat before the game starts."""
        game = self.get_object()
        services.game_leave(game=game, user=_user(request))
        return self._render(game)

    @extend_schema(request=StartInputSerializer, responses={200: GameSerializer})
    @action(detail=True, methods=["post"])
    def start(self, request: Request, pk: str) -> Response:
        """Deal the first round (the table's creator, once every seat is taken)."""
        data = StartInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        game = self.get_object()
        services.game_start(game=game, by=_user(request), seed=data.validated_data.get("seed"))
        return self._render(game)

    @extend_schema(request=AbortInputSerializer, responses={200: GameSerializer})
    @action(detail=True, methods=["post"])
    def abort(self, request: Request, pk: str) -> Response:
        """Void a game (staff only): it ends without a result."""
        data = AbortInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        game = self.get_object()
        services.game_abort(game=game, by=_user(request), reason=data.validated_data["reason"])
        return self._render(game)

    @extend_schema(request=ForkInputSerializer, responses={201: GameSerializer})
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def fork(self, request: Request, pk: str) -> Response:
        """Open a table that plays on from this ended game's position after ``step``
        actions, with the same or re-dealt hidden cards; you take a seat unless told not to."""
        data = ForkInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        game = services.game_fork(game=self.get_object(), by=_user(request), **data.validated_data)
        return self._render(game, status.HTTP_201_CREATED)

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get"])
    def observation(self, request: Request, pk: str) -> Response:
        """Your seat's view of a started game; a spectator's view if you have no seat."""
        game = _dealt(self.get_object())
        return Response(selectors.observation(game, selectors.seat_number(game, request.user)))

    @extend_schema(responses={200: DecisionEnvelopeSerializer})
    @action(detail=True, methods=["get"], permission_classes=[IsAuthenticated])
    def decision(self, request: Request, pk: str) -> Response:
        """The decision your seat must make now, with its legal actions; null otherwise."""
        seat = store.seat_at(int(pk), _user(request))
        game = seat.game
        body = {
            "decision": selectors.decision(game, seat),
            "version": game.version,
            "status": game.status,
            "to_act": game.to_act,
        }
        return Response(body)  # already plain JSON data: see the module docstring

    @extend_schema(
        request=ActionInputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: ActionResultSerializer, 200: ActionResultSerializer},
    )
    @action(
        detail=True,
        methods=["post"],
        permission_classes=[IsAuthenticated],
        throttle_scope="actions",
    )
    def actions(self, request: Request, pk: str) -> Response:
        """Answer your seat's decision with one of its legal actions, naming its version."""
        data = ActionInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = services.action_submit(
            game_id=int(pk),
            user=_user(request),
            action=data.validated_data["action"],
            version=data.validated_data["version"],
            key=idempotency_key(request) or None,
            debug=data.validated_data.get("debug", ""),
        )
        body = {
            "entry": result.entry,
            "replayed": result.replayed,
            "game": feed.game_status(result.game),
            "decision": result.decision,
        }
        return Response(body, status=replay_status(result.replayed))

    @extend_schema(request=None, responses={200: LogEntrySerializer})
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def resign(self, request: Request, pk: str) -> Response:
        """Resign: your seat plays safe defaults to the end and is ranked last."""
        game = self.get_object()
        result = services.game_resign(game=game, user=_user(request))
        return Response(LogEntrySerializer(result.entry).data)

    @extend_schema(parameters=[WaitQuerySerializer], responses={200: WaitResultSerializer})
    # No filter backends: the games list's filters have nothing to say about one game,
    # and building them cost a long-poll a tenth of its CPU (benchmarks/live.py's crowd).
    @action(
        detail=True,
        methods=["get"],
        throttle_scope="wait",
        query_serializer=WaitQuerySerializer,
        filter_backends=[],
    )
    def wait(self, request: Request, pk: str) -> Response:
        """Wait up to ``timeout`` seconds for the game to pass version ``after`` or your turn.

        Answered at once here; the waiting itself is done on the event loop by the view
        in front of this one (games.api.waits), to which this leaves a ``WaitFor``."""
        query = self.query_valid()
        row = waits.heard_row(request._request)
        if row is None:
            game = self.get_object()
            seat, game_id = selectors.seat_number(game, request.user), game.pk
            row = (game.version, game.status, game.to_act)
        else:  # an anonymous wait on a game this process follows: what it last heard
            seat, game_id = None, int(pk)
        body, wait = waits.waiting(game_id, seat, row, query["after"], query["timeout"])
        if wait is not None:
            setattr(request._request, waits.WAIT_FOR, wait)
        return Response(body)  # WaitResultSerializer's shape already (waits.wait_answer)

    @extend_schema(
        parameters=[EventsQuerySerializer], responses={200: LogEntrySerializer(many=True)}
    )
    # A plain list, not the games list: without these the schema offered its filters and a
    # paginated body, and the endpoint refuses those parameters and answers an array.
    @action(
        detail=True,
        methods=["get"],
        filter_backends=[],
        pagination_class=None,
        query_serializer=EventsQuerySerializer,
    )
    def events(self, request: Request, pk: str) -> Response:
        """The public log after seq ``after``: what every seat saw happen, never the actions."""
        query = self.query_valid()
        game = self.get_object()
        rows = selectors.public_events(game, query["after"], query["limit"])
        return Response(LogEntrySerializer(rows, many=True).data)

    @extend_schema(responses={200: ReplaySerializer})
    @action(detail=True, methods=["get"])
    def replay(self, request: Request, pk: str) -> Response:
        """The full record of an ended game: seed, rules and every action."""
        game = self._ended(self.get_object())
        return Response(ReplaySerializer(selectors.replay(game)).data)

    @extend_schema(parameters=[ReplayViewQuerySerializer], responses={200: OpenApiTypes.OBJECT})
    @action(
        detail=True,
        methods=["get"],
        url_path="replay/view",
        query_serializer=ReplayViewQuerySerializer,
    )
    def replay_view(self, request: Request, pk: str) -> Response:
        """An ended game as ``seat`` (or a spectator) saw it after ``step`` actions."""
        query = self.query_valid()
        game = self._ended(self.get_object())
        step, seat = query["step"], query.get("seat")
        if step > game.version:
            raise DomainError(
                "no_such_step", f"The game has {game.version} steps.", {"steps": game.version}
            )
        if seat is not None and seat >= game.seat_count:
            raise DomainError("no_such_seat", f"The game has {game.seat_count} seats.")
        return Response(selectors.replay_view(game, seat, step))

    def _ended(self, game: Game) -> Game:
        _digital(game)
        if game.status not in (Game.Status.FINISHED, Game.Status.ABORTED) or game.seed is None:
            raise DomainError(
                "replay_not_available", "A replay is available once the game has ended.", status=409
            )
        return game


def _digital(game: Game) -> Game:
    """The game, unless it is played with real cards (``recorded_game``): such a game has
    no deal, so no observation and no replay; its rounds are on its score sheet."""
    if game.mode == Game.Mode.RECORDED:
        raise DomainError(
            "recorded_game",
            "This game is played with real cards: see its score sheet.",
            status=409,
        )
    return game


def _dealt(game: Game) -> Game:
    """The game, once it is dealt here (``recorded_game``, ``game_not_started``)."""
    if _digital(game).seed is None:
        raise DomainError("game_not_started", "The game has not started yet.", status=409)
    return game
