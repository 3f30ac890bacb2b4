"""The replay viewer: an ended game step by step, as any seat (or a spectator) saw it.

Drawn with the live game's table (games.web.context), so a replayed step looks like the
game did. A move list links every step, previous and next are links, and
``static/games/replay.js`` adds autoplay and keys, fetching the board at each step
(``replay_board``) and animating between steps as the live page does. The replay of a
game still in play is a page that says when it will be ready; no route here answers
Django's technical 404.
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path
from django.utils.translation import gettext as _

from cya_site import routes as _routes  # noqa: F401 - registers the <id:...> converter
from cya_site.forms import PageForm
from games import decision_logs, selectors
from games.models import Game
from games.web.context import ENDED, names, not_found, table_context

SPEEDS = ((2000, _("slow")), (1000, _("normal")), (400, _("fast")))


class ReplayForm(PageForm):
    """Which step of the replay, seen from which seat (empty: a spectator)."""

    step = forms.IntegerField(min_value=0, required=False)  # none: the deal
    seat = forms.TypedChoiceField(coerce=int, required=False, empty_value=None)

    def clean_step(self) -> int:
        step: int | None = self.cleaned_data.get("step")
        return step or 0

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


def replay_context(
    request: HttpRequest, game: Game, *, moves: bool = True
) -> tuple[dict[str, Any], int]:
    """The replay at the step and seat asked for (``?step=K&seat=S``), and its status:
    400 with the reason beside the field for a step or seat the game does not have.
    ``moves``: with the whole move list (the page), or only this step (its board)."""
    seat_names = names(game)
    data = request.GET if "step" in request.GET or "seat" in request.GET else None
    form = ReplayForm(data, game=game, names=seat_names, initial={"step": 0, "seat": ""})
    context: dict[str, Any] = {"game": game, "form": form, "steps": game.version, "speeds": SPEEDS}
    if data is not None and not form.is_valid():
        return context, 400
    step = form.cleaned_data["step"] if data is not None else 0
    seat = form.cleaned_data.get("seat") if data is not None else None
    view = selectors.replay_view(game, seat, step)
    context.update(table_context(game, view, seat, replayed=True))
    story = context["story"]
    entries = selectors.public_events(
        game, -1 if moves else step - 1, game.version + 1 if moves else 1
    )
    logs = decision_logs.shown(game.pk, request.user)  # the viewer's own bots' only
    steps = [
        {
            "step": e["seq"],
            "words": " ".join(story.sentence(ev) for ev in e["events"]),
            "log": _log_lines(logs, e["seq"], seat_names),
        }
        for e in entries
    ]
    context.update(
        step=step,
        previous=step - 1 if step > 0 else None,
        next=step + 1 if step < game.version else None,
        forkable=step in selectors.fork_steps(game),
        replay_seat=seat,
        seat_query="" if seat is None else f"&seat={seat}",
        move_list=steps if moves else [],
        step_events=next((s["words"] for s in steps if s["step"] == step), ""),
        step_log=_log_lines(logs, step, seat_names),
        log_downloads=logs.downloads,
        step_json=json.dumps(next((e["events"] for e in entries if e["seq"] == step), [])),
    )
    return context, 200


def _log_lines(logs: decision_logs.Shown, step: int, seat_names: list[str]) -> list[dict[str, Any]]:
    """The decision-log lines whose answer made ``step``'s move, ready to show."""
    return [
        {
            **line,
            "seat_name": seat_names[line["seat"]],
            "answer_json": "" if line["answer"] is None else json.dumps(line["answer"]),
        }
        for line in logs.by_step.get(step, ())
    ]


def _replayable(request: HttpRequest, pk: int) -> Game | HttpResponse:
    """An ended game, or the page to show instead: not found, or not ready yet."""
    game = selectors.game_list().filter(mode=Game.Mode.DIGITAL, pk=pk).first()
    if game is None:
        return not_found(request, _("There is no game %(number)s.") % {"number": pk})
    if game.status not in ENDED or game.seed is None:
        return render(request, "games/replay_pending.html", {"game": game})
    return game


def replay_page(request: HttpRequest, pk: int) -> HttpResponse:
    """An ended game, step by step, as any seat (or a spectator) saw it."""
    game = _replayable(request, pk)
    if isinstance(game, HttpResponse):
        return game
    context, status = replay_context(request, game)
    return render(request, "games/replay.html", context, status=status)


def replay_board(request: HttpRequest, pk: int) -> HttpResponse:
    """The replay's board at one step (the viewer's script swaps it in)."""
    game = _replayable(request, pk)
    if isinstance(game, HttpResponse):
        return game
    context, status = replay_context(request, game, moves=False)
    return render(request, "games/_replay_board.html", context, status=status)


urlpatterns = [
    path("games/<id:pk>/replay/", replay_page, name="game-replay"),
    path("games/<id:pk>/replay/board/", replay_board, name="game-replay-board"),
]
