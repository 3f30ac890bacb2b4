"""``manage.py seed_demo``: the demo that gives every club page something to show, made
through the services (``make run`` runs it on every start).

Seeding takes seconds, so the module seeds once, runs it a second time, and reads what
the tests check before its transaction is rolled back (as tests/games/test_hidden_information.py).
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from io import StringIO
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.core.management import call_command
from django.db import transaction
from django.test import Client, override_settings
from django.utils import timezone
from pytest_django import DjangoDbBlocker

from accounts.models import User
from games.engine import RuleSet, ScoreError, recorded
from games.models import Game
from tournaments import results, selectors
from tournaments.management.commands.seed_demo import DEMO_PASSWORD, Club, club_night
from tournaments.models import ChangeLog, GameNight, League, ScoreRecord, Season, Tournament

SIGN_INS = ("olga", "alice", "demo-admin")


@dataclass
class Demo:
    """What the seeded demo held, read before its transaction was rolled back."""

    output: str
    second_output: str
    changed_by_second_run: dict[str, tuple[int, int]]
    signed_in: dict[str, bool]
    roster: int
    guests: int
    nights: dict[str, list[dict[str, Any]]]  # "past", "today", "later": one dict a night
    weekdays: set[int]  # of the season's nights
    after_first_night: list[int]  # games of each player who played it, after that night
    recorded_by_first_night: list[int]  # the same, as recorded by the end of that night's day
    recorded_before_first_night: list[int]  # as recorded the day before: nothing yet
    recorded_by_second_night: list[int]  # every game of both nights, as recorded by then
    cup: dict[str, Any]
    refused_rounds: list[tuple[int, int, str]]  # (game, round, code) the deck checks refuse
    current_statuses: set[str]
    corrections: list[tuple[str, list[int], list[int]]]  # (reason, before, after)
    superseded_disputes: int
    recorded_games: dict[str, int]  # status: games
    digital_games: dict[str, int]
    actions: set[str]


def seed() -> str:
    out = StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


def counts() -> dict[str, int]:
    return {m._meta.label: m._default_manager.count() for m in apps.get_models()}


def by_status(mode: str) -> dict[str, int]:
    statuses = Game.objects.filter(mode=mode).values_list("status", flat=True)
    return {s: list(statuses).count(s) for s in set(statuses)}


def night_facts(night: GameNight) -> dict[str, Any]:
    games = list(Game.objects.filter(competition_entries__night=night).distinct())
    rows = selectors.standings(night.season.competition, night=night)
    return {
        "players": night.checkins.count(),
        "draws": night.rounds.count(),
        "games": len(games),
        "counted": sum(results.counts(g) for g in games),
        "games_per_player": sorted({row["games"] for row in rows}),
        "standings_rows": len(rows),
    }


def recorded_games(season: Season, day: dt.date) -> list[int]:
    """Each player's games in the standings as recorded by the end of ``day``."""
    end = dt.datetime.combine(day, dt.time.max, tzinfo=timezone.get_current_timezone())
    rows = selectors.standings(season.competition, as_of=end)
    return [row["games"] for row in rows if row["games"]]


def read(output: str, second_output: str, changed: dict[str, tuple[int, int]]) -> Demo:
    league = League.objects.get(slug="tuesday")
    season = league.seasons.get(name="Autumn 2026")
    today = club_night(timezone.localdate())  # this week's club night
    nights: dict[str, list[dict[str, Any]]] = {"past": [], "today": [], "later": []}
    first = season.nights.order_by("date")[0]
    for night in season.nights.order_by("date"):
        when = "past" if night.date < today else "today" if night.date == today else "later"
        nights[when].append(night_facts(night))
    cup = Tournament.objects.get(competition__name="Autumn Cup")
    records = list(ScoreRecord.objects.select_related("game", "supersedes"))
    refused = []
    for record in records:
        try:
            recorded.check_round(RuleSet.from_json(record.game.rules), record.dollars)
        except ScoreError as error:
            refused.append((record.game_id, record.round_number, error.code))
    current = [r for r in records if not hasattr(r, "superseded_by")]
    signed_in = {}
    for name in SIGN_INS:  # through the sign-in page, as a person would (and the lockout sees)
        client = Client()
        client.post("/sign-in/", {"username": name, "password": DEMO_PASSWORD})
        signed_in[name] = "_auth_user_id" in client.session
    return Demo(
        output=output,
        second_output=second_output,
        changed_by_second_run=changed,
        signed_in=signed_in,
        roster=league.members.count(),
        guests=league.members.filter(user=None).count(),
        nights=nights,
        weekdays={n.date.weekday() for n in season.nights.all()},
        after_first_night=[
            row["games"]
            for row in selectors.standings(season.competition, after_night=first.date)
            if row["games"]
        ],
        recorded_by_first_night=recorded_games(season, first.date),
        recorded_before_first_night=recorded_games(season, first.date - dt.timedelta(days=1)),
        recorded_by_second_night=recorded_games(season, season.nights.order_by("date")[1].date),
        cup={
            "league": cup.league_id == league.pk,
            "format": cup.format,
            "play": cup.play,
            "status": cup.status,
            "rounds": list(cup.round_set.order_by("number").values_list("status", flat=True)),
            "from_roster": all(c.member_id for c in cup.competition.competitors.all()),
            "games_per_entrant": [row["games"] for row in selectors.standings(cup.competition)],
        },
        refused_rounds=refused,
        current_statuses={r.status for r in current},
        corrections=[
            (r.reason, r.supersedes.dollars, r.dollars)
            for r in records
            if r.kind == ScoreRecord.Kind.CORRECT and r.supersedes is not None
        ],
        superseded_disputes=sum(
            r.status == ScoreRecord.Status.DISPUTED and hasattr(r, "superseded_by") for r in records
        ),
        recorded_games=by_status(Game.Mode.RECORDED),
        digital_games=by_status(Game.Mode.DIGITAL),
        actions=set(ChangeLog.objects.values_list("action", flat=True)),
    )


@pytest.fixture(scope="module")
def demo(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Demo:
    """The demo seeded, then seeded again, in a transaction that is rolled back."""
    caches = {
        name: {**config, "KEY_PREFIX": f"demo-{uuid.uuid4().hex}"}
        for name, config in settings.CACHES.items()
    }
    with django_db_blocker.unblock(), override_settings(CACHES=caches), transaction.atomic():
        output = seed()
        before = counts()
        second_output = seed()
        after = counts()
        changed = {k: (before[k], after[k]) for k in before if before[k] != after[k]}
        demo = read(output, second_output, changed)
        transaction.set_rollback(True)
    return demo


def test_it_seeds_a_club_roster_with_accounts_and_guests(demo: Demo) -> None:
    assert 13 <= demo.roster <= 15
    assert demo.guests >= 3


def test_the_tuesday_club_meets_on_tuesdays(demo: Demo) -> None:
    assert demo.weekdays == {1}  # Monday is 0


def test_this_weeks_club_night_is_the_latest_tuesday() -> None:
    thursday, tuesday = dt.date(2026, 11, 26), dt.date(2026, 11, 24)
    assert club_night(thursday) == tuesday
    assert club_night(tuesday) == tuesday
    assert club_night(dt.date(2026, 11, 23)) == dt.date(2026, 11, 17)  # a Monday


def test_past_nights_standings_hold_their_games_under_their_own_dates(demo: Demo) -> None:
    assert demo.after_first_night == [2] * 12  # twelve came, each played both draws


def test_past_nights_results_are_recorded_at_their_nights_for_the_audit_clock(
    demo: Demo,
) -> None:
    assert demo.recorded_before_first_night == []
    assert demo.recorded_by_first_night == [2] * 12
    assert sum(demo.recorded_by_second_night) == 12 * 2 + 13 * 2


def test_it_seeds_two_played_nights_of_two_draws_every_game_counted(demo: Demo) -> None:
    assert [n["players"] for n in demo.nights["past"]] == [12, 13]
    for night in demo.nights["past"]:
        assert night["draws"] == 2
        assert night["games"] == night["counted"] == 6  # finished, every round confirmed
        assert night["standings_rows"] == night["players"]
        assert night["games_per_player"] == [2]


def test_it_seeds_tonight_with_players_checked_in_and_no_draw_and_next_week_empty(
    demo: Demo,
) -> None:
    assert demo.nights["today"] == [
        {"players": 13, "draws": 0, "games": 0, "counted": 0, "games_per_player": [],
         "standings_rows": 0}
    ]  # fmt: skip  # a night's standings rank who sat at a table, nobody yet
    assert [n["players"] for n in demo.nights["later"]] == [0]


def test_it_seeds_a_finished_round_robin_of_the_club_from_its_roster(demo: Demo) -> None:
    assert demo.cup == {
        "league": True,
        "format": "round_robin",
        "play": "recorded",
        "status": "finished",
        "rounds": ["finished"] * 3,
        "from_roster": True,
        "games_per_entrant": [3] * 8,
    }


def test_every_recorded_round_passes_the_deck_checks_and_every_game_counts(demo: Demo) -> None:
    assert demo.refused_rounds == []
    assert demo.current_statuses == {ScoreRecord.Status.CONFIRMED}
    assert demo.recorded_games == {Game.Status.FINISHED: 18}


def test_the_ledger_shows_a_corrected_typo_and_a_dispute_settled_by_a_correction(
    demo: Demo,
) -> None:
    assert len(demo.corrections) == 2
    assert all(reason and before != after for reason, before, after in demo.corrections)
    assert demo.superseded_disputes == 1
    assert {"round_corrected", "round_disputed", "round_confirmed", "seating_drawn",
            "tournament_finished"} <= demo.actions  # fmt: skip


def test_it_keeps_the_digital_games_finished_and_in_progress(demo: Demo) -> None:
    assert demo.digital_games == {Game.Status.FINISHED: 4, Game.Status.ACTIVE: 1}


def test_running_it_again_changes_nothing(demo: Demo) -> None:
    assert demo.changed_by_second_run == {}
    assert "already loaded" in demo.second_output


def test_the_printed_sign_ins_work(demo: Demo) -> None:
    assert "/leagues/tuesday/" in demo.output
    assert all(name in demo.output for name in SIGN_INS)
    assert demo.signed_in == dict.fromkeys(SIGN_INS, True)


def test_an_interrupted_club_leaves_nothing_so_the_next_run_seeds_it_whole(
    alice: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    # alice's account stands for a players part seeded earlier: only the club runs.
    def interrupted(self: Club, *args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(Club, "_night", interrupted)  # after the league and its roster

    with pytest.raises(KeyboardInterrupt):
        seed()

    assert not League.objects.exists()
    assert list(User.objects.values_list("username", flat=True)) == ["alice"]
