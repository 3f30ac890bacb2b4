"""What a tournament's page reads: its rounds' seatings by name, the seating's quality
figures in words, the tables a round still waits for, the standings' top.

A round robin's rounds are all planned at the start: a round not yet open has its plan
(competitor numbers) and no games, so its tables are shown from the plan, by name. A
bounded number of queries, whatever the number of rounds and tables.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from django.db.models.functions import Lower
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tournaments import ranking, seating, selectors
from tournaments.models import Competitor, Tournament, TournamentRound
from tournaments.tables import Sitter, Table, tournament_rounds
from tournaments.web.forms import TIEBREAK_NAMES
from tournaments.web.pages import describe_rules

PLANNED = "planned"  # a table of a round not open yet: no game, no score sheet
STATUS = {
    Tournament.Status.DRAFT: gettext_lazy("Taking entrants: not started yet"),
    Tournament.Status.RUNNING: gettext_lazy("Running"),
    Tournament.Status.FINISHED: gettext_lazy("Finished"),
}
FORMAT = {
    Tournament.Format.ROUND_ROBIN: gettext_lazy(
        "Round robin: every round was planned at the start, so that everyone meets as "
        "evenly as possible."
    ),
    Tournament.Format.SWISS: gettext_lazy(
        "Swiss: each round is seated from the standings, players with similar results "
        "together, avoiding rematches where possible."
    ),
}
PLAY = {
    Tournament.Play.RECORDED: gettext_lazy(
        "At real tables: each table records its rounds on its phone score sheet."
    ),
    Tournament.Play.DIGITAL: gettext_lazy("On the platform: every player has an account."),
}


@dataclass(frozen=True)
class RoundView:
    """A round as the page shows it: its tables by name and its seating figures."""

    number: int
    status: str
    tables: tuple[Table, ...]
    quality: dict[str, int]  # of the schedule up to and including this round
    consecutive: int  # pairs at this round's tables who sat together the round before

    @property
    def waiting(self) -> tuple[Table, ...]:
        """The tables still keeping the round open: playing, disputed, or unconfirmed."""
        return tuple(t for t in self.tables if not t.settled)


@dataclass(frozen=True)
class Figure:
    """One seating figure, with what it means."""

    label: str
    value: int
    meaning: str


def page_context(tournament: Tournament, user: object) -> dict[str, Any]:
    """Everything the tournament's page shows."""
    competition = tournament.competition
    competitors = list(competition.competitors.order_by(Lower("name")))
    rounds = list(TournamentRound.objects.filter(tournament=tournament).order_by("number"))
    views = _rounds(rounds, competitors)
    current = next((r for r in views if r.status == TournamentRound.Status.PLAYING), None)
    started = competition.changes.filter(action="tournament_started").select_related("actor")
    start = started.first()
    return {
        "tournament": tournament,
        "competition": competition,
        "league": tournament.league,
        "organiser": selectors.is_organiser(competition, user),
        "status": STATUS[Tournament.Status(tournament.status)],
        "format": FORMAT[Tournament.Format(tournament.format)],
        "play": PLAY[Tournament.Play(tournament.play)],
        # A digital table has no page of its own yet: names and status only.
        "nolink": tournament.play != Tournament.Play.RECORDED,
        "entrants": competitors,
        "draft_tables": _draft_tables(tournament, len(competitors)),
        "rules": describe_rules(tournament.rules),
        "tiebreaks": [TIEBREAK_NAMES[c] for c in competition.tiebreaks or ranking.DEFAULT_ORDER],
        "rounds": views,
        "current": current,
        "started": start,
        "figures": _figures(_whole(tournament, views, start)),
        "top": selectors.standings(competition)[:10] if rounds else [],
    }


def _rounds(rounds: list[TournamentRound], competitors: list[Competitor]) -> list[RoundView]:
    opened = tournament_rounds(rounds)
    by_number = {c.number: c for c in competitors}
    plans: list[list[list[int]]] = []
    views: list[RoundView] = []
    for r in rounds:
        plans.append(r.plan)
        # Rounds seated before each round stored its figures: computed from the plans.
        quality = r.quality or asdict(seating.quality(plans))
        before = views[-1].quality.get("consecutive_repeats", 0) if views else 0
        views.append(
            RoundView(
                number=r.number,
                status=r.status,
                tables=opened.get(r.pk) or _planned(r.plan, by_number),
                quality=quality,
                consecutive=quality.get("consecutive_repeats", 0) - before,
            )
        )
    return views


def _planned(plan: list[list[int]], by_number: dict[int, Competitor]) -> tuple[Table, ...]:
    """A planned round's tables, by name in seat order: no game yet."""
    return tuple(
        Table(
            number=index,
            game=0,
            status=PLANNED,
            players=tuple(
                Sitter(seat, by_number[n].name, by_number[n].pk, by_number[n].user_id)
                for seat, n in enumerate(table)
            ),
            rounds_recorded=0,
            waiting=0,
            disputed=False,
            winners=(),
        )
        for index, table in enumerate(plan)
    )


def _draft_tables(tournament: Tournament, n: int) -> list[int] | None:
    """The table sizes the start would seat the entrants at; None if it cannot."""
    if tournament.status != Tournament.Status.DRAFT:
        return None
    try:
        return seating.table_sizes(n, tournament.table_sizes, tournament.preferred_size)
    except ValueError:
        return None


def _whole(tournament: Tournament, views: list[RoundView], start: Any) -> dict[str, int]:
    """A round robin's whole schedule (recorded when it started); a Swiss tournament's
    rounds so far."""
    if tournament.format == Tournament.Format.ROUND_ROBIN and start is not None:
        return dict((start.after or {}).get("quality") or {})
    return views[-1].quality if views else {}


def _figures(quality: dict[str, int]) -> list[Figure]:
    if not quality:
        return []
    return [
        Figure(
            _("Most meetings of any pair"),
            quality["max_meetings"],
            _("The most rounds any two players share a table."),
        ),
        Figure(
            _("Pairs meeting more than once"),
            quality["repeated_pairs"],
            _("Pairs of players who share a table in more than one round."),
        ),
        Figure(
            _("Repeats in consecutive rounds"),
            quality["consecutive_repeats"],
            _(
                "Times two players who shared a table in one round share one again in the "
                "very next round: the seating avoids these most."
            ),
        ),
        Figure(
            _("Seat spread"),
            quality["seat_spread"],
            _(
                "Turn order matters: the largest difference between how often a player "
                "sits in their most-used and their least-used seat position. 0 or 1 is as "
                "even as it gets."
            ),
        ),
    ]


def unfinished_message(tournament: Tournament, number: int) -> str:
    """Why round ``number`` cannot advance yet, naming its tables still to finish."""
    round_ = TournamentRound.objects.get(tournament=tournament, number=number)
    waiting = []
    for table in tournament_rounds([round_]).get(round_.pk, ()):
        n = table.number + 1
        if table.disputed:
            waiting.append(_("table %(n)d has a disputed round") % {"n": n})
        elif table.ended and table.waiting:
            waiting.append(_("table %(n)d has ended but waits for confirmations") % {"n": n})
        elif not table.settled:
            waiting.append(_("table %(n)d is still playing") % {"n": n})
    return _("Round %(round)d cannot advance yet: %(tables)s.") % {
        "round": number,
        "tables": "; ".join(waiting) or _("its results are still being taken in"),
    }
