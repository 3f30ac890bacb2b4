"""The challenge pages: start one (your bot against chosen bots and built-ins, N deals,
the rules), and read one's results, a row per deal.

Thin over bots.challenges and bots.challenge_results, like ``POST /api/v1/challenges/``:
the same writer, the same refusals, each beside the field it is about (the day's limit
above the form, answered 429 with ``Retry-After``); every field error at once, with what
was chosen kept.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from bots import challenge_results, challenges, selectors
from bots.models import Bot, BotVersion, Challenge
from bots.web.figures import STRATEGY_NAMES, replay_path
from bots.web.play import TableForm
from cya_site.errors import DomainError
from games.engine import RuleSet
from games.web.rules import RulesForm

NONE = ""
RECENT_SHOWN = 10


def opponent_choices(versions: list[BotVersion]) -> list[tuple[Any, Any]]:
    """Nobody, a built-in strategy, or any ready version (yours too)."""
    builtin = [(f"strategy:{name}", label) for name, label in STRATEGY_NAMES.items()]
    ready = [
        (f"version:{v.pk}", f"{v.bot.name} v{v.number} ({v.bot.owner.username})")
        for v in versions
        if not v.bot.name.startswith("builtin-")
    ]
    choices: list[tuple[Any, Any]] = [(NONE, _("Nobody (no seat)")), (_("Built-in bots"), builtin)]
    if ready:
        choices.append((_("Bots with a ready version"), ready))
    return choices


class ChallengeForm(RulesForm):
    """A challenge: your bot, its opponents (a seat each), the deals, the rules."""

    error_fields: ClassVar[dict[str, str]] = {
        "no_ready_version": "bot",
        "permission_denied": "bot",
        "invalid_rules": "opponent_1",
    }
    switches = TableForm.switches
    # the lobby's advanced switches, as a table there offers them
    hand_six = TableForm.base_fields["hand_six"]
    two_actions = TableForm.base_fields["two_actions"]
    no_rechallenge_after_loss = TableForm.base_fields["no_rechallenge_after_loss"]
    improve_set = TableForm.base_fields["improve_set"]
    second_set_challenge = TableForm.base_fields["second_set_challenge"]

    bot = forms.ChoiceField(label=_("Your bot"), help_text=_("Its ready version plays."))
    deals = forms.IntegerField(
        label=_("Deals"),
        min_value=1,
        max_value=challenges.MAX_DEALS,
        initial=4,
        help_text=_(
            "Each deal is played once per rotation of the seats, the same cards each time."
        ),
    )

    def __init__(self, *args: Any, bots: list[Bot], versions: list[BotVersion], **kwargs: Any):
        super().__init__(*args, **kwargs)
        field = self.fields["bot"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [(str(b.pk), b.name) for b in bots]
        for n in range(1, challenges.MAX_OPPONENTS + 1):
            self.fields[f"opponent_{n}"] = forms.ChoiceField(
                label=_("Opponent %(n)s") % {"n": n},
                choices=opponent_choices(versions),
                required=False,
                initial="strategy:greedy" if n == 1 else NONE,
            )
        order = ["bot", *(f"opponent_{n}" for n in range(1, 6)), "deals", "preset"]
        self.order_fields(order)
        self.rule_set: RuleSet | None = None

    def opponents(self) -> list[tuple[str, challenges.Opponent]]:
        """The opponents chosen, each with the field it was chosen in."""
        chosen = []
        for n in range(1, challenges.MAX_OPPONENTS + 1):
            kind, _sep, value = (self.cleaned_data.get(f"opponent_{n}") or NONE).partition(":")
            if kind == "strategy":
                chosen.append((f"opponent_{n}", challenges.Opponent(strategy=value)))
            elif kind == "version":
                chosen.append((f"opponent_{n}", challenges.Opponent(version=int(value))))
        return chosen

    def clean(self) -> dict[str, Any]:
        """Every problem at once: no opponent, one chosen twice, rules the engine refuses."""
        data = super().clean() or self.cleaned_data
        chosen = self.opponents()
        if not chosen and not any(f"opponent_{n}" in self.errors for n in range(1, 6)):
            self.add_error("opponent_1", _("Choose at least one opponent."))
        seen: set[challenges.Opponent] = set()
        for name, opponent in chosen:
            if opponent in seen:
                self.add_error(name, _("Already chosen: each entrant plays once."))
            seen.add(opponent)
        rule_fields = [
            n for n in self.fields if n not in ("bot", "deals") and not n.startswith("opponent_")
        ]
        if chosen and all(name in data for name in rule_fields):
            self.rule_set = self.rules(seats=1 + len(chosen))
        return data

    def refuse_opponent(self, error: DomainError) -> None:
        """A refusal about one opponent beside its field; any other as ``refuse`` does."""
        index = error.details.get("opponent")
        if isinstance(index, int) and 0 <= index < len(self.opponents()):
            self.add_error(self.opponents()[index][0], error.message)
        elif error.http_status != 429:
            self.refuse(error)
        else:
            self.add_error(None, error.message)


def _user(request: HttpRequest) -> User:
    assert isinstance(request.user, User)  # login_required
    return request.user


@login_required
def challenge_new(request: HttpRequest) -> HttpResponse:
    """Start a challenge (``bots.challenges.challenge_create``), then see its results."""
    user = _user(request)
    bots = list(Bot.objects.filter(owner=user).order_by("name"))
    versions = list(
        selectors.seatable_versions().select_related("bot__owner").order_by("bot__name")
    )
    initial = _initial(request, bots)
    form = ChallengeForm(request.POST or None, bots=bots, versions=versions, initial=initial)
    refusal: DomainError | None = None
    if request.method == "POST" and form.is_valid() and form.rule_set is not None:
        try:
            challenge = challenges.challenge_create(
                by=user,
                bot=next(b for b in bots if str(b.pk) == form.cleaned_data["bot"]),
                opponents=[o for _, o in form.opponents()],
                deals=form.cleaned_data["deals"],
                rules=form.rule_set,
            )
        except DomainError as error:
            form.refuse_opponent(error)
            refusal = error
        else:
            return redirect("challenge", pk=challenge.pk)
    left, _wait = challenges.challenges_left(user, timezone.now())
    mine = challenge_results.challenges_with_deals(Challenge.objects.filter(by=user))
    context = {
        "form": form,
        "left": left,
        "bots": bots,
        "recent": [challenge_results.challenge_results(c) for c in mine[:RECENT_SHOWN]],
    }
    status = 400 if form.errors else 200
    if refusal is not None:
        status = refusal.http_status if refusal.http_status in (409, 429) else 400
    response = render(request, "bots/challenge_new.html", context, status=status)
    if refusal is not None and refusal.http_status == 429:
        response["Retry-After"] = str(refusal.details["wait_seconds"])
    return response


def _initial(request: HttpRequest, bots: list[Bot]) -> dict[str, str]:
    """``?bot=<name>`` chooses your bot, ``?opponent=<version id>`` the first opponent."""
    initial = {}
    named = request.GET.get("bot", "").lower()
    for bot in bots:
        if bot.name.lower() == named:
            initial["bot"] = str(bot.pk)
    opponent = request.GET.get("opponent", "")
    version = (
        BotVersion.objects.select_related("bot").filter(pk=int(opponent)).first()
        if opponent.isdigit() and len(opponent) < 19
        else None
    )
    if version is not None:  # the platform's built-ins are offered by their strategy
        builtin = version.bot.name.startswith("builtin-") and version.strategy
        initial["opponent_1"] = f"strategy:{builtin}" if builtin else f"version:{version.pk}"
    return initial


def challenge_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A challenge's results, for anyone: the standing, and a row per deal with each
    entrant's place and dollars and the deal's replays once played."""
    found = challenge_results.challenges_with_deals(Challenge.objects.filter(pk=pk)).first()
    if found is None:
        raise Http404
    results = challenge_results.challenge_results(found)
    deals = [
        {
            "row": deal,
            "replays": [(g.rotation + 1, replay_path(g.game_id)) for g in deal.games if g.finished],
        }
        for deal in results.deals
    ]
    context = {
        "results": results,
        "challenge": found,
        "deals": deals,
        "rules": RuleSet.from_json(found.rules),
        "switches_on": [name for name, on in found.rules.get("advanced", {}).items() if on is True],
    }
    return render(request, "bots/challenge.html", context)
