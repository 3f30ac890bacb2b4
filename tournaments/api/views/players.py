"""A player's profile and head-to-head: the API twin of ``/players/<name>/``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from cya_site.errors import DomainError
from cya_site.viewsets import ApiViewSet
from tournaments import players
from tournaments.api.serializers.players import (
    ClubGameSerializer,
    HeadToHeadQuerySerializer,
    HeadToHeadSerializer,
    OnlineGameSerializer,
    PlayerProfileSerializer,
)
from tournaments.models import Member
from tournaments.players import Player

NAME = OpenApiParameter("name", str, OpenApiParameter.PATH, description="A username, any case")


def _named(name: str) -> Player:
    """The player a path names: a name nobody has is no resource (404 ``not_found``)."""
    try:
        return players.player_named(name)
    except DomainError:
        raise NotFound from None


def profile(player: Player) -> dict[str, Any]:
    """Everything a player's page shows, as data."""
    return {
        "name": player.name,
        "guest": player.is_guest,
        "leagues": [m.league.name for m in player.members],
        "ratings": players.ratings(player),
        "stats": players.statistics(player).as_json(),
        "opponents": players.opponents(player),
        "online_games": players.online_games(player),
        "club_games": players.club_games(player),
    }


# The profile's latest 50 and every older page come from the same reads (tournaments.players).
def online_page(view: ApiViewSet[Member], player: Player) -> Response:
    """One page of the player's games online (people and bots, outside competitions)."""
    seats = players.online_seats(player)
    return view.page_response(seats, OnlineGameSerializer, shape=players.online_rows)


def club_page(view: ApiViewSet[Member], player: Player) -> Response:
    """One page of the player's games at clubs (nights and tournaments), newest first."""
    results = players.club_results(player)
    return view.page_response(results, ClubGameSerializer, shape=players.club_rows)


class PlayerViewSet(ApiViewSet[Member]):
    """Players by username (404 for a name nobody has): history, ratings with each change
    explained, statistics, and head-to-head. Public."""

    serializer_class = PlayerProfileSerializer
    permission_classes = (AllowAny,)
    lookup_field = "name"
    lookup_converter = "str"

    @extend_schema(parameters=[NAME], responses={200: PlayerProfileSerializer})
    def retrieve(self, request: Request, name: str) -> Response:
        """A player's profile: ratings (online and per league), statistics, games."""
        return Response(PlayerProfileSerializer(profile(_named(name))).data)

    @extend_schema(parameters=[NAME], responses={200: OnlineGameSerializer(many=True)})
    # Paginated: a player's games grow without bound; the profile lists the latest 50.
    @action(detail=True, methods=["get"], filter_backends=[], pages=True)
    def games(self, request: Request, name: str) -> Response:
        """The player's games online, newest first, a page at a time."""
        return online_page(self, _named(name))

    @extend_schema(parameters=[NAME], responses={200: ClubGameSerializer(many=True)})
    @action(detail=True, methods=["get"], url_path="club-games", filter_backends=[], pages=True)
    def club_games(self, request: Request, name: str) -> Response:
        """The player's club nights' and tournaments' games, newest first, a page at a time."""
        return club_page(self, _named(name))

    @extend_schema(
        parameters=[NAME, HeadToHeadQuerySerializer], responses={200: HeadToHeadSerializer}
    )
    @action(
        detail=True,
        methods=["get"],
        url_path="head-to-head",
        query_serializer=HeadToHeadQuerySerializer,
    )
    def head_to_head(self, request: Request, name: str) -> Response:
        """The player's record against ``vs``: games together, finished above, below, level."""
        query = self.query_valid()
        record = players.versus(_named(name), players.player_named(query["vs"]))
        return Response(HeadToHeadSerializer(record).data)
