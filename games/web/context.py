"""What a game's pages draw: the viewer's observation made into a table, moves, a duel,
a result. Shared by the live game (games.web.table) and the replay (games.web.replay),
so both draw the same table from the same partials.

A page gets exactly what its viewer may see: ``selectors.observation`` for the viewer's
seat (a spectator's view for anyone else), the viewer's own decision, and public events.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.utils.translation import gettext as _

from games import selectors
from games.models import Game, Seat
from games.web.board import SeatView, Table, display_name
from games.web.moves import moves
from games.web.story import Story

ENDED = (Game.Status.FINISHED, Game.Status.ABORTED)


def sprite(edition: str) -> str:
    """The URL of an edition's card sprite (games.web.cardart)."""
    return static(f"games/cards/{edition}.svg")


def names(game: Game) -> list[str]:
    """The players' names by seat (bots without their prefix)."""
    return [display_name(s.user.username if s.user else None) for s in game.seats.all()]


def viewer_seat(game: Game, user: Any) -> Seat | None:
    """The viewer's seat (from the prefetched seats), or None for a spectator."""
    number = selectors.seat_number(game, user)
    return None if number is None else game.seats.all()[number]


def not_found(request: HttpRequest, message: str) -> HttpResponse:
    """A page's own 404: what was not found, in words, and where to go instead (never
    Django's technical page, even under DEBUG)."""
    return render(request, "games/not_found.html", {"message": message}, status=404)


def table_context(
    game: Game, view: dict[str, Any], viewer: int | None, *, replayed: bool = False
) -> dict[str, Any]:
    """An observation drawn: seats (the viewer's own apart), piles, hand, duel, log.
    ``replayed``: a replay's step, seen by ``viewer``'s seat but not by its player (no
    "Your turn")."""
    table = Table(view["edition"], names(game))
    story = Story(table)
    seats = table.seats(view, bots=list(game.bot_seats), viewer=viewer)
    you = next((s for s in seats if s.you), None)
    return {
        "view": view,
        "table": table,
        "sprite": sprite(view["edition"]),
        "seats": seats,
        "others": _around(seats, viewer),
        "you": you,
        "hand": [table.card(k) for k in view["hand"]],
        "back": table.card(None),
        "discard_top": table.card(view["discard"][-1]) if view["discard"] else None,
        "piles": table.piles(view),
        "decision_words": table.decision_words(view, None if replayed else viewer),
        "duel": story.duel(view),
        "log": [story.sentence(e) for e in view["history"]],
        "story": story,
    }


def _around(seats: list[SeatView], viewer: int | None) -> list[SeatView]:
    """The other seats in turn order from the viewer's left (everyone for a spectator)."""
    if viewer is None:
        return seats
    return seats[viewer + 1 :] + seats[:viewer]


def board_context(
    request: HttpRequest, game: Game, *, notice: str = "", bad: bool = False
) -> dict[str, Any]:
    """What the live board shows the viewer: their seat's observation, never another's."""
    seat = viewer_seat(game, request.user)
    context: dict[str, Any] = {
        "game": game,
        "seat": seat,
        "notice": notice,
        "notice_bad": bad,
        "ended": game.status in ENDED,
        "invite": request.build_absolute_uri(f"/games/{game.pk}/"),
    }
    if game.seed is None:  # not started: no observation exists yet
        return context
    number = None if seat is None else seat.number
    view = selectors.observation(game, number)
    context.update(table_context(game, view, number))
    decision = None if seat is None else selectors.decision(game, seat)
    table: Table = context["table"]
    acting = (view.get("decision") or {}).get("seat")
    offered = (
        moves(table, decision["legal_actions"], decision["kind"], number)
        if decision and number is not None
        else []
    )
    context.update(
        decision=decision,
        moves=offered,
        targets={t for group in offered for m in group.moves for t in m.targets},
        yours=decision is not None,
        hint=_hint(decision["kind"]) if decision else "",
        thinking=table.seat(acting) if acting is not None and acting in game.bot_seats else "",
        key=uuid.uuid4().hex,  # one per rendering: a decision is answered once
        time_bank_seconds=None
        if seat is None or seat.time_bank_ms is None
        else seat.time_bank_ms // 1000,
        last_round=_last_round(context["story"], view),
    )
    if game.status == Game.Status.ABORTED:  # the engine's state still has a decision pending
        context.update(decision_words=_("The game was aborted."), duel=None, yours=False)
    elif game.status == Game.Status.FINISHED:
        context["result"] = context["story"].result(view, game.rules, _rounds(game))
        rematch = Game.objects.filter(rematch_of=game).first()
        context.update(
            rematch=rematch,
            rematch_seated=rematch is not None
            and rematch.seats.filter(user__pk=request.user.pk or 0).exists(),
        )
    return context


def _hint(kind: str) -> str:
    """What to tap first, for a kind of decision (shown while nothing is composed)."""
    hints = {
        "turn": _("Tap your cards, then the set or pile they go with."),
        "second_action": _("Tap your cards, then the set or pile they go with."),
        "defend": _("Tap a card that answers: the set's asset or a wild."),
        "counter": _("Tap a card that answers: the set's asset or a wild."),
        "draft_challenge": _("Tap a card to challenge the drafted set with."),
    }
    return hints.get(kind, "")


def _rounds(game: Game) -> list[list[dict[str, Any]]]:
    """Every round's public events, oldest first (one read of the log, at the end)."""
    rounds: list[list[dict[str, Any]]] = []
    for entry in selectors.public_events(game, -1, game.version + 1):
        for event in entry["events"]:
            if event["type"] == "round_start" or not rounds:
                rounds.append([])
            rounds[-1].append(event)
    return rounds


def _last_round(story: Story, view: dict[str, Any]) -> dict[str, Any] | None:
    """The round before this one, while the game goes on: its number, each seat's score
    and the tallies since (from the observation), for a one-line reminder."""
    scores = view["round_scores"]
    if view["over"] or not scores:
        return None
    last = scores[-1]
    best = max(last)
    table = story.table
    return {
        "round": len(scores),
        "winners": ", ".join(table.seat(n) for n, s in enumerate(last) if s == best),
        "best": best,
        "scores": [(table.seat(n), s) for n, s in enumerate(last)],
    }
