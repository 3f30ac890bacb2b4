"""Game nights: digital games played on the platform, or real tables recorded."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import mixins
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from cya_site.errors import DomainError
from cya_site.viewsets import ApiViewSet
from games.engine import RuleSet
from tournaments import clocks, desk, nights, recording, services, tables
from tournaments.api.serializers.inputs import (
    CheckInInputSerializer,
    ClockInputSerializer,
    DrawInputSerializer,
    TableInputSerializer,
)
from tournaments.api.serializers.outputs import (
    CheckInSerializer,
    ClockSerializer,
    DeskSerializer,
    NightRoundSerializer,
    NightSerializer,
)
from tournaments.api.views.lookups import roster_member, signed_in
from tournaments.models import CheckIn, Competition, Competitor, GameNight


def _competitors(competition: Competition, ids: list[int]) -> list[Competitor]:
    found = {
        c.pk: c
        for c in Competitor.objects.filter(competition=competition, pk__in=ids).select_related(
            "user"
        )
    }
    missing = [i for i in ids if i not in found]
    if missing:
        raise DomainError(
            "not_a_competitor", "Every player must be in this competition.", {"missing": missing}
        )
    return [found[i] for i in ids]


class NightViewSet(mixins.RetrieveModelMixin, ApiViewSet[GameNight]):
    """Game nights: digital games played on the platform, or real tables recorded."""

    serializer_class = NightSerializer
    permission_classes = (IsAuthenticatedOrReadOnly,)
    queryset = GameNight.objects.select_related("season__competition", "season__league")

    def _table(self, request: Request) -> tuple[GameNight, list[Competitor], RuleSet | None]:
        """A table's request, read: the night, its players (competitors of the night's
        competition) and the rules given for it, or None when none were given."""
        data = TableInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        night = self.get_object()
        players = _competitors(night.season.competition, data.validated_data["competitors"])
        rules_in = data.validated_data["rules"]
        return night, players, rules_in["rules"] if rules_in else None

    @extend_schema(request=TableInputSerializer, responses={201: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["post"])
    def games(self, request: Request, pk: str) -> Response:
        """Start a digital table: the players play it through the games API."""
        night, players, rules = self._table(request)
        game = services.night_digital_game(
            night=night, by=signed_in(request), competitors=players, rules=rules
        )
        return Response({"game": game.pk}, status=201)

    @extend_schema(request=TableInputSerializer, responses={201: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["post"])
    def recorded(self, request: Request, pk: str) -> Response:
        """Open a real-table game whose rounds the table records."""
        night, players, rules = self._table(request)
        game = recording.recorded_game_create(
            by=signed_in(request),
            competition=night.season.competition,
            competitors=players,
            rules=rules or RuleSet.from_json(night.season.league.rules),
            night=night,
        )
        return Response({"game": game.pk}, status=201)

    @extend_schema(methods=["get"], responses={200: CheckInSerializer(many=True)})
    @extend_schema(
        methods=["post"], request=CheckInInputSerializer, responses={201: CheckInSerializer}
    )
    @action(detail=True, methods=["get", "post"], pagination_class=None)
    def checkins(self, request: Request, pk: str) -> Response:
        """Who has checked in, or check a roster member in (organisers, or oneself)."""
        if request.method == "GET":
            rows = CheckIn.objects.filter(night=self.get_object()).select_related(
                "competitor", "by"
            )
            return Response(CheckInSerializer(rows, many=True).data)
        data = CheckInInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        night = self.get_object()
        member = roster_member(night.season.league_id, data.validated_data["member"])
        checkin = nights.night_check_in(night=night, by=signed_in(request), member=member)
        return Response(CheckInSerializer(checkin).data, status=201)

    @extend_schema(request=None, responses={204: None})
    @action(detail=True, methods=["delete"], url_path="checkins/<id:member>")
    def checkout(self, request: Request, pk: str, member: str) -> Response:
        """Undo a check-in (organisers, or oneself); tables already drawn keep the player."""
        night = self.get_object()
        nights.night_check_out(
            night=night, by=signed_in(request), member=roster_member(night.season.league_id, member)
        )
        return Response(status=204)

    @extend_schema(request=DrawInputSerializer, responses={201: NightRoundSerializer})
    @action(detail=True, methods=["post"])
    def draw(self, request: Request, pk: str) -> Response:
        """Seat the checked-in players for the next round: one recorded game a table."""
        data = DrawInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        night = self.get_object()
        round_ = nights.night_draw(night=night, by=signed_in(request), **data.validated_data)
        drawn = next(r for r in tables.night_rounds(night) if r.number == round_.number)
        return Response(NightRoundSerializer(drawn).data, status=201)

    @extend_schema(responses={200: NightRoundSerializer(many=True)})
    @action(detail=True, methods=["get"], pagination_class=None)
    def rounds(self, request: Request, pk: str) -> Response:
        """The night's seating draws: each table's players by name, its game and progress."""
        return Response(
            NightRoundSerializer(tables.night_rounds(self.get_object()), many=True).data
        )

    @extend_schema(responses={200: DeskSerializer})
    @action(detail=True, methods=["get"], pagination_class=None)
    def desk(self, request: Request, pk: str) -> Response:
        """The organiser's desk (organisers): counts, and every table of the round in play
        by state; the disputed ones each name the round to settle."""
        night = self.get_object()
        services.require_organiser(night.season.competition, signed_in(request))
        found = desk.night_desk(night)
        counts = {
            "playing": len(found.playing),
            "waiting": len(found.waiting),
            "disputed": len(found.disputed),
            "finished": len(found.finished),
        }
        body = {
            "checked_in": found.checked_in,
            "seated": found.seated,
            "rounds": found.rounds,
            "current": found.current,
            "tables": counts,
            "disputed": found.disputed,
        }
        return Response(DeskSerializer(body).data)

    @extend_schema(methods=["get"], responses={200: ClockSerializer, 204: None})
    @extend_schema(methods=["post"], request=ClockInputSerializer, responses={200: ClockSerializer})
    @action(detail=True, methods=["get", "post"], pagination_class=None)
    def clock(self, request: Request, pk: str) -> Response:
        """The round clock of the round in play (204 when none runs), or, organisers,
        ``start`` it (``minutes``, ``policy``), ``pause``, ``resume`` or ``extend`` it."""
        if request.method == "GET":
            found = clocks.night_clock(self.get_object())
            return Response(
                ClockSerializer(found).data if found else None, status=200 if found else 204
            )
        data = ClockInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        night = self.get_object()
        changed = clocks.clock_change(night=night, by=signed_in(request), **data.validated_data)
        return Response(ClockSerializer(changed).data)
