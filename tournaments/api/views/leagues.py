"""Club leagues, their seasons and the members of their rosters."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import mixins
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.selectors import user_named
from cya_site.viewsets import ApiViewSet
from games.engine import RuleSet
from tournaments import players, roster, services
from tournaments.api.serializers.inputs import (
    LeagueCreateInputSerializer,
    LeagueSettingsInputSerializer,
    MemberInputSerializer,
    MemberLinkInputSerializer,
    NightCreateInputSerializer,
    OrganiserInputSerializer,
    SeasonCreateInputSerializer,
)
from tournaments.api.serializers.outputs import (
    LeagueSerializer,
    MemberSerializer,
    NightSerializer,
    SeasonSerializer,
)
from tournaments.api.serializers.players import (
    ClubGameSerializer,
    OnlineGameSerializer,
    PlayerProfileSerializer,
)
from tournaments.api.views.lookups import signed_in
from tournaments.api.views.players import club_page, online_page
from tournaments.api.views.players import profile as player_profile
from tournaments.models import League, Member, Season


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
            by=signed_in(request),
            name=v["name"],
            slug=v["slug"],
            rules=rules,
            description=v["description"],
            organiser_entries_settle=v["organiser_entries_settle"],
        )
        return Response(LeagueSerializer(self.get_queryset().get(pk=league.pk)).data, status=201)

    @extend_schema(request=LeagueSettingsInputSerializer, responses={200: LeagueSerializer})
    @action(detail=True, methods=["post"], url_path="settings")
    def change_settings(self, request: Request, pk: str) -> Response:
        """Change the league's settings (organisers): whether an organiser's entry counts
        at once."""
        data = LeagueSettingsInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        league = services.league_settings_change(
            league=self.get_object(), by=signed_in(request), **data.validated_data
        )
        return Response(LeagueSerializer(self.get_queryset().get(pk=league.pk)).data)

    @extend_schema(request=OrganiserInputSerializer, responses={200: LeagueSerializer})
    @action(detail=True, methods=["post"])
    def organisers(self, request: Request, pk: str) -> Response:
        """Add an organiser."""
        data = OrganiserInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        league = self.get_object()
        user = user_named(data.validated_data["username"])
        assert user is not None
        services.league_organiser_add(league=league, by=signed_in(request), user=user)
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
            by=signed_in(request),
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
            league=self.get_object(), by=signed_in(request), **data.validated_data
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
            by=signed_in(request),
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
        member = roster.member_link(member=self.get_object(), by=signed_in(request), user=user)
        return Response(MemberSerializer(member).data)

    @extend_schema(responses={200: PlayerProfileSerializer})
    @action(detail=True, methods=["get"])
    def profile(self, request: Request, pk: str) -> Response:
        """The roster entry's player profile: a guest's recorded club games, ratings and
        statistics; an entry linked to an account answers the account's profile."""
        player = players.roster_guest(self.get_object().pk)
        return Response(PlayerProfileSerializer(player_profile(player)).data)

    @extend_schema(responses={200: OnlineGameSerializer(many=True)})
    # Paginated: a player's games grow without bound; the profile lists the latest 50.
    @action(detail=True, methods=["get"], filter_backends=[], pages=True)
    def games(self, request: Request, pk: str) -> Response:
        """The roster entry's games online, newest first: none for a guest; an entry linked
        to an account answers the account's."""
        return online_page(self, players.roster_guest(self.get_object().pk))

    @extend_schema(responses={200: ClubGameSerializer(many=True)})
    @action(detail=True, methods=["get"], url_path="club-games", filter_backends=[], pages=True)
    def club_games(self, request: Request, pk: str) -> Response:
        """The roster entry's club games (its account's, if linked), newest first."""
        return club_page(self, players.roster_guest(self.get_object().pk))
