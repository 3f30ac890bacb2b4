"""The form that creates a tournament with its entrants: it parses; the service decides.

A club's tournament (``league``) ticks its entrants on the league's roster; any
tournament may also take guests typed by name and accounts typed by username. Field
names match the arguments of ``running.tournament_create``, so a refusal naming one
(``details.field``) lands beside its field.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.db.models.functions import Lower
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import User
from accounts.selectors import user_named
from cya_site.errors import DomainError
from cya_site.routes import parse_id
from games.engine import RuleSet
from games.web.rules import RulesForm
from tournaments.models import League, Member, Tournament
from tournaments.running import MAX_ROUNDS
from tournaments.web.forms import tiebreaks_field

SIZES = [(n, str(n)) for n in range(2, 7)]
FORMATS = (
    (
        Tournament.Format.ROUND_ROBIN,
        gettext_lazy("Round robin: every round is planned at the start, so everyone meets as "
                     "evenly as possible"),
    ),
    (
        Tournament.Format.SWISS,
        gettext_lazy("Swiss: each round seats players with similar standings together"),
    ),
)  # fmt: skip
PLAYS = (
    (
        Tournament.Play.RECORDED,
        gettext_lazy("At real tables: each table keeps its score sheet on a phone"),
    ),
    (Tournament.Play.DIGITAL, gettext_lazy("On the platform: every player needs an account")),
)
USERNAMES = re.compile(r"[\s,;]+")


class MemberChoice(forms.ModelMultipleChoiceField):  # type: ignore[type-arg]
    """Roster members by name; guests (no account) say so."""

    def clean(self, value: Any) -> Any:
        """Django's checks, after refusing a posted id no row can have: its query would
        fail to bind on SQLite (OverflowError) instead of finding nobody."""
        for pk in value or ():
            if str(pk).isdigit() and parse_id(str(pk)) is None:
                raise forms.ValidationError(
                    self.error_messages["invalid_choice"],
                    code="invalid_choice",
                    params={"value": pk},
                )
        return super().clean(value)

    def label_from_instance(self, obj: Any) -> str:
        if obj.user_id is None:
            return _("%(name)s (guest)") % {"name": obj.name}
        return str(obj.name)


class TournamentForm(RulesForm):
    """Name, format, rounds, tables, how it is played, its entrants, rules and tie-breaks."""

    name = forms.CharField(label=gettext_lazy("Tournament name"), max_length=120)
    format = forms.ChoiceField(
        label=gettext_lazy("Format"),
        choices=FORMATS,
        initial=Tournament.Format.ROUND_ROBIN,
        widget=forms.RadioSelect,
    )
    play = forms.ChoiceField(
        label=gettext_lazy("Where the games are played"),
        choices=PLAYS,
        initial=Tournament.Play.RECORDED,
        widget=forms.RadioSelect,
    )
    rounds = forms.IntegerField(
        label=gettext_lazy("Rounds"), min_value=1, max_value=MAX_ROUNDS, initial=3
    )
    table_sizes = forms.TypedMultipleChoiceField(
        label=gettext_lazy("Table sizes allowed"),
        coerce=int,
        choices=SIZES,
        initial=[3, 4, 5],
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy("Players at a table; tick each size the tables may have."),
    )
    preferred_size = forms.TypedChoiceField(
        label=gettext_lazy("Preferred table size"),
        coerce=int,
        choices=SIZES,
        initial=4,
        help_text=gettext_lazy("As many tables of this size as the number of players allows."),
    )
    everyone = forms.BooleanField(label=gettext_lazy("Everyone on the roster"), required=False)
    members = MemberChoice(
        label=gettext_lazy("Players from the roster"),
        queryset=Member.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    names = forms.CharField(
        label=gettext_lazy("Guests, by name"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "autocapitalize": "words"}),
        help_text=gettext_lazy("One name a line: players without an account."),
    )
    users = forms.CharField(
        label=gettext_lazy("Players with an account, by username"),
        required=False,
        widget=forms.Textarea(
            attrs={
                "rows": 3,
                "autocapitalize": "none",
                "autocomplete": "off",
                "spellcheck": "false",
            }
        ),
        help_text=gettext_lazy("One username a line (or separated by commas)."),
    )
    tiebreaks = tiebreaks_field()

    def __init__(self, *args: Any, league: League | None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.league = league
        self.roster = Member.objects.none()
        if league is None:
            del self.fields["members"], self.fields["everyone"]
        else:
            self.roster = league.members.select_related("user").order_by(Lower("name"))
            members = self.fields["members"]
            assert isinstance(members, MemberChoice)
            members.queryset = self.roster
            self.fields["names"].label = gettext_lazy("Newcomers, by name")
            self.fields["names"].help_text = gettext_lazy(
                "One name a line: players not on the roster yet (they join it)."
            )
            self.fields["everyone"].help_text = gettext_lazy(
                "Enters the whole roster, whatever is ticked below."
            )

    def clean_names(self) -> list[str]:
        return [line.strip() for line in self.cleaned_data["names"].splitlines() if line.strip()]

    def clean_users(self) -> list[User]:
        found = []
        for username in USERNAMES.split(self.cleaned_data["users"]):
            if not username:
                continue
            try:
                user = user_named(username)
            except DomainError as error:
                raise forms.ValidationError(error.message) from None
            assert user is not None
            found.append(user)
        return found

    def clean(self) -> dict[str, Any]:
        """``members``, ``names`` and ``users`` as ``running.tournament_create`` takes
        them; "everyone" ticks the whole roster."""
        data = super().clean() or {}
        data["members"] = list(self.roster if data.get("everyone") else data.get("members", ()))
        if not (data["members"] or data.get("names") or data.get("users")) and not (
            self.has_error("names") or self.has_error("users")
        ):
            where = "members" if self.league is not None else "names"
            self.add_error(where, _("Choose the players: a tournament needs entrants."))
        return data


def rules_initial(rules: RuleSet) -> dict[str, Any]:
    """A rule set as the rules fields' initial values (a club's tournament starts from
    the league's rules)."""
    return {
        "preset": rules.edition,
        "ending": rules.ending,
        "ending_rounds": rules.ending_rounds,
        "target": rules.target,
        "tie_policy": rules.tie_policy,
        "penny_jar": rules.advanced.penny_jar,
        "action_cards": rules.advanced.action_cards,
        "swap": rules.advanced.swap,
        "move": rules.advanced.move,
    }
