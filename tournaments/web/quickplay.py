"""Play a person now (``/play/quick/``): choose a table size, rules and whether bots may
fill in; the page waits (refreshing itself) and opens the table once one is found. Thin
over tournaments.quickplay, as the API's ``/api/v1/quick-pairing/``. Signed-in people
only, guests included."""

from __future__ import annotations

from datetime import timedelta

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from accounts.models import User
from cya_site.errors import DomainError
from cya_site.forms import PageForm
from games.engine.rules import PRESETS
from tournaments import quickplay
from tournaments.models import QueueTicket

FRESH = timedelta(minutes=1)  # a table found this recently opens when the page is visited
PRESET_NAMES = {"2021": _("2021 rules"), "2011": _("2011 rules"), "de2023": _("German 2023")}


class QuickPlayForm(PageForm):
    seats = forms.TypedChoiceField(
        label=_("Players at the table"),
        choices=[(n, str(n)) for n in quickplay.SEAT_CHOICES],
        coerce=int,
        initial=2,
    )
    preset = forms.ChoiceField(
        label=_("Rules"), choices=[(p, PRESET_NAMES.get(p, p)) for p in PRESETS], initial="2021"
    )
    bot_fill_after = forms.TypedChoiceField(
        label=_("If nobody comes"),
        choices=[("", _("keep waiting for people"))]
        + [
            (str(s), _("bots fill in after %(s)d seconds") % {"s": s})
            for s in quickplay.BOT_FILL_CHOICES
        ],
        coerce=int,
        empty_value=None,
        required=False,
    )


def _me(request: HttpRequest) -> User:
    assert isinstance(request.user, User)  # login_required ran
    return request.user


def _ticket(request: HttpRequest) -> QueueTicket | None:
    try:
        return quickplay.queue_ticket(user=_me(request))
    except DomainError:
        return None


@login_required
def quick_play(request: HttpRequest) -> HttpResponse:
    """The form, or the wait once joined; a found table opens at once."""
    form = QuickPlayForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            quickplay.queue_join(user=_me(request), **form.cleaned_data)
        except DomainError as error:
            if error.code != "already_queued":
                form.refuse(error)
                return render(request, "tournaments/quick_play.html", {"form": form}, status=400)
        return redirect(reverse("quick-play"))
    ticket = _ticket(request)
    if _just_seated(ticket):
        assert ticket is not None
        assert ticket.game_id is not None
        return _to_game(request, ticket.game_id)
    waiting = ticket if ticket is not None and ticket.status == "waiting" else None
    context = {"form": form, "ticket": waiting}
    polled = request.headers.get("HX-Request") == "true"
    template = "tournaments/_quick_wait.html" if polled else "tournaments/quick_play.html"
    return render(request, template, context, status=400 if form.errors else 200)


def _just_seated(ticket: QueueTicket | None) -> bool:
    """A table found in the last minute: visiting the page opens it."""
    if ticket is None or ticket.status != QueueTicket.Status.SEATED or not ticket.game_id:
        return False
    return ticket.ended_at is not None and timezone.now() - ticket.ended_at < FRESH


def _to_game(request: HttpRequest, game_id: int) -> HttpResponse:
    url = reverse("game", kwargs={"pk": game_id})
    if request.headers.get("HX-Request") == "true":
        response = HttpResponse()
        response["HX-Redirect"] = url
        return response
    return redirect(url)


@login_required
@require_POST
def quick_leave(request: HttpRequest) -> HttpResponse:
    """Leave the queue; a table found meanwhile opens instead."""
    try:
        quickplay.queue_leave(user=_me(request))
    except DomainError as error:
        game = error.details.get("game")
        if isinstance(game, int):
            return _to_game(request, game)
    return redirect(reverse("quick-play") + "?left=1")


urlpatterns = [
    path("play/quick/", quick_play, name="quick-play"),
    path("play/quick/leave/", quick_leave, name="quick-leave"),
]
