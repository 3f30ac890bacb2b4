"""Competitions: competitors, standings (as of any moment), exports, the change log,
webhooks."""

from __future__ import annotations

from typing import ClassVar

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.selectors import user_named
from bots.models import BotVersion
from cya_site.errors import DomainError
from cya_site.json_renderer import JSONRenderer
from cya_site.renderers import CSVRenderer
from cya_site.viewsets import ApiViewSet
from games.models import Game
from tournaments import discipline, exports, running, selectors, services
from tournaments.api.serializers.inputs import (
    CompetitorInputSerializer,
    PenaltyInputSerializer,
    PenaltyWithdrawInputSerializer,
    StandingsQuerySerializer,
    WebhookInputSerializer,
)
from tournaments.api.serializers.outputs import (
    ChangeSerializer,
    CompetitionSerializer,
    CompetitorSerializer,
    GameRowSerializer,
    PenaltySerializer,
    StandingRowSerializer,
    WebhookCreatedSerializer,
)
from tournaments.api.views.lookups import roster_member, signed_in
from tournaments.models import Competition, Competitor, GameNight, Penalty


class StandingsCSV(CSVRenderer):
    header: ClassVar[list[str]] = [
        "rank", "name", "games", "points", "placement", "dsi", "rounds_won", "wins",
        "best_dsi", "dollars", "penalty_points", "penalty_dollars", "competitor",
    ]  # fmt: skip


class GamesCSV(CSVRenderer):
    header: ClassVar[list[str]] = [
        "game", "mode", "status", "night", "round", "table", "seat", "competitor", "place",
        "dollars",
    ]  # fmt: skip


class CompetitionViewSet(mixins.RetrieveModelMixin, ApiViewSet[Competition]):
    """Anything with standings: competitors, standings (as of any moment), exports, the log."""

    serializer_class = CompetitionSerializer
    permission_classes = (IsAuthenticatedOrReadOnly,)
    queryset = Competition.objects.all()

    def handle_exception(self, exc: Exception) -> Response:
        """Errors stay JSON when a CSV export was asked for: a CSV body cannot carry them."""
        response = super().handle_exception(exc)
        if isinstance(getattr(self.request, "accepted_renderer", None), CSVRenderer):
            self.request.accepted_renderer = JSONRenderer()
            self.request.accepted_media_type = JSONRenderer.media_type
        return response

    @extend_schema(methods=["get"], responses={200: CompetitorSerializer(many=True)})
    @extend_schema(
        methods=["post"], request=CompetitorInputSerializer, responses={201: CompetitorSerializer}
    )
    # Paginated: a season's competitors grow with the club, with no bound.
    @action(detail=True, methods=["get", "post"], pages=True)
    def competitors(self, request: Request, pk: str) -> Response:
        """List competitors, or add one (an account, a guest name, or a bot version)."""
        if request.method == "GET":
            rows = self.get_object().competitors.select_related("user")
            return self.page_response(rows, CompetitorSerializer)
        data = CompetitorInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        competition = self.get_object()
        v = data.validated_data
        user = user_named(v["username"])
        version = None
        if v["bot_version"] is not None:
            version = get_object_or_404(BotVersion, pk=v["bot_version"])
        member = None
        if v["member"] is not None:
            league = selectors.league_of(competition)
            member = roster_member(league.pk if league else 0, v["member"])
        if hasattr(competition, "tournament"):
            competitor = running.entrant_add(
                tournament=competition.tournament,
                by=signed_in(request),
                name=v["name"],
                user=user,
                bot_version=version,
                member=member,
            )
        else:
            competitor = services.competitor_add(
                competition=competition,
                by=signed_in(request),
                name=v["name"] or (user.username if user else ""),
                user=user,
                bot_version=version,
                member=member,
            )
        return Response(CompetitorSerializer(competitor).data, status=201)

    @extend_schema(
        parameters=[StandingsQuerySerializer], responses={200: StandingRowSerializer(many=True)}
    )
    # The whole table, never a page: a ranking (and its spreadsheet) is read entire.
    @action(
        detail=True,
        methods=["get"],
        renderer_classes=[JSONRenderer, StandingsCSV],
        pagination_class=None,
        query_serializer=StandingsQuerySerializer,
    )
    def standings(self, request: Request, pk: str) -> Response:
        """The standings by when games were played (``after_night`` of a season,
        ``after_round`` of a tournament; neither: every game), as recorded now or ``as_of``
        a past moment; ``?format=csv`` for a spreadsheet."""
        query = self.query_valid()
        competition = self.get_object()
        as_of, night_id = query["as_of"], query["night"]
        after_night, after_round = query["after_night"], query["after_round"]
        is_tournament = hasattr(competition, "tournament")
        if (after_night and is_tournament) or (after_round and not is_tournament):
            raise DomainError(
                "wrong_clock",
                "A season's standings go by night (after_night), a tournament's by round "
                "(after_round).",
                {"after_night" if after_night else "after_round": "not for this competition"},
            )
        night = None
        if night_id is not None:
            night = GameNight.objects.filter(pk=night_id, season__competition=competition).first()
            if night is None:
                raise DomainError(
                    "no_such_night", "This season has no such night.", {"night": night_id}, 404
                )
        clock = {"after_night": after_night, "after_round": after_round}
        rows = selectors.standings(competition, as_of=as_of, night=night, **clock)
        filename = exports.standings_filename(competition, as_of=as_of, night=night, **clock)
        return self._download(Response(StandingRowSerializer(rows, many=True).data), filename)

    def _download(self, response: Response, filename: str) -> Response:
        """A CSV export is a file to keep: it downloads under a name that says what it is."""
        if isinstance(getattr(self.request, "accepted_renderer", None), CSVRenderer):
            response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response

    @extend_schema(responses={200: GameRowSerializer(many=True)})
    # An export, never a page: the spreadsheet holds every game.
    @action(
        detail=True,
        methods=["get"],
        renderer_classes=[JSONRenderer, GamesCSV],
        pagination_class=None,
    )
    def games(self, request: Request, pk: str) -> Response:
        """Every game of the competition, seat by seat; ``?format=csv`` for a spreadsheet."""
        competition = self.get_object()
        rows = []
        for e in selectors.entries_of(competition).order_by("game_id", "seat"):
            seat = e.game.seats.all()[e.seat] if e.game.status == Game.Status.FINISHED else None
            rows.append(
                {
                    "game": e.game_id,
                    "mode": e.game.mode,
                    "status": e.game.status,
                    "night": e.night.date if e.night else None,
                    "round": e.round.number if e.round else None,
                    "table": e.table,
                    "seat": e.seat,
                    "competitor": e.competitor.name,
                    "place": seat.place if seat else None,
                    "dollars": seat.tally if seat else None,
                }
            )
        filename = exports.games_filename(competition)
        return self._download(Response(GameRowSerializer(rows, many=True).data), filename)

    @extend_schema(responses={200: ChangeSerializer(many=True)})
    # Paginated: the log is append-only and grows with every entry and correction.
    @action(detail=True, methods=["get"], pages=True)
    def changes(self, request: Request, pk: str) -> Response:
        """The public change log, newest first: every change, who, when, why, before and after."""
        return self.page_response(selectors.change_log(self.get_object()), ChangeSerializer)

    @extend_schema(methods=["get"], responses={200: PenaltySerializer(many=True)})
    @extend_schema(
        methods=["post"], request=PenaltyInputSerializer, responses={201: PenaltySerializer}
    )
    # A plain array: penalties are few, and every standings reader wants them all.
    @action(detail=True, methods=["get", "post"], pagination_class=None)
    def penalties(self, request: Request, pk: str) -> Response:
        """Every penalty with its public reason, or (organisers) give one: placement
        ``points`` or whole ``dollars`` off a competitor's standing."""
        if request.method == "GET":
            rows = selectors.penalties_at(self.get_object(), None)
            return Response(PenaltySerializer(rows, many=True).data)
        data = PenaltyInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        competition = self.get_object()
        # the organiser's question first: a stranger learns nothing of who is a competitor
        services.require_organiser(competition, signed_in(request))
        competitor = Competitor.objects.filter(competition=competition, pk=v["competitor"]).first()
        if competitor is None:
            raise DomainError(
                "not_a_competitor",
                "Every player must be in this competition.",
                {"field": "competitor"},
            )
        night = None
        if v["night"] is not None:
            night = GameNight.objects.filter(pk=v["night"], season__competition=competition).first()
            if night is None:
                raise DomainError(
                    "no_such_night", "This season has no such night.", {"night": v["night"]}, 404
                )
        penalty = discipline.penalty_give(
            competition=competition,
            by=signed_in(request),
            competitor=competitor,
            kind=v["kind"],
            amount=v["amount"],
            reason=v["reason"],
            night=night,
        )
        return Response(PenaltySerializer(penalty).data, status=201)

    @extend_schema(request=PenaltyWithdrawInputSerializer, responses={200: PenaltySerializer})
    @action(detail=True, methods=["post"], url_path="penalties/withdraw")
    def penalty_withdraw(self, request: Request, pk: str) -> Response:
        """Withdraw a penalty given by mistake (organisers), with a reason everyone reads
        in the change log: it no longer counts from now on. ``already_withdrawn`` (409)."""
        data = PenaltyWithdrawInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        competition = self.get_object()
        services.require_organiser(competition, signed_in(request))
        penalty = Penalty.objects.filter(
            competition=competition, pk=data.validated_data["penalty"]
        ).first()
        if penalty is None:
            raise DomainError(
                "not_found", "This competition has no such penalty.", {"field": "penalty"}, 404
            )
        penalty = discipline.penalty_withdraw(
            penalty=penalty, by=signed_in(request), reason=data.validated_data["reason"]
        )
        return Response(PenaltySerializer(penalty).data)

    @extend_schema(request=WebhookInputSerializer, responses={201: WebhookCreatedSerializer})
    @action(detail=True, methods=["post"])
    def webhooks(self, request: Request, pk: str) -> Response:
        """Subscribe a URL to signed result notifications (organisers)."""
        data = WebhookInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hook, secret = services.webhook_add(
            competition=self.get_object(), by=signed_in(request), **data.validated_data
        )
        return Response(
            WebhookCreatedSerializer({"id": hook.pk, "url": hook.url, "secret": secret}).data,
            status=201,
        )
