"""Round-robin and Swiss tournaments: create, start, advance a round."""

from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from cya_site.viewsets import ApiViewSet
from games.engine import RuleSet
from tournaments import rounds, running, services
from tournaments.api.serializers.inputs import TournamentCreateInputSerializer
from tournaments.api.serializers.outputs import TournamentSerializer
from tournaments.api.views.lookups import signed_in
from tournaments.models import League, Tournament


class TournamentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, ApiViewSet[Tournament]):
    """Round-robin and Swiss tournaments for people or bots; progress visible here."""

    serializer_class = TournamentSerializer
    permission_classes = (IsAuthenticatedOrReadOnly,)

    def get_queryset(self) -> QuerySet[Tournament]:
        # Ordered: the list is paginated, and pages of an unordered query may overlap.
        return (
            Tournament.objects.select_related("competition", "organiser")
            .prefetch_related("round_set")
            .order_by("-created_at", "-id")
        )

    @extend_schema(request=TournamentCreateInputSerializer, responses={201: TournamentSerializer})
    def create(self, request: Request) -> Response:
        """A tournament taking entrants."""
        data = TournamentCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = dict(data.validated_data)
        rules = (v.pop("rules") or {}).get("rules") or RuleSet.preset("2021")
        league_id = v.pop("league")
        league = get_object_or_404(League, pk=league_id) if league_id is not None else None
        tournament = running.tournament_create(
            by=signed_in(request), rules=rules, league=league, **v
        )
        return Response(
            TournamentSerializer(self.get_queryset().get(pk=tournament.pk)).data, status=201
        )

    @extend_schema(request=None, responses={200: TournamentSerializer})
    @action(detail=True, methods=["post"])
    def start(self, request: Request, pk: str) -> Response:
        """Seat the first round and start its games (organisers)."""
        tournament = self.get_object()
        running.tournament_start(tournament=tournament, by=signed_in(request))
        return Response(TournamentSerializer(self.get_queryset().get(pk=tournament.pk)).data)

    @extend_schema(request=None, responses={200: TournamentSerializer})
    @action(detail=True, methods=["post"], url_path="rounds/<id:number>/advance")
    def advance(self, request: Request, pk: str, number: str) -> Response:
        """Close a finished round and seat the next (organisers; bot rounds do it themselves)."""
        tournament = self.get_object()
        services.require_organiser(tournament.competition, signed_in(request))
        rounds.round_advance(tournament=tournament, number=int(number))
        return Response(TournamentSerializer(self.get_queryset().get(pk=tournament.pk)).data)
