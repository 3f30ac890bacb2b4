"""Forms of the club pages: they parse what was typed; the services decide.

A service's refusal (a DomainError) is shown beside the field it names
(``cya_site.forms.PageForm.refuse``), with what was typed kept.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, cast

from django import forms
from django.utils import formats
from django.utils.translation import gettext_lazy as _

from cya_site.forms import PageForm
from games.web.rules import RulesForm
from tournaments import nights
from tournaments.clocks import MAX_MINUTES
from tournaments.models import RoundClock
from tournaments.ranking import CRITERIA
from tournaments.services import MAX_BEST_OF

TIEBREAK_NAMES = {
    "points": _("placement points"),
    "placement": _("average placement"),
    "dsi": _("dollar share"),
    "rounds_won": _("rounds won"),
    "wins": _("games won"),
    "head_to_head": _("head-to-head"),
    "sos": _("strength of schedule"),
    "best_dsi": _("best dollar share"),
}


def tiebreaks_field() -> forms.MultipleChoiceField:
    """The tie-break order a season or a tournament ranks by (empty: the default)."""
    return forms.MultipleChoiceField(
        label=_("Tie-breaks, in this order"),
        choices=[(c, TIEBREAK_NAMES[c]) for c in CRITERIA],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Leave all unticked for the default order."),
    )


class LeagueForm(RulesForm):
    error_fields: ClassVar[Mapping[str, str]] = {"slug_taken": "slug"}

    name = forms.CharField(label=_("Club or league name"), max_length=120)
    slug = forms.SlugField(
        label=_("Short name for its address"),
        max_length=60,
        help_text=_("Letters, digits and hyphens, e.g. tuesday-club."),
    )
    description = forms.CharField(
        label=_("Description"), required=False, widget=forms.Textarea(attrs={"rows": 3})
    )
    organiser_entries_settle = forms.BooleanField(
        label=_("An organiser's entry counts at once"),
        required=False,
        help_text=_(
            "Unticked, the table's players confirm what an organiser entered, as any entry; "
            "the organiser can still settle it."
        ),
    )

    field_order = ("name", "slug", "description", "organiser_entries_settle")


class LeagueSettingsForm(PageForm):
    organiser_entries_settle = LeagueForm.base_fields["organiser_entries_settle"]
    substitute_policy = forms.ChoiceField(
        label=_("A player who leaves, replaced by a substitute, is scored"),
        choices=[
            ("fixed", _("last at the table: no points, $0 (the substitute counts for nobody)")),
            ("seat", _("with the seat's result, as the substitute finishes it")),
        ],
        initial="fixed",
        required=False,
        widget=forms.RadioSelect,
    )

    def clean_substitute_policy(self) -> str | None:
        """None, when not sent: the setting stays as it is."""
        return self.cleaned_data.get("substitute_policy") or None


class SeasonForm(PageForm):
    name = forms.CharField(label=_("Season name"), max_length=120)
    starts_on = forms.DateField(
        label=_("Starts on"), widget=forms.DateInput(attrs={"type": "date"})
    )
    ends_on = forms.DateField(
        label=_("Ends on (optional)"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    best_of = forms.IntegerField(
        label=_("Count each player's best N nights (optional)"),
        min_value=1,
        max_value=MAX_BEST_OF,
        required=False,
    )
    tiebreaks = tiebreaks_field()


class NightForm(PageForm):
    date = forms.DateField(label=_("Date"), widget=forms.DateInput(attrs={"type": "date"}))
    venue = forms.CharField(label=_("Venue (optional)"), max_length=120, required=False)
    notes = forms.CharField(
        label=_("Notes (optional)"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )


class MemberForm(PageForm):
    error_fields: ClassVar[Mapping[str, str]] = {
        "name_taken": "name",
        "already_on_roster": "username",
        "no_such_user": "username",
    }

    name = forms.CharField(
        label=_("Name"),
        max_length=80,
        required=False,
        help_text=_("A guest's name; leave empty to use the account's username."),
    )
    username = forms.CharField(
        label=_("Account (optional)"),
        max_length=150,
        required=False,
        help_text=_("The player's username, if they have an account here."),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("name") and not data.get("username"):
            raise forms.ValidationError(_("Give a name, an account, or both."))
        return data


class LinkForm(PageForm):
    error_fields: ClassVar[Mapping[str, str]] = {
        "already_on_roster": "username",
        "already_entered": "username",
        "no_such_user": "username",
    }

    username = forms.CharField(label=_("Account"), max_length=150)


class DrawForm(PageForm):
    preferred_size = forms.TypedChoiceField(
        label=_("Tables of"),
        coerce=int,
        choices=[
            (4, _("4 (with tables of 5 or 3 where the count demands)")),
            (5, _("5 (with tables of 4 or 6 where the count demands)")),
            (3, _("3 (with tables of 4 or 2 where the count demands)")),
            (6, _("6 (with tables of 5 where the count demands)")),
        ],
        initial=4,
    )

    def table_sizes(self) -> tuple[int, ...]:
        """The table sizes the chosen preference allows."""
        return nights.sizes_around(self.cleaned_data["preferred_size"])


class DayField(forms.DateField):
    """A date that, refused, says what was typed: a date picker cannot show it again."""

    def to_python(self, value: Any) -> Any:
        try:
            return super().to_python(value)
        except forms.ValidationError:
            raise forms.ValidationError(
                _("“%(typed)s” is not a date: pick a day, or type one like 2026-03-04."),
                code="invalid",
                params={"typed": value},
            ) from None


class StandingsForm(PageForm):
    """The two clocks of a standings page: after which night (a season) or round (a
    tournament) by when games were played, and, for the audit trail, as recorded at the
    end of which day. Every field empty: everything played, as recorded now."""

    after_night = forms.TypedChoiceField(
        label=_("After the night of"),
        required=False,
        coerce=dt.date.fromisoformat,
        empty_value=None,
        help_text=_("The games played up to that night, whenever they were typed in."),
    )
    after_round = forms.TypedChoiceField(
        label=_("After round"), required=False, coerce=int, empty_value=None
    )
    as_of = DayField(
        label=_("As recorded at the end of"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text=_(
            "For the audit trail: the results as they were entered by the end of that "
            "day, before any later correction. Leave empty for now."
        ),
    )

    def __init__(
        self,
        data: Mapping[str, Any] | None,
        *,
        nights: Sequence[dt.date] = (),
        rounds: int = 0,
    ) -> None:
        super().__init__(data)
        if nights:
            everything = [("", _("Every night so far"))]
            days = [(d.isoformat(), formats.date_format(d, "DATE_FORMAT")) for d in nights]
            cast(forms.ChoiceField, self.fields["after_night"]).choices = [*everything, *days]
        else:
            del self.fields["after_night"]
        if rounds:
            numbers = [(str(n), str(n)) for n in range(1, rounds + 1)]
            choices = [("", _("Every round so far")), *numbers]
            cast(forms.ChoiceField, self.fields["after_round"]).choices = choices
        else:
            del self.fields["after_round"]

    def clock(self) -> dict[str, Any]:
        """The clock of play asked for: ``after_night`` and ``after_round``, or None."""
        # the fields that are valid still count when another one is refused
        data = self.cleaned_data if self.is_bound and self.errors is not None else {}
        return {
            "after_night": data.get("after_night"),
            "after_round": data.get("after_round"),
        }


class ClockForm(PageForm):
    """The organiser's round clock: its length and end policy when starting, the minutes
    to add when extending; the button pressed names the action."""

    action = forms.ChoiceField(
        choices=[(a, a) for a in ("start", "pause", "resume", "extend")],
        widget=forms.HiddenInput,
    )
    minutes = forms.IntegerField(
        label=_("Minutes"), min_value=1, max_value=MAX_MINUTES, required=False, initial=75
    )
    policy = forms.ChoiceField(
        label=_("At time"),
        choices=[
            (RoundClock.Policy.FINISH_ROUND, _("finish the round in play")),
            (RoundClock.Policy.STOP, _("stop at once")),
        ],
        initial=RoundClock.Policy.FINISH_ROUND,
        required=False,
        widget=forms.RadioSelect,
    )

    def clean_policy(self) -> str:
        return self.cleaned_data.get("policy") or RoundClock.Policy.FINISH_ROUND


class SubstituteForm(PageForm):
    """A substitute for a player who left a table of the round in play: the player (a
    table's seat), who takes the seat (a roster member or a guest's name), and why."""

    error_fields: ClassVar[Mapping[str, str]] = {
        "seat_substituted": "seat",
        "no_such_seat": "seat",
        "game_over": "seat",
        "substitute_at_table": "name",
        "name_required": "name",
    }

    seat = forms.ChoiceField(label=_("The player who left"))
    member = forms.TypedChoiceField(
        label=_("Substitute from the roster"), coerce=int, required=False, empty_value=None
    )
    name = forms.CharField(
        label=_("Or a guest's name"),
        max_length=80,
        required=False,
        help_text=_("The substitute's play counts for nobody's standings."),
    )
    reason = forms.CharField(label=_("Why (everyone reads it)"), max_length=500)

    def __init__(
        self,
        *args: Any,
        seats: Sequence[tuple[str, str]] = (),
        members: Sequence[tuple[int, str]] = (),
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("auto_id", "substitute_%s")  # beside the penalty form: ids apart
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["seat"]).choices = list(seats)
        cast(forms.ChoiceField, self.fields["member"]).choices = [("", "—"), *members]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("member") and not data.get("name") and "name" not in self.errors:
            self.add_error("name", _("Choose a roster member or type a guest's name."))
        return data

    def game_and_seat(self) -> tuple[int, int]:
        """The table's game and the seat (0-based) of the player who left."""
        game, seat = self.cleaned_data["seat"].split(":")
        return int(game), int(seat)


class PenaltyForm(PageForm):
    """Placement points or dollars off a player's standing, with a public reason."""

    error_fields: ClassVar[Mapping[str, str]] = {
        "invalid_amount": "amount",
        "not_a_competitor": "competitor",
        "reason_required": "reason",
    }

    competitor = forms.TypedChoiceField(label=_("Player"), coerce=int)
    kind = forms.ChoiceField(
        label=_("Taken off"),
        choices=[("points", _("placement points")), ("dollars", _("dollars"))],
        initial="points",
        widget=forms.RadioSelect,
    )
    amount = forms.FloatField(
        label=_("How much"),
        min_value=0,
        help_text=_("Points, e.g. 0.5; or whole dollars, e.g. 50000."),
    )
    reason = forms.CharField(label=_("Why (everyone reads it)"), max_length=500)

    def __init__(
        self, *args: Any, competitors: Sequence[tuple[int, str]] = (), **kwargs: Any
    ) -> None:
        kwargs.setdefault("auto_id", "penalty_%s")  # beside the substitute form: ids apart
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["competitor"]).choices = list(competitors)


class PenaltyWithdrawForm(PageForm):
    """Withdraw one of tonight's penalties, given by mistake, with a public reason."""

    error_fields: ClassVar[Mapping[str, str]] = {
        "reason_required": "reason",
        "already_withdrawn": "penalty",
    }

    penalty = forms.TypedChoiceField(label=_("Penalty"), coerce=int)
    reason = forms.CharField(label=_("Why (everyone reads it)"), max_length=500)

    def __init__(
        self, *args: Any, penalties: Sequence[tuple[int, str]] = (), **kwargs: Any
    ) -> None:
        kwargs.setdefault("auto_id", "withdraw_%s")  # beside the other forms: ids apart
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["penalty"]).choices = list(penalties)
