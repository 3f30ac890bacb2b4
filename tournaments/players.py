"""Reads of a player's page and its API twin: who they are, their games online and at
clubs, their ratings with each change explained, statistics and head-to-head.

A player is an account (``/players/<name>/``: every roster entry linked to it counts) or
a roster guest, a ``Member`` with no account (only their recorded club games).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet
from django.shortcuts import get_object_or_404

from accounts.models import User
from accounts.selectors import user_named
from games.engine.cards import EDITIONS
from games.models import Event, Game, Seat
from tournaments import people_ratings
from tournaments.models import Member, PersonRating, Result
from tournaments.player_stats import Finish, Meeting, Stats, head_to_head, stats_of

RECENT = 50  # games listed on a page, newest first
LOGGED = 200  # digital games whose event logs the statistics read, newest first
CHANGES = 10  # explained rating changes listed per pool


@dataclass(frozen=True)
class Player:
    name: str
    user: User | None
    members: tuple[Member, ...]

    @property
    def is_guest(self) -> bool:
        return self.user is None


def player_named(name: str) -> Player:
    """The account with this username (any case), with its roster entries. Raises
    DomainError ``no_such_user``; a bot's account or a deleted one are players too."""
    user = user_named(name)
    assert user is not None
    members = Member.objects.filter(user=user).select_related("league").order_by("id")
    return Player(user.username, user, tuple(members))


def roster_guest(member_id: int) -> Player:
    """A roster entry with no account (404 otherwise: an account's page is its own)."""
    member = get_object_or_404(Member.objects.select_related("league"), pk=member_id)
    if member.user is not None:
        return player_named(member.user.username)
    return Player(member.name, None, (member,))


def _seats(player: Player) -> QuerySet[Seat]:
    if player.user is None:
        return Seat.objects.none()
    return Seat.objects.filter(user=player.user, game__in_competition=False).exclude(
        game__mode=Game.Mode.RECORDED
    )


def _results(player: Player) -> QuerySet[Result]:
    return Result.objects.filter(
        valid_to__isnull=True, competitor__member__in=[m.pk for m in player.members]
    )


def online_seats(player: Player) -> QuerySet[Seat]:
    """The player's seats outside competitions, newest game first: people and bots alike.
    The profile lists the first ``RECENT``; the paged lists page through the rest."""
    return _seats(player).select_related("game").order_by("-game__created_at", "-game_id")


def online_rows(seats: Iterable[Seat]) -> list[dict[str, Any]]:
    """Each seat's game as a row: when, the table, place, dollars, rounds won, opponents."""
    rows = list(seats)
    others = _names_at([s.game_id for s in rows])
    return [
        {
            "game": s.game_id,
            "status": s.game.status,
            "rated": s.game.rated,
            "at": s.game.finished_at or s.game.created_at,
            "table_size": s.game.seat_count,
            "place": s.place,
            "dollars": s.tally,
            "rounds_won": s.round_wins,
            "opponents": [n for seat, n in others.get(s.game_id, []) if seat != s.number],
        }
        for s in rows
    ]


def online_games(player: Player) -> list[dict[str, Any]]:
    """The player's latest ``RECENT`` games outside competitions, newest first."""
    return online_rows(online_seats(player)[:RECENT])


def _names_at(game_ids: list[int]) -> dict[int, list[tuple[int, str]]]:
    out: dict[int, list[tuple[int, str]]] = defaultdict(list)
    seats = Seat.objects.filter(game_id__in=game_ids, user__isnull=False).order_by("number")
    for game_id, number, name in seats.values_list("game_id", "number", "user__username"):
        out[game_id].append((number, name))
    return out


def club_results(player: Player) -> QuerySet[Result]:
    """The player's results at clubs (seasons' nights and tournaments), newest game first.
    The profile lists the first ``RECENT``; the paged lists page through the rest."""
    return (
        _results(player)
        .select_related("competition", "night", "game", "competitor__member__league")
        .order_by("-game__created_at", "-game_id")
    )


def club_rows(results: Iterable[Result]) -> list[dict[str, Any]]:
    """Each result as a row: the competition, league and night, place, dollars, rounds won.
    A recorded game has round scores, not an event log: these are all its figures."""
    return [
        {
            "game": r.game_id,
            "mode": r.game.mode,
            "competition": r.competition.name,
            "kind": r.competition.kind,
            "league": r.competitor.member.league.name if r.competitor.member else None,
            "night": r.night.date if r.night else None,
            "at": r.game.finished_at or r.game.created_at,
            "table_size": r.table_size,
            "place": r.place,
            "dollars": r.dollars,
            "rounds_won": r.rounds_won,
        }
        for r in results
    ]


def club_games(player: Player) -> list[dict[str, Any]]:
    """The player's latest ``RECENT`` games at clubs, newest first."""
    return club_rows(club_results(player)[:RECENT])


def statistics(player: Player) -> Stats:
    """Games, places, rounds and, from the event logs, steals, defences, stacks, assets."""
    finished = list(
        _seats(player)
        .filter(game__status=Game.Status.FINISHED, place__isnull=False)
        .order_by("-game__finished_at")
        .values_list("place", "game__seat_count", "tally", "round_wins")
    )
    finishes = [Finish(p or 0, n, t or 0, w or 0) for p, n, t, w in finished]
    club = _results(player).values_list("place", "table_size", "dollars", "rounds_won")
    finishes += [Finish(p, n, d, w) for p, n, d, w in club]
    logged = (
        Seat.objects.none()
        if player.user is None
        else Seat.objects.filter(
            user=player.user, game__status=Game.Status.FINISHED, game__mode=Game.Mode.DIGITAL
        )
    )  # competition games' logs too: their places are the club results above
    seat_of = dict(logged.order_by("-game__finished_at").values_list("game_id", "number")[:LOGGED])
    events = Event.objects.filter(game_id__in=list(seat_of)).order_by("game_id", "seq")
    logs: dict[int, list[Any]] = defaultdict(list)
    for game_id, public in events.values_list("game_id", "public_events").iterator():
        logs[game_id].append(public)
    return stats_of(finishes, ((seat_of[g], batches) for g, batches in logs.items()))


def ratings(player: Player) -> list[dict[str, Any]]:
    """The player's ratings: online (accounts), then each league's club rating, each with
    its history (for the chart) and its latest changes explained."""
    held: list[tuple[str, PersonRating]] = []
    if player.user is not None:
        pool = people_ratings.online_pool()
        online = PersonRating.objects.filter(pool=pool, user=player.user).first()
        if online is not None:
            held.append(("online", online))
    for member in player.members:
        league_pool = people_ratings.club_pool(member.league)  # by tournaments.rate_club
        club = (
            PersonRating.objects.filter(pool=league_pool, member=member).first()
            if league_pool is not None
            else None
        )
        if club is not None:
            held.append((member.league.name, club))
    return [_rating(label, r) for label, r in held]


def _rating(label: str, rating: PersonRating) -> dict[str, Any]:
    changes = list(rating.changes.order_by("number"))
    return {
        "pool": label,
        "rating": round(rating.conservative, 2),
        "mu": round(rating.mu, 3),
        "sigma": round(rating.sigma, 3),
        "games": rating.games,
        "provisional": people_ratings.rating_provisional(rating),
        "history": [round(c.mu_after - 3 * c.sigma_after, 2) for c in changes],
        "changes": [
            {
                "game": c.game_id,
                "at": c.played_at,
                "place": c.place,
                "table_size": c.table_size,
                "expected_place": round(c.expected_place, 2),
                "rating_before": round(c.mu_before - 3 * c.sigma_before, 2),
                "rating_after": round(c.mu_after - 3 * c.sigma_after, 2),
                "explanation": people_ratings.change_explained(c),
            }
            for c in reversed(changes[-CHANGES:])
        ],
    }


def _places(player: Player) -> dict[int, int]:
    """The player's place in every finished game: online and at clubs, by game."""
    seats = _seats(player).filter(game__status=Game.Status.FINISHED, place__isnull=False)
    places = {game: place or 0 for game, place in seats.values_list("game_id", "place")}
    places.update(_results(player).values_list("game_id", "place"))
    return places


def meetings(player: Player, other: Player) -> list[Meeting]:
    """Every finished game both played, oldest first."""
    mine, theirs = _places(player), _places(other)
    return [Meeting(g, mine[g], theirs[g]) for g in sorted(set(mine) & set(theirs))]


def versus(player: Player, other: Player) -> dict[str, Any]:
    """The head-to-head record of ``player`` against ``other``, with the games."""
    met = meetings(player, other)
    return {
        "opponent": other.name,
        **head_to_head(met),
        "meetings": [{"game": m.game, "place": m.mine, "their_place": m.theirs} for m in met],
    }


def opponents(player: Player, limit: int = 5) -> list[dict[str, Any]]:
    """The accounts the player met most often online and at clubs, with the record."""
    places = _places(player)
    if player.user is None or not places:
        return []
    seats = (
        Seat.objects.filter(game_id__in=list(places), place__isnull=False, user__isnull=False)
        .exclude(user=player.user)
        .values_list("game_id", "user__username", "place")
    )
    club = (
        Result.objects.filter(valid_to__isnull=True, game_id__in=list(places))
        .filter(Q(competitor__member__user__isnull=False))
        .exclude(competitor__member__user=player.user)
        .values_list("game_id", "competitor__member__user__username", "place")
    )
    met: dict[str, dict[int, Meeting]] = defaultdict(dict)
    for game, name, place in [*seats, *club]:
        met[name][game] = Meeting(game, places[game], place or 0)
    ranked = sorted(met.items(), key=lambda item: (-len(item[1]), item[0].lower()))
    return [
        {"opponent": name, **head_to_head(list(games.values()))} for name, games in ranked[:limit]
    ]


def asset_name(key: str | None) -> str:
    """An asset's printed name (the first edition that has the key), or the key."""
    for edition in EDITIONS.values():
        if key in edition.keys:
            return edition.card(key).name
    return key or ""
