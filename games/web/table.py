"""The game page: a seat plays at it, anyone watches it live, an invite link seats people.

Thin over the same selectors and services as the API (games.api.views): the page shows
``selectors.observation`` for the viewer's seat (a spectator's view for anyone else),
its controls are ``selectors.decision``'s legal actions, and a control posts to
``services.action_submit`` with the version it was decided at and an idempotency key.
So a stale tab is refused (``stale_version``: the board comes back as it now stands,
with a note) and a double tap is one action. htmx swaps the board in place; a plain
browser posts and is redirected back. ``static/games/table.js`` follows the game's
stream, refreshes the board (``board``) as each change arrives and animates it; the
board's cards are drawn from games.web.context.
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import User
from accounts.web.guests import guest_sign_in
from cya_site import routes as _routes  # noqa: F401 - registers the <id:...> converter
from cya_site.errors import DomainError
from cya_site.forms import PageForm
from games import selectors, services
from games.engine.errors import EngineError
from games.models import Event, Game
from games.web.context import board_context, not_found

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


def _game(pk: int) -> Game | None:
    """A digital game, with its seats and players (None for none)."""
    return selectors.game_list().filter(mode=Game.Mode.DIGITAL, pk=pk).first()


def _missing(request: HttpRequest, pk: int) -> HttpResponse:
    return not_found(request, _("There is no game %(number)s.") % {"number": pk})


def _answer(
    request: HttpRequest, game: Game, *, notice: str = "", status: int = 200
) -> HttpResponse:
    """After a POST: htmx gets the board, with any refusal above it; a plain browser the
    page again on a refusal, or a redirect back to it."""
    fresh = _game(game.pk) or game
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
    game = _game(pk)
    if game is None:
        return _missing(request, pk)
    return render(request, "games/game.html", board_context(request, game))


def game_board(request: HttpRequest, pk: int) -> HttpResponse:
    """The board alone, as it stands now for the viewer (the live script swaps it in)."""
    game = _game(pk)
    if game is None:
        return _missing(request, pk)
    return render(request, "games/_board.html", board_context(request, game))


@require_POST
@login_required
def game_act(request: HttpRequest, pk: int) -> HttpResponse:
    """Answer the seat's decision with one of its legal actions."""
    game = _game(pk)
    if game is None:
        return _missing(request, pk)
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
    if game is None:
        return _missing(request, pk)
    try:
        services.game_resign(game=game, user=_user(request))
    except DomainError as error:
        return _answer(request, game, notice=error.message, status=error.http_status)
    return _answer(request, game, notice=_("You resigned."))


@require_POST
def game_join(request: HttpRequest, pk: int) -> HttpResponse:
    """Take the lowest free seat at an open table (an invite link's button): a signed-out
    visitor who asks to play as a guest is signed in as one first."""
    if not request.user.is_authenticated and "guest" not in request.POST:
        return redirect_to_login(reverse("game", args=[pk]))
    return _lobby(request, pk, "join")


@require_POST
@login_required
def game_start(request: HttpRequest, pk: int) -> HttpResponse:
    """Deal the first round (the table's creator, once every seat is taken)."""
    return _lobby(request, pk, "start")


def _lobby(request: HttpRequest, pk: int, what: str) -> HttpResponse:
    game = _game(pk)
    if game is None:
        return _missing(request, pk)
    try:
        if what == "join":
            services.game_join(game=game, user=guest_sign_in(request))
        else:
            services.game_start(game=game, by=_user(request))
    except DomainError as error:
        messages.error(request, error.message)
    return redirect(reverse("game", args=[game.pk]))


def _user(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)  # login_required
    return user


urlpatterns = [
    path("games/<id:pk>/", game_page, name="game"),
    path("games/<id:pk>/board/", game_board, name="game-board"),
    path("games/<id:pk>/act/", game_act, name="game-act"),
    path("games/<id:pk>/resign/", game_resign, name="game-resign"),
    path("games/<id:pk>/join/", game_join, name="game-join"),
    path("games/<id:pk>/start/", game_start, name="game-start"),
]
