"""Leagues, seasons, nights, competitions (standings, exports, change logs), tournaments,
and score sheets of real-table games. Handlers parse, call one service, render."""

from __future__ import annotations

from typing import ClassVar

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import mixins
from rest_framework.decorators import action
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import User
from accounts.selectors import user_named
from bots.models import BotVersion
from cya_site.errors import DomainError
from cya_site.idempotency import IDEMPOTENCY_HEADER, idempotency_key, replay_status
from cya_site.renderers import CSVRenderer
from cya_site.viewsets import ApiViewSet
from games.engine import RuleSet
from games.models import Game
from tournaments import (
    exports,
    nights,
    recording,
    roster,
    rounds,
    running,
    selectors,
    services,
    tables,
)
from tournaments.api.serializers import (
    ChangeSerializer,
    CheckInInputSerializer,
    CheckInSerializer,
    CompetitionSerializer,
    CompetitorInputSerializer,
    CompetitorSerializer,
    CorrectionInputSerializer,
    DrawInputSerializer,
    GameRowSerializer,
    LeagueCreateInputSerializer,
    LeagueSerializer,
    MemberInputSerializer,
    MemberLinkInputSerializer,
    MemberSerializer,
    NightCreateInputSerializer,
    NightRoundSerializer,
    NightSerializer,
    OrganiserInputSerializer,
    RoundEntrySerializer,
    RoundInputSerializer,
    ScoreRecordSerializer,
    SeasonCreateInputSerializer,
    SeasonSerializer,
    StandingRowSerializer,
    StandingsQuerySerializer,
    TableInputSerializer,
    TournamentCreateInputSerializer,
    TournamentSerializer,
    VoteInputSerializer,
    WebhookCreatedSerializer,
    WebhookInputSerializer,
)
from tournaments.models import (
    CheckIn,
    Competition,
    Competitor,
    GameNight,
    League,
    Member,
    ScoreRecord,
    Season,
    Tournament,
)


def _user(request: Request) -> User:
    if not isinstance(request.user, User):
        raise NotAuthenticated
    return request.user


class StandingsCSV(CSVRenderer):
    header: ClassVar[list[str]] = [
        "rank", "name", "games", "points", "placement", "dsi", "rounds_won", "wins",
        "best_dsi", "dollars", "competitor",
    ]  # fmt: skip


class GamesCSV(CSVRenderer):
    header: ClassVar[list[str]] = [
        "game", "mode", "status", "night", "round", "table", "seat", "competitor", "place",
        "dollars",
    ]  # fmt: skip


class LeagueViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, ApiViewSet[League]):
    """Club leagues."""

    serializer_class = LeagueSerializer
    permission_classes = (IsAuthenticatedOrReadOnly,)
    queryset = League.objects.prefetch_related("organisers", "seasons").order_by("name")

    @extend_schema(request=LeagueCreateInputSerializer, responses={201: LeagueSerializer})
    def create(self, request: Request) -> Response:
        """A league; you organise it."""
        data = LeagueCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        rules = (v["rules"] or {}).get("rules") or RuleSet.preset("2021")
        league = services.league_create(
            by=_user(request),
            name=v["name"],
            slug=v["slug"],
            rules=rules,
            description=v["description"],
        )
        return Response(LeagueSerializer(self.get_queryset().get(pk=league.pk)).data, status=201)

    @extend_schema(request=OrganiserInputSerializer, responses={200: LeagueSerializer})
    @action(detail=True, methods=["post"])
    def organisers(self, request: Request, pk: str) -> Response:
        """Add an organiser."""
        data = OrganiserInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        league = self.get_object()
        user = user_named(data.validated_data["username"])
        assert user is not None
        services.league_organiser_add(league=league, by=_user(request), user=user)
        return Response(LeagueSerializer(self.get_queryset().get(pk=league.pk)).data)

    @extend_schema(methods=["get"], responses={200: MemberSerializer(many=True)})
    @extend_schema(
        methods=["post"], request=MemberInputSerializer, responses={201: MemberSerializer}
    )
    @action(detail=True, methods=["get", "post"], pagination_class=None)
    def members(self, request: Request, pk: str) -> Response:
        """The club's roster, or put a player on it (an account, or a guest by name)."""
        if request.method == "GET":
            rows = Member.objects.filter(league=self.get_object()).select_related("user")
            return Response(MemberSerializer(rows, many=True).data)
        data = MemberInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        league = self.get_object()
        member = roster.member_add(
            league=league,
            by=_user(request),
            name=data.validated_data["name"],
            user=user_named(data.validated_data["username"]),
        )
        return Response(MemberSerializer(member).data, status=201)

    @extend_schema(request=SeasonCreateInputSerializer, responses={201: SeasonSerializer})
    @action(detail=True, methods=["post"])
    def seasons(self, request: Request, pk: str) -> Response:
        """Start a season."""
        data = SeasonCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        season = services.season_create(
            league=self.get_object(), by=_user(request), **data.validated_data
        )
        return Response(SeasonSerializer(season).data, status=201)


class SeasonViewSet(mixins.RetrieveModelMixin, ApiViewSet[Season]):
    """Seasons: their competition holds the standings."""

    serializer_class = SeasonSerializer
    permission_classes = (IsAuthenticatedOrReadOnly,)
    queryset = Season.objects.select_related("competition").prefetch_related("nights")

    @extend_schema(request=NightCreateInputSerializer, responses={201: NightSerializer})
    @action(detail=True, methods=["post"])
    def nights(self, request: Request, pk: str) -> Response:
        """Add a game night."""
        data = NightCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        night = services.night_create(
            season=self.get_object(),
            by=_user(request),
            on=v["date"],
            venue=v["venue"],
            notes=v["notes"],
        )
        return Response(NightSerializer(night).data, status=201)


class MemberViewSet(mixins.RetrieveModelMixin, ApiViewSet[Member]):
    """A club roster's players."""

    serializer_class = MemberSerializer
    permission_classes = (IsAuthenticatedOrReadOnly,)
    queryset = Member.objects.select_related("user", "league")

    @extend_schema(request=MemberLinkInputSerializer, responses={200: MemberSerializer})
    @action(detail=True, methods=["post"])
    def link(self, request: Request, pk: str) -> Response:
        """Link a guest to an account: the guest's results everywhere become the account's."""
        data = MemberLinkInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = user_named(data.validated_data["username"])
        assert user is not None
        member = roster.member_link(member=self.get_object(), by=_user(request), user=user)
        return Response(MemberSerializer(member).data)


def _member(league_id: int, pk: int | str) -> Member:
    member = Member.objects.filter(league_id=league_id, pk=int(pk)).select_related("user").first()
    if member is None:
        raise DomainError(
            "not_on_roster", "That player is not on this club's roster.", {"member": pk}, 404
        )
    return member


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

    @extend_schema(request=TableInputSerializer, responses={201: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["post"])
    def games(self, request: Request, pk: str) -> Response:
        """Start a digital table: the players play it through the games API."""
        data = TableInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        night = self.get_object()
        competition = night.season.competition
        players = _competitors(competition, data.validated_data["competitors"])
        rules_in = data.validated_data["rules"]
        game = services.night_digital_game(
            night=night,
            by=_user(request),
            competitors=players,
            rules=rules_in["rules"] if rules_in else None,
        )
        return Response({"game": game.pk}, status=201)

    @extend_schema(request=TableInputSerializer, responses={201: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["post"])
    def recorded(self, request: Request, pk: str) -> Response:
        """Open a real-table game whose rounds the table records."""
        data = TableInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        night = self.get_object()
        competition = night.season.competition
        players = _competitors(competition, data.validated_data["competitors"])
        rules_in = data.validated_data["rules"]
        rules = rules_in["rules"] if rules_in else RuleSet.from_json(night.season.league.rules)
        game = recording.recorded_game_create(
            by=_user(request),
            competition=competition,
            competitors=players,
            rules=rules,
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
        member = _member(night.season.league_id, data.validated_data["member"])
        checkin = nights.night_check_in(night=night, by=_user(request), member=member)
        return Response(CheckInSerializer(checkin).data, status=201)

    @extend_schema(request=None, responses={204: None})
    @action(detail=True, methods=["delete"], url_path="checkins/<id:member>")
    def checkout(self, request: Request, pk: str, member: str) -> Response:
        """Undo a check-in (organisers, or oneself); tables already drawn keep the player."""
        night = self.get_object()
        nights.night_check_out(
            night=night, by=_user(request), member=_member(night.season.league_id, member)
        )
        return Response(status=204)

    @extend_schema(request=DrawInputSerializer, responses={201: NightRoundSerializer})
    @action(detail=True, methods=["post"])
    def draw(self, request: Request, pk: str) -> Response:
        """Seat the checked-in players for the next round: one recorded game a table."""
        data = DrawInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        night = self.get_object()
        round_ = nights.night_draw(night=night, by=_user(request), **data.validated_data)
        drawn = next(r for r in tables.night_rounds(night) if r.number == round_.number)
        return Response(NightRoundSerializer(drawn).data, status=201)

    @extend_schema(responses={200: NightRoundSerializer(many=True)})
    @action(detail=True, methods=["get"], pagination_class=None)
    def rounds(self, request: Request, pk: str) -> Response:
        """The night's seating draws: each table's players by name, its game and progress."""
        return Response(
            NightRoundSerializer(tables.night_rounds(self.get_object()), many=True).data
        )


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
            member = _member(league.pk if league else 0, v["member"])
        if hasattr(competition, "tournament"):
            competitor = running.entrant_add(
                tournament=competition.tournament,
                by=_user(request),
                name=v["name"],
                user=user,
                bot_version=version,
                member=member,
            )
        else:
            competitor = services.competitor_add(
                competition=competition,
                by=_user(request),
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
        """The standings, now or ``as_of`` a past moment; ``?format=csv`` for a spreadsheet."""
        query = self.query_valid()
        competition = self.get_object()
        as_of, night_id = query["as_of"], query["night"]
        night = None
        if night_id is not None:
            night = GameNight.objects.filter(pk=night_id, season__competition=competition).first()
            if night is None:
                raise DomainError(
                    "no_such_night", "This season has no such night.", {"night": night_id}, 404
                )
        rows = selectors.standings(competition, as_of=as_of, night=night)
        filename = exports.standings_filename(competition, as_of=as_of, night=night)
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

    @extend_schema(request=WebhookInputSerializer, responses={201: WebhookCreatedSerializer})
    @action(detail=True, methods=["post"])
    def webhooks(self, request: Request, pk: str) -> Response:
        """Subscribe a URL to signed result notifications (organisers)."""
        data = WebhookInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hook, secret = services.webhook_add(
            competition=self.get_object(), by=_user(request), **data.validated_data
        )
        return Response(
            WebhookCreatedSerializer({"id": hook.pk, "url": hook.url, "secret": secret}).data,
            status=201,
        )


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
            by=_user(request),
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
        record = recording.round_vote(record=record, by=_user(request), **data.validated_data)
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
            by=_user(request),
            **data.validated_data,
        )
        return Response(ScoreRecordSerializer(record).data, status=201)


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
        tournament = running.tournament_create(by=_user(request), rules=rules, league=league, **v)
        return Response(
            TournamentSerializer(self.get_queryset().get(pk=tournament.pk)).data, status=201
        )

    @extend_schema(request=None, responses={200: TournamentSerializer})
    @action(detail=True, methods=["post"])
    def start(self, request: Request, pk: str) -> Response:
        """Seat the first round and start its games (organisers)."""
        tournament = self.get_object()
        running.tournament_start(tournament=tournament, by=_user(request))
        return Response(TournamentSerializer(self.get_queryset().get(pk=tournament.pk)).data)

    @extend_schema(request=None, responses={200: TournamentSerializer})
    @action(detail=True, methods=["post"], url_path="rounds/<id:number>/advance")
    def advance(self, request: Request, pk: str, number: str) -> Response:
        """Close a finished round and seat the next (organisers; bot rounds do it themselves)."""
        tournament = self.get_object()
        services.require_organiser(tournament.competition, _user(request))
        rounds.round_advance(tournament=tournament, number=int(number))
        return Response(TournamentSerializer(self.get_queryset().get(pk=tournament.pk)).data)
