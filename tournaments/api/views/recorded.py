"""Score sheets of real-table games: enter rounds, confirm or dispute, correct."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from cya_site.errors import DomainError
from cya_site.idempotency import IDEMPOTENCY_HEADER, idempotency_key, replay_status
from cya_site.viewsets import ApiViewSet
from games.models import Game
from tournaments import discipline, recording, selectors, services
from tournaments.api.serializers.inputs import (
    CorrectionInputSerializer,
    RoundInputSerializer,
    SubstituteInputSerializer,
    VoteInputSerializer,
)
from tournaments.api.serializers.outputs import (
    RoundEntrySerializer,
    ScoreRecordSerializer,
    SubstitutionSerializer,
)
from tournaments.api.views.lookups import roster_member, signed_in
from tournaments.models import GameEntry, ScoreRecord, Substitution


class RecordedGameViewSet(ApiViewSet[Game]):
    """The score sheet of a real-table game: enter rounds, confirm or dispute, correct."""

    permission_classes = (IsAuthenticatedOrReadOnly,)
    queryset = Game.objects.filter(mode=Game.Mode.RECORDED)
    serializer_class = ScoreRecordSerializer  # type: ignore[assignment]  # rows of its ledger

    @extend_schema(methods=["get"], responses={200: ScoreRecordSerializer(many=True)})
    @extend_schema(
        methods=["post"],
        request=RoundInputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: RoundEntrySerializer, 200: RoundEntrySerializer},
    )
    # The ledger is a plain array: one game's records, bounded by its rounds.
    @action(detail=True, methods=["get", "post"], pagination_class=None)
    def rounds(self, request: Request, pk: str) -> Response:
        """The whole ledger (every record, superseded ones too), or enter the next round."""
        if request.method == "GET":
            records = (
                ScoreRecord.objects.filter(game=self.get_object())
                .select_related("actor")
                .prefetch_related("votes__voter")
            )
            return Response(ScoreRecordSerializer(records, many=True).data)
        data = RoundInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        entry = recording.round_record(
            game=self.get_object(),
            by=signed_in(request),
            dollars=data.validated_data["dollars"],
            key=idempotency_key(request),
            number=data.validated_data["round"],
        )
        body = RoundEntrySerializer(entry.record, context={"replayed": entry.replayed})
        return Response(body.data, status=replay_status(entry.replayed))

    def _record(self, game: Game, number: str) -> ScoreRecord:
        # A removed round's record stays current too, beside the round entered after it.
        record = (
            ScoreRecord.objects.filter(
                game=game, round_number=int(number), superseded_by__isnull=True
            )
            .exclude(kind=ScoreRecord.Kind.VOID)
            .first()
        )
        if record is None:
            raise DomainError("no_such_round", "No such round in this game.", status=404)
        return record

    @extend_schema(request=VoteInputSerializer, responses={200: ScoreRecordSerializer})
    @action(detail=True, methods=["post"], url_path="rounds/<id:number>/votes")
    def votes(self, request: Request, pk: str, number: str) -> Response:
        """Confirm or dispute a round (seated players; an organiser settles it)."""
        data = VoteInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        record = self._record(self.get_object(), number)
        record = recording.round_vote(record=record, by=signed_in(request), **data.validated_data)
        return Response(ScoreRecordSerializer(record).data)

    @extend_schema(request=CorrectionInputSerializer, responses={201: ScoreRecordSerializer})
    @action(detail=True, methods=["post"], url_path="rounds/<id:number>/correction")
    def correction(self, request: Request, pk: str, number: str) -> Response:
        """Correct a round, or remove the last one (organisers; the reason is kept)."""
        data = CorrectionInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        record = recording.round_correct(
            game=self.get_object(),
            round_number=int(number),
            by=signed_in(request),
            **data.validated_data,
        )
        return Response(ScoreRecordSerializer(record).data, status=201)

    @extend_schema(methods=["get"], responses={200: SubstitutionSerializer(many=True)})
    @extend_schema(
        methods=["post"], request=SubstituteInputSerializer, responses={201: SubstitutionSerializer}
    )
    # A plain array: one game's substitutes, at most one a seat.
    @action(detail=True, methods=["get", "post"], pagination_class=None)
    def substitutes(self, request: Request, pk: str) -> Response:
        """The game's substitutes, or (organisers) seat one for a player who left, from the
        next round on; the absent player's game is scored by the league's policy."""
        if request.method == "GET":
            rows = Substitution.objects.filter(game=self.get_object()).select_related(
                "absent", "actor"
            )
            return Response(SubstitutionSerializer(rows, many=True).data)
        data = SubstituteInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        game = self.get_object()
        member = None
        entry = GameEntry.objects.filter(game=game).select_related("competition").first()
        if v["member"] is not None and entry is not None:
            # the organiser's question first: a stranger learns nothing of the roster
            services.require_organiser(entry.competition, signed_in(request))
            league = selectors.league_of(entry.competition)
            member = roster_member(league.pk if league else 0, v["member"])
        substitution = discipline.substitute_seat(
            game=game,
            by=signed_in(request),
            seat=v["seat"],
            reason=v["reason"],
            name=v["name"],
            member=member,
        )
        return Response(SubstitutionSerializer(substitution).data, status=201)
