"""The lobby: open a table against bots (or people) with the rules you like, or join one.

Thin over games.services.game_create and game_join, with the bot seats of the API's
``POST /api/v1/games/`` (``bots``, games.seating): a table the lobby opens starts by
itself once its people's seats are taken, so one against bots only starts at once and
the person lands on its page playing.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.db.models import Prefetch, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from accounts.models import User
from accounts.web.guests import guest_sign_in
from bots import selectors
from bots.models import BotVersion, SeatControl
from bots.web.figures import STRATEGY_NAMES
from cya_site.errors import DomainError
from cya_site.forms import PageForm
from games import services as game_services
from games.models import Game, Seat
from games.seating import BotChoice
from games.web.context import not_found
from games.web.rules import RulesForm

PERSON = "person"
ME = "me"
MOST_SEATS = 6
# what each bot seat holds unless changed: a newcomer picks a table size and starts
DEFAULT_OPPONENTS = ("greedy", "shark", "random", "greedy", "shark")
OPEN_TABLES_SHOWN = 30


def opponent_field(
    seat: int, versions: list[BotVersion], *, firsts: tuple[str, ...], initial: str
) -> forms.ChoiceField:
    """Who plays ``seat``: you (ME in ``firsts``), a person who joins (PERSON in
    ``firsts``), a built-in strategy, or a validated bot."""
    builtin = [(f"strategy:{name}", label) for name, label in STRATEGY_NAMES.items()]
    ranked = [
        (f"version:{v.pk}", f"{v.bot.name} v{v.number} ({v.ordinal:.1f})")
        for v in versions
        if not v.bot.name.startswith("builtin-")
    ]
    words = {ME: _("You"), PERSON: _("A person (an open seat)")}
    choices: list[tuple[Any, Any]] = [(first, words[first]) for first in firsts]
    choices.append((_("Built-in bots"), builtin))
    if ranked:
        choices.append((_("Bots on the ladder"), ranked))
    return forms.ChoiceField(
        label=_("Seat %(seat)s") % {"seat": seat + 1},
        choices=choices,
        initial=initial,
        required=False,
    )


class TableForm(RulesForm):
    """A new table: its size, who sits where, every rule option, and the clock."""

    error_fields: ClassVar[dict[str, str]] = {"invalid_rules": "seats"}
    switches = (
        "penny_jar",
        "action_cards",
        "swap",
        "move",
        "hand_six",
        "two_actions",
        "no_rechallenge_after_loss",
        "improve_set",
        "second_set_challenge",
    )

    seats = forms.TypedChoiceField(
        label=_("Players at the table, you included"),
        choices=[(n, str(n)) for n in range(2, MOST_SEATS + 1)],
        coerce=int,
        initial=4,
        help_text=_("With 2 or 3 players, sets are drafted from piles (2021 and German rules)."),
    )
    hand_six = forms.BooleanField(label=_("Six cards in hand"), required=False)
    two_actions = forms.BooleanField(label=_("Two actions per turn"), required=False)
    no_rechallenge_after_loss = forms.BooleanField(
        label=_("A player who lost a challenge may not challenge back at once"),
        required=False,
        initial=True,
    )
    improve_set = forms.BooleanField(label=_("Improve your top set"), required=False)
    second_set_challenge = forms.BooleanField(
        label=_("Challenge the second set from the top"), required=False
    )
    decision_seconds = forms.IntegerField(
        label=_("Seconds per decision"),
        min_value=5,
        max_value=3600,
        required=False,
        help_text=_("Empty: untimed. When time runs out, the safest move is played for you."),
    )
    rated = forms.BooleanField(
        label=_("Rated"),
        required=False,
        help_text=_("The result moves the online rating of everyone seated, bots included."),
    )

    def __init__(self, *args: Any, versions: list[BotVersion], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["opponent_0"] = opponent_field(0, versions, firsts=(ME,), initial=ME)
        for seat in range(1, MOST_SEATS):
            initial = f"strategy:{DEFAULT_OPPONENTS[seat - 1]}"
            self.fields[f"opponent_{seat}"] = opponent_field(
                seat, versions, firsts=(PERSON,), initial=initial
            )
        order = ["seats", *(f"opponent_{n}" for n in range(MOST_SEATS)), "preset"]
        self.order_fields(order)

    def takes_seat(self) -> bool:
        """Whether you sit at the table (seat 1), or watch bots play it."""
        return (self.cleaned_data.get("opponent_0") or ME) == ME

    def opponents(self) -> list[BotChoice]:
        """The bot seats chosen, for the seats the table has."""
        return _bots(self, self.cleaned_data["seats"])

    def refuse_seat(self, error: DomainError) -> None:
        """A refusal about one bot seat beside its field; any other as ``refuse`` does."""
        _refuse_seat(self, error)


def _bots(form: PageForm, seats: int) -> list[BotChoice]:
    """The bots chosen in ``form``'s seat fields (``opponent_<n>``) of a table of ``seats``."""
    chosen = []
    for seat in range(seats):
        given = form.cleaned_data.get(f"opponent_{seat}") or PERSON
        kind, _sep, name = given.partition(":")
        if kind == "strategy":
            chosen.append(BotChoice(seat, strategy=name))
        elif kind == "version":
            chosen.append(BotChoice(seat, version=int(name)))
    return chosen


def _refuse_seat(form: PageForm, error: DomainError) -> None:
    """A refusal about one seat beside its field; any other as ``refuse`` does."""
    seat = error.details.get("seat")
    field = f"opponent_{seat}"
    if isinstance(seat, int) and field in form.fields:
        form.add_error(field, error.message)
    else:
        form.refuse(error)


def _user(request: HttpRequest) -> User | None:
    user = request.user
    return user if isinstance(user, User) else None


def lobby(request: HttpRequest) -> HttpResponse:
    """Open a table (signed in, or as a guest: a visitor becomes one), or join one; your
    tables in play."""
    user = _user(request)
    form = TableForm(request.POST or None, versions=_versions())
    if request.method == "POST" and form.is_valid():
        rules = form.rules(seats=form.cleaned_data["seats"])
        if rules is not None:
            try:
                user = guest_sign_in(request)
                game = game_services.game_create(
                    by=user,
                    rules=rules,
                    take_seat=form.takes_seat(),
                    bots=form.opponents(),
                    auto_start=True,
                    decision_seconds=form.cleaned_data["decision_seconds"],
                    rated=form.cleaned_data["rated"],
                )
            except DomainError as error:
                form.refuse_seat(error)
            else:
                return redirect("game", pk=game.pk)
    context = {"form": form, **_tables(user)}
    return render(request, "bots/play.html", context, status=400 if form.errors else 200)


def _versions() -> list[BotVersion]:
    return list(selectors.seatable_versions().order_by("bot__name", "-number"))


def _tables(user: User | None) -> dict[str, list[Game]]:
    """Open tables anyone may join, and the signed-in person's tables not ended."""
    seats = Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("number"))
    digital = Game.objects.filter(mode=Game.Mode.DIGITAL).prefetch_related(seats)
    waiting = digital.filter(status=Game.Status.OPEN, seats__user__isnull=True).distinct()
    mine: list[Game] = []
    if user is not None:
        playing = Q(status__in=(Game.Status.OPEN, Game.Status.ACTIVE), seats__user=user)
        mine = list(digital.filter(playing).order_by("-created_at")[:OPEN_TABLES_SHOWN])
        waiting = waiting.exclude(seats__user=user)
    return {"waiting": list(waiting.order_by("-created_at")[:OPEN_TABLES_SHOWN]), "mine": mine}


@require_POST
def join(request: HttpRequest, pk: int) -> HttpResponse:
    """Take the lowest free seat at an open table, then go to its page."""
    user = _user(request)
    if user is None:
        return redirect_to_login(request.get_full_path())
    game = Game.objects.filter(pk=pk, mode=Game.Mode.DIGITAL).first()
    if game is None:
        return not_found(request, _("There is no game %(number)s.") % {"number": pk})
    try:
        game_services.game_join(game=game, user=user)
    except DomainError as error:
        context = {
            "form": TableForm(versions=_versions()),
            "join_error": error.message,
            **_tables(user),
        }
        return render(request, "bots/play.html", context, status=error.http_status)
    return redirect("game", pk=game.pk)


@require_POST
def rematch(request: HttpRequest, pk: int) -> HttpResponse:
    """Rematch an ended game (games.services.game_rematch): its bots in their seats, you
    in yours, a new deal; go to it. A refusal goes back to the game with the reason."""
    user = _user(request)
    if user is None:
        return redirect_to_login(request.get_full_path())
    game = Game.objects.filter(pk=pk, mode=Game.Mode.DIGITAL).first()
    if game is None:
        return not_found(request, _("There is no game %(number)s.") % {"number": pk})
    try:
        again = game_services.game_rematch(game=game, by=user, bots=bot_choices(game))
    except DomainError as error:
        messages.error(request, error.message)
        return redirect("game", pk=game.pk)
    return redirect("game", pk=again.pk)


def bot_choices(game: Game) -> list[BotChoice]:
    """The bots that played ``game``, seat by seat, to seat them again."""
    played = SeatControl.objects.filter(seat__game=game).values_list("seat__number", "version_id")
    return [BotChoice(seat, version=version) for seat, version in sorted(played)]


# --- forking a finished game's position --------------------------------------------------


class ForkForm(PageForm):
    """Play on from a step of an ended game: the same cards or a re-deal, and who sits where."""

    error_fields: ClassVar[dict[str, str]] = {
        "no_such_step": "step",
        "step_game_over": "step",
        "replay_not_available": "step",
    }
    step = forms.IntegerField(label=_("From step"), min_value=0)
    cards = forms.ChoiceField(
        label=_("The cards"),
        choices=[
            ("same", _("The same cards: everyone's hand and the deck as they were")),
            ("redeal", _("Deal again everything no seat has seen (the deck and the hands)")),
        ],
        initial="same",
        widget=forms.RadioSelect,
    )

    def __init__(self, *args: Any, game: Game, you: int | None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        versions = _versions()
        builtins = {v.pk: v.strategy for v in versions if v.bot.name.startswith("builtin-")}
        played_by = dict(
            SeatControl.objects.filter(seat__game=game).values_list("seat__number", "version_id")
        )
        for seat in range(game.seat_count):
            version = played_by.get(seat)
            if seat == (you if you is not None else 0):
                initial = ME
            elif version in builtins:
                initial = f"strategy:{builtins[version]}"
            elif version is not None:
                initial = f"version:{version}"
            else:
                initial = PERSON
            self.fields[f"opponent_{seat}"] = opponent_field(
                seat, versions, firsts=(ME, PERSON), initial=initial
            )
        self.seat_count = game.seat_count

    def clean(self) -> dict[str, Any]:
        """At most one seat is yours."""
        data = super().clean() or {}
        mine = [n for n in range(self.seat_count) if data.get(f"opponent_{n}") == ME]
        for seat in mine[1:]:
            self.add_error(f"opponent_{seat}", _("You can take one seat only."))
        return data

    def your_seat(self) -> int | None:
        return next(
            (n for n in range(self.seat_count) if self.cleaned_data.get(f"opponent_{n}") == ME),
            None,
        )


def fork(request: HttpRequest, pk: int) -> HttpResponse:
    """Open a table that plays on from a step of an ended game (games.services.game_fork)."""
    user = _user(request)
    if user is None:
        return redirect_to_login(request.get_full_path())
    game = Game.objects.filter(pk=pk, mode=Game.Mode.DIGITAL).first()
    if game is None:
        return not_found(request, _("There is no game %(number)s.") % {"number": pk})
    you = game.seats.filter(user=user).values_list("number", flat=True).first()
    data = request.POST if request.method == "POST" else None
    form = ForkForm(data, game=game, you=you, initial={"step": request.GET.get("step", "0")})
    if data is not None and form.is_valid():
        seat = form.your_seat()
        try:
            forked = game_services.game_fork(
                game=game,
                step=form.cleaned_data["step"],
                redeal=form.cleaned_data["cards"] == "redeal",
                by=user,
                take_seat=seat is not None,
                seat=seat,
                bots=_bots(form, game.seat_count),
            )
        except DomainError as error:
            _refuse_seat(form, error)
        else:
            return redirect("game", pk=forked.pk)
    status = 400 if form.errors else 200
    return render(request, "bots/fork.html", {"form": form, "game": game}, status=status)
