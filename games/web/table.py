"""The game page: a seat plays at it, anyone watches it live, and an ended game replays.

Thin over the same selectors and services as the API (games.api.views): the page shows
``selectors.observation`` for the viewer's seat (a spectator's view for anyone else),
its controls are ``selectors.decision``'s legal actions, and a control posts to
``services.action_submit`` with the version it was decided at and an idempotency key.
So a stale tab is refused (``stale_version``: the board comes back as it now stands,
with a note) and a double tap is one action. htmx swaps the board in place; a plain
browser posts and is redirected back. ``static/games/table.js`` follows the game's
stream and refreshes the board (``board``) as each change arrives.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import User
from cya_site import routes as _routes  # noqa: F401 - registers the <id:...> converter
from cya_site.errors import DomainError
from cya_site.forms import PageForm
from games import selectors, services
from games.engine.errors import EngineError
from games.models import Event, Game, Seat
from games.web.board import Table, display_name

ENDED = (Game.Status.FINISHED, Game.Status.ABORTED)
Refusal = DomainError | EngineError


class ActForm(PageForm):
    """One control: the action's JSON, the version it answers, the idempotency key."""

    action = forms.CharField(max_length=2000)
    version = forms.IntegerField(min_value=0)
    key = forms.CharField(max_length=100, required=False)

    def clean_action(self) -> dict[str, Any]:
        try:
            action = json.loads(self.cleaned_data["action"])
        except ValueError:
            action = None
        if not isinstance(action, dict):
            raise ValidationError(_("This is not an action."), code="invalid")
        return action


def _game(pk: int) -> Game:
    """A digital game, with its seats and players (404 for none)."""
    return get_object_or_404(selectors.game_list().filter(mode=Game.Mode.DIGITAL), pk=pk)


def _seat(game: Game, user: Any) -> Seat | None:
    """The viewer's seat (from the prefetched seats), or None for a spectator."""
    number = selectors.seat_number(game, user)
    return None if number is None else game.seats.all()[number]


def _names(game: Game) -> list[str]:
    return [display_name(s.user.username if s.user else None) for s in game.seats.all()]


def board_context(
    request: HttpRequest, game: Game, *, notice: str = "", bad: bool = False
) -> dict[str, Any]:
    """What the board shows the viewer: their seat's observation, never another's."""
    seat = _seat(game, request.user)
    context: dict[str, Any] = {
        "game": game,
        "seat": seat,
        "notice": notice,
        "notice_bad": bad,
        "ended": game.status in ENDED,
    }
    if game.seed is None:  # not started: no observation exists yet
        return context
    number = None if seat is None else seat.number
    view = selectors.observation(game, number)
    table = Table(view["edition"], _names(game))
    decision = None if seat is None else selectors.decision(game, seat)
    context.update(
        _view_context(table, view, game, number),
        decision=decision,
        controls=table.controls(decision["legal_actions"], decision["kind"]) if decision else [],
        key=uuid.uuid4().hex,  # one per rendering: a decision is answered once
        time_bank_seconds=None
        if seat is None or seat.time_bank_ms is None
        else seat.time_bank_ms // 1000,
    )
    if game.status == Game.Status.ABORTED:  # the engine's state still has a decision pending
        context.update(decision_words=_("The game was aborted."), challenge_words="")
    return context


def _view_context(
    table: Table, view: dict[str, Any], game: Game, viewer: int | None
) -> dict[str, Any]:
    """An observation in words and names: the board's part of a live or replayed game."""
    return {
        "view": view,
        "seats": table.seats(view, bots=_bot_seats(game), viewer=viewer),
        "hand": [table.card(k) for k in view["hand"]],
        "discard_top": table.card(view["discard"][-1]) if view["discard"] else None,
        "piles": [
            {"number": i + 1, "count": p["count"], "top": table.card(p["top"])}
            for i, p in enumerate(view["draft_piles"])
        ],
        "decision_words": table.decision_words(view),
        "challenge_words": table.challenge_words(view),
        "log": [table.sentence(e) for e in view["history"]],
    }


def _bot_seats(game: Game) -> list[int]:
    """Seats played by bots the platform moves (they get a badge)."""
    return list(game.bot_seats)


def _answer(
    request: HttpRequest, game: Game, *, notice: str = "", status: int = 200
) -> HttpResponse:
    """After a POST: htmx gets the board, with any refusal above it; a plain browser the
    page again on a refusal, or a redirect back to it."""
    fresh = _game(game.pk)
    context = board_context(request, fresh, notice=notice, bad=status >= 400)
    if request.headers.get("HX-Request") == "true":
        return render(request, "games/_board.html", context, status=status)
    if status >= 400:
        return render(request, "games/game.html", context, status=status)
    return redirect(reverse("game", args=[game.pk]))


def _refusal(error: Refusal) -> tuple[str, int]:
    """A refusal's words and HTTP status; a stale version is said as what happened."""
    if error.code == "stale_version":
        return _(
            "The game moved on before your action arrived, so nothing was played: "
            "this is where it stands now."
        ), 409
    return error.message, error.http_status


def game_page(request: HttpRequest, pk: int) -> HttpResponse:
    """A game: a seat plays it, anyone watches it (signed in or not)."""
    return render(request, "games/game.html", board_context(request, _game(pk)))


def game_board(request: HttpRequest, pk: int) -> HttpResponse:
    """The board alone, as it stands now for the viewer (the live script swaps it in)."""
    return render(request, "games/_board.html", board_context(request, _game(pk)))


@require_POST
@login_required
def game_act(request: HttpRequest, pk: int) -> HttpResponse:
    """Answer the seat's decision with one of its legal actions."""
    game = _game(pk)
    form = ActForm(request.POST)
    if not form.is_valid():
        errors = " ".join(str(e) for field in form.errors.values() for e in field)
        return _answer(request, game, notice=errors, status=400)
    try:
        services.action_submit(
            game_id=game.pk,
            user=_user(request),
            action=form.cleaned_data["action"],
            version=form.cleaned_data["version"],
            key=form.cleaned_data["key"] or None,
            origin=Event.Origin.WEB,
        )
    except (DomainError, EngineError) as error:
        notice, status = _refusal(error)
        return _answer(request, game, notice=notice, status=status)
    return _answer(request, game)


@require_POST
@login_required
def game_resign(request: HttpRequest, pk: int) -> HttpResponse:
    """Resign: the seat plays safe defaults to the end and is ranked last."""
    game = _game(pk)
    try:
        services.game_resign(game=game, user=_user(request))
    except DomainError as error:
        return _answer(request, game, notice=error.message, status=error.http_status)
    return _answer(request, game, notice=_("You resigned."))


@require_POST
@login_required
def game_join(request: HttpRequest, pk: int) -> HttpResponse:
    """Take the lowest free seat at an open table."""
    return _lobby(request, pk, "join")


@require_POST
@login_required
def game_start(request: HttpRequest, pk: int) -> HttpResponse:
    """Deal the first round (the table's creator, once every seat is taken)."""
    return _lobby(request, pk, "start")


def _lobby(request: HttpRequest, pk: int, what: str) -> HttpResponse:
    game = _game(pk)
    try:
        if what == "join":
            services.game_join(game=game, user=_user(request))
        else:
            services.game_start(game=game, by=_user(request))
    except DomainError as error:
        messages.error(request, error.message)
    return redirect(reverse("game", args=[game.pk]))


def _user(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)  # login_required
    return user


# --- the replay viewer --------------------------------------------------------------------


class ReplayForm(PageForm):
    """Which step of the replay, seen from which seat (empty: a spectator)."""

    step = forms.IntegerField(min_value=0)
    seat = forms.TypedChoiceField(coerce=int, required=False, empty_value=None)

    def __init__(self, *args: Any, game: Game, names: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        step = self.fields["step"]
        assert isinstance(step, forms.IntegerField)
        step.max_value = game.version
        step.widget.attrs.update(max=game.version, min=0)
        step.validators.append(_at_most(game.version))
        step.label = _("Step")
        self.fields["seat"].label = _("Seen by")
        seat = self.fields["seat"]
        assert isinstance(seat, forms.TypedChoiceField)
        seat.choices = [("", _("a spectator")), *((str(n), name) for n, name in enumerate(names))]


def _at_most(last: int) -> Any:
    def check(value: int) -> None:
        if value > last:
            raise ValidationError(
                _("The game has %(steps)s steps: choose 0 to %(steps)s.") % {"steps": last},
                code="no_such_step",
            )

    return check


def _ended(pk: int) -> Game:
    """An ended game (404 for anything else: it has no replay yet)."""
    return get_object_or_404(
        selectors.game_list().filter(mode=Game.Mode.DIGITAL, status__in=ENDED, seed__isnull=False),
        pk=pk,
    )


def replay_context(request: HttpRequest, game: Game) -> tuple[dict[str, Any], int]:
    """The replay at the step and seat asked for (``?step=K&seat=S``), and its status:
    400 with the reason beside the field for a step or seat the game does not have."""
    names = _names(game)
    data = request.GET if "step" in request.GET or "seat" in request.GET else None
    form = ReplayForm(data, game=game, names=names, initial={"step": 0, "seat": ""})
    context: dict[str, Any] = {"game": game, "form": form, "steps": game.version}
    if data is not None and not form.is_valid():
        return context, 400
    step = form.cleaned_data["step"] if data is not None else 0
    seat = form.cleaned_data.get("seat") if data is not None else None
    view = selectors.replay_view(game, seat, step)
    table = Table(view["edition"], names)
    events = selectors.public_events(game, step - 1, 1)
    context.update(
        _view_context(table, view, game, seat),
        step=step,
        forkable=step in selectors.fork_steps(game),
        replay_seat=seat,
        step_events=[table.sentence(e) for entry in events for e in entry["events"]],
    )
    return context, 200


def replay_page(request: HttpRequest, pk: int) -> HttpResponse:
    """An ended game, step by step, as any seat (or a spectator) saw it."""
    context, status = replay_context(request, _ended(pk))
    return render(request, "games/replay.html", context, status=status)


def replay_board(request: HttpRequest, pk: int) -> HttpResponse:
    """The replay's board at one step (the viewer's script swaps it in)."""
    context, status = replay_context(request, _ended(pk))
    return render(request, "games/_replay_board.html", context, status=status)


urlpatterns = [
    path("games/<id:pk>/", game_page, name="game"),
    path("games/<id:pk>/board/", game_board, name="game-board"),
    path("games/<id:pk>/act/", game_act, name="game-act"),
    path("games/<id:pk>/resign/", game_resign, name="game-resign"),
    path("games/<id:pk>/join/", game_join, name="game-join"),
    path("games/<id:pk>/start/", game_start, name="game-start"),
    path("games/<id:pk>/replay/", replay_page, name="game-replay"),
    path("games/<id:pk>/replay/board/", replay_board, name="game-replay-board"),
]
