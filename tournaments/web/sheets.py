"""The phone score sheet of a real table: enter rounds, confirm or dispute, correct.

Thin over tournaments.recording (the same services, checks and wording as the API) and
tournaments.scoresheets.sheet (what the sheet shows). Every POST answers htmx (and the
page's offline queue, static/cya/sheet.js) with the sheet's body, and a plain browser
with a redirect back; a refusal comes back beside the field it is about, with what was
typed kept. The entry form carries an idempotency key and the round it is for, so a
double tap or a resend after a lost connection records the round once, and never as
another round.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from cya_site import routes as _routes  # noqa: F401 - registers the <id:...> converter
from cya_site.errors import DomainError
from cya_site.forms import PageForm
from games.models import Game
from tournaments import clocks, recording, scoresheets, selectors, tables
from tournaments.models import GameEntry, ScoreRecord, ScoreVote
from tournaments.web.pages import describe_rules, is_htmx, signed_in

POLL_SECONDS = 5
# A typed amount at or above this is read as dollars, below it as thousands: no deck is
# worth more than $1,387,000, so no amount in thousands reaches it (RULES.md 1.4).
DOLLARS_FROM = 10_000
SEAT_ERRORS = ("impossible_dollars", "dollars_above_deck", "negative_dollars", "not_enough_cards")


class RoundForm(PageForm):
    """A round's dollars by seat, typed in thousands (``300`` is $300,000)."""

    key = forms.CharField(max_length=100, required=False, widget=forms.HiddenInput)
    round = forms.IntegerField(
        min_value=1, max_value=1000, required=False, widget=forms.HiddenInput
    )

    def __init__(self, *args: Any, players: tuple[tables.Sitter, ...], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.players = players
        for p in players:
            self.fields[f"seat_{p.seat}"] = forms.CharField(
                label=p.name,
                max_length=12,
                widget=forms.TextInput(
                    attrs={
                        "inputmode": "numeric",
                        "autocomplete": "off",
                        "pattern": "[0-9,. $]*",
                        "class": "thousands",
                    }
                ),
                error_messages={
                    "required": gettext_lazy("Type this player's dollars (0 for none).")
                },
            )

    def seat_fields(self) -> list[forms.BoundField]:
        """The dollar fields, in seat order."""
        return [self[f"seat_{p.seat}"] for p in self.players]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for p in self.players:
            name = f"seat_{p.seat}"
            if name in data:
                try:
                    data[name] = _dollars(data[name])
                except ValueError:
                    self.add_error(
                        name, _("Type a whole number of thousands, e.g. 300 for $300,000.")
                    )
        return data

    def dollars(self) -> list[int]:
        """The dollars by seat."""
        return [self.cleaned_data[f"seat_{p.seat}"] for p in self.players]

    def refuse(self, error: DomainError, fields: Mapping[str, str] | None = None) -> None:
        """A service's refusal: beside the seat (or field) it names, else above the fields."""
        seat = error.details.get("seat")
        if error.code in SEAT_ERRORS and f"seat_{seat}" in self.fields:
            self.add_error(f"seat_{seat}", error.message)
        else:
            super().refuse(error, fields)


def _dollars(typed: str) -> int:
    """``300`` -> 300,000; ``300,000`` or ``$300000`` -> 300,000. ValueError otherwise."""
    digits = typed.replace("$", "").replace(",", "").replace(".", "").replace(" ", "")
    if not digits.isdigit():
        raise ValueError(typed)
    amount = int(digits)
    return amount if amount >= DOLLARS_FROM else amount * 1000


class VoteForm(PageForm):
    verdict = forms.ChoiceField(choices=ScoreVote.Verdict.choices)
    reason = forms.CharField(max_length=500, required=False)

    def __init__(self, *args: Any, number: int, **kwargs: Any) -> None:
        super().__init__(*args, prefix=f"v{number}", **kwargs)
        self.fields["reason"].label = _("What is wrong with round %(n)d?") % {"n": number}


class CorrectionForm(RoundForm):
    reason = forms.CharField(max_length=500)
    remove = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args: Any, number: int, **kwargs: Any) -> None:
        super().__init__(*args, prefix=f"c{number}", **kwargs)
        self.fields["reason"].label = _("Why round %(n)d changes") % {"n": number}

    def clean(self) -> dict[str, Any]:
        if self.data.get(self.add_prefix("remove")):
            for p in self.players:  # removing the round needs no dollars
                self.fields[f"seat_{p.seat}"].required = False
        return super().clean()


def _game(pk: int) -> Game:
    """A recorded game of some competition (only those have score sheets)."""
    recorded = Game.objects.filter(mode=Game.Mode.RECORDED, competition_entries__isnull=False)
    return get_object_or_404(recorded.distinct(), pk=pk)


def _entry_form(sheet: scoresheets.Sheet) -> RoundForm:
    return RoundForm(
        players=sheet.players,
        initial={"key": uuid.uuid4().hex, "round": len(sheet.rounds) + 1},
    )


def _context(
    request: HttpRequest,
    sheet: scoresheets.Sheet,
    *,
    entry: RoundForm | None = None,
    vote: tuple[int, VoteForm] | None = None,
    correction: tuple[int, CorrectionForm] | None = None,
) -> dict[str, Any]:
    user = request.user
    organiser = selectors.is_organiser(sheet.competition, user)
    seat = sheet.seat_of(user)
    place = (
        GameEntry.objects.filter(game=sheet.game)
        .select_related("night__season__league", "night_round", "round__tournament__competition")
        .first()
    )
    return {
        "sheet": sheet,
        "place": place,
        "organiser": organiser,
        "seat": seat,
        "may_enter": seat is not None or organiser,
        "may_vote": seat is not None or organiser,
        "entry": entry or _entry_form(sheet),
        "next_round": len(sheet.rounds) + 1,
        "next_round_text": str(len(sheet.rounds) + 1),
        "entry_state": _entry_state(sheet),
        "vote": vote,
        "correction": correction,
        "rules": describe_rules(sheet.game.rules),
        "poll": POLL_SECONDS,
        "corrections": [line for line in sheet.ledger if line.kind != ScoreRecord.Kind.ENTER],
        "last_round": sheet.rounds[-1].number if sheet.rounds else None,
        "waiting": {r.number: r.waiting_for(sheet.players) for r in sheet.rounds},
        "voted": {r.number for r in sheet.rounds if r.voted(user)},
        "corrections_forms": {
            r.number: correction[1]
            if correction and correction[0] == r.number
            else CorrectionForm(
                players=sheet.players,
                number=r.number,
                initial={f"seat_{i}": d // 1000 for i, d in enumerate(r.dollars)},
            )
            for r in sheet.rounds
        }
        if organiser
        else {},
        "vote_forms": {
            r.number: vote[1] if vote and vote[0] == r.number else VoteForm(number=r.number)
            for r in sheet.rounds
        },
    }


def _answer(request: HttpRequest, game: Game, *, status: int = 200, **forms_: Any) -> HttpResponse:
    """After a POST: htmx gets the sheet's body (with any refusal beside its field); a
    plain browser gets the page again on a refusal, or a redirect to it."""
    sheet = scoresheets.sheet(game)
    if is_htmx(request):
        return render(
            request,
            "tournaments/_sheet_body.html",
            _context(request, sheet, **forms_),
            status=status,
        )
    if status >= 400:
        return render(
            request, "tournaments/sheet.html", _context(request, sheet, **forms_), status=status
        )
    return redirect(reverse("sheet", args=[game.pk]))


@login_required
def sheet_page(request: HttpRequest, pk: int) -> HttpResponse:
    """A table's score sheet, for its players' phones."""
    sheet = scoresheets.sheet(_game(pk))
    context = _context(request, sheet)
    place = context["place"]
    if place is not None and place.night_round is not None:  # the round's clock, if it runs
        found = clocks.night_clock(place.night_round.night)
        mine = found is not None and found.round == place.night_round.number
        context.update(night=place.night_round.night, clock=found if mine else None, live=True)
    return render(request, "tournaments/sheet.html", context)


@login_required
def sheet_live(request: HttpRequest, pk: int) -> HttpResponse:
    """What changed since version ``v``: nothing (204: the page keeps what it has), or the
    sheet's state, and a fresh entry form when what it depends on changed."""
    sheet = scoresheets.sheet(_game(pk))
    if request.GET.get("v") == str(sheet.version):
        return HttpResponse(status=204)
    context = _context(request, sheet)
    context["refresh_entry"] = request.GET.get("entry") != _entry_state(sheet)
    return render(request, "tournaments/_sheet_state.html", context)


def _entry_state(sheet: scoresheets.Sheet) -> str:
    """What the entry form depends on: the next round, a dispute, the end. A poll that
    finds it changed sends a fresh form too."""
    return f"{len(sheet.rounds) + 1}{'d' if sheet.disputed else ''}{'e' if sheet.ended else ''}"


@require_POST
@login_required
def sheet_enter(request: HttpRequest, pk: int) -> HttpResponse:
    """Record the next round (a seated player or an organiser)."""
    game = _game(pk)
    players = scoresheets.sitters(game)  # the form's fields; the sheet is read after the write
    form = RoundForm(request.POST, players=players)
    if form.is_valid():
        try:
            recording.round_record(
                game=game,
                by=signed_in(request),
                dollars=form.dollars(),
                key=form.cleaned_data["key"] or "",
                number=form.cleaned_data["round"],
            )
        except DomainError as error:
            if error.code == "stale_round":  # the typed values stay, for the round now next
                form = _moved_on(request, players, error)
            form.refuse(error)
            return _answer(request, game, status=_status(error), entry=form)
        return _answer(request, game)
    return _answer(request, game, status=400, entry=form)


@require_POST
@login_required
def sheet_vote(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Confirm or dispute a round (players at the table; an organiser settles it)."""
    game = _game(pk)
    form = VoteForm(request.POST, number=number)
    record = _current(game, number)
    if form.is_valid():
        try:
            recording.round_vote(
                record=record,
                by=signed_in(request),
                verdict=form.cleaned_data["verdict"],
                reason=form.cleaned_data["reason"],
            )
        except DomainError as error:
            form.refuse(error, {"reason_required": "reason"})
            return _answer(request, game, status=_status(error), vote=(number, form))
        return _answer(request, game)
    return _answer(request, game, status=400, vote=(number, form))


@require_POST
@login_required
def sheet_correct(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Correct a round, or remove the last one (organisers, with a reason)."""
    game = _game(pk)
    form = CorrectionForm(request.POST, players=scoresheets.sitters(game), number=number)
    if form.is_valid():
        try:
            recording.round_correct(
                game=game,
                round_number=number,
                by=signed_in(request),
                dollars=None if form.cleaned_data["remove"] else form.dollars(),
                reason=form.cleaned_data["reason"],
            )
        except DomainError as error:
            form.refuse(error)
            return _answer(request, game, status=_status(error), correction=(number, form))
        return _answer(request, game)
    return _answer(request, game, status=400, correction=(number, form))


def _moved_on(
    request: HttpRequest, players: tuple[tables.Sitter, ...], error: DomainError
) -> RoundForm:
    """The entry again, now for the round that is next, under a fresh idempotency key."""
    data = request.POST.copy()
    data["round"] = str(error.details["next_round"])
    data["key"] = uuid.uuid4().hex
    form = RoundForm(data, players=players)
    form.is_valid()
    return form


def _current(game: Game, number: int) -> ScoreRecord:
    """The round's effective record (a removed round has none)."""
    return get_object_or_404(
        ScoreRecord.objects.exclude(kind=ScoreRecord.Kind.VOID),
        game=game,
        round_number=number,
        superseded_by__isnull=True,
    )


def _status(error: DomainError) -> int:
    return error.http_status if error.http_status in (403, 404, 409) else 400


urlpatterns = [
    path("sheets/<id:pk>/", sheet_page, name="sheet"),
    path("sheets/<id:pk>/live/", sheet_live, name="sheet-live"),
    path("sheets/<id:pk>/rounds/", sheet_enter, name="sheet-enter"),
    path("sheets/<id:pk>/rounds/<id:number>/vote/", sheet_vote, name="sheet-vote"),
    path("sheets/<id:pk>/rounds/<id:number>/correct/", sheet_correct, name="sheet-correct"),
]
