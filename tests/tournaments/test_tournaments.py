"""Tournaments end to end: round robin and Swiss, for people and for bots.

People play digital tables through the games API (random legal actions) or record
real tables; bots play in process here, and through the real Celery worker (a chord of
``bots.play_match`` per round with ``tournaments.round_finished`` as its callback) in
the ``transactional_db`` tests, which also take in results with
``tournaments.sync_results`` and deliver signed result webhooks to a real receiver.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from itertools import combinations
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from bots import runner
from bots.models import Bot, BotVersion, Match
from bots.services import bot_create, platform_user
from bots.validation import builtin_versions
from cya_site.errors import DomainError
from games.engine import RuleSet
from games.models import Game
from tests.factories import UserFactory
from tests.games.conftest import play_to_end
from tests.tournaments.receiver import SECRET, Receiver
from tournaments import (
    notifications,
    recording,
    rounds,
    running,
    seating,
    selectors,
    services,
    tasks,
)
from tournaments.models import (
    ChangeLog,
    Competitor,
    Delivery,
    GameEntry,
    Result,
    Tournament,
    TournamentRound,
    Webhook,
)

Clients = Callable[[User], APIClient]
QUICK = RuleSet.preset("2021", ending="quick")


def bot_field(n: int) -> list[BotVersion]:
    """n ready built-in versions: the platform's three, then more of each strategy."""
    versions = builtin_versions()
    owner = platform_user()
    for i in range(len(versions), n):
        strategy = ("greedy", "shark", "random")[i % 3]
        bot = bot_create(owner=owner, name=f"extra-{i}", kind=Bot.Kind.BUILTIN)
        versions.append(
            BotVersion.objects.create(bot=bot, number=1, strategy=strategy, status="ready")
        )
    return versions[:n]


def bot_tournament(
    by: User, versions: list[BotVersion], *, format: str, rounds: int, sizes: list[int],
    preferred: int, seed: int = 5,
) -> Tournament:  # fmt: skip
    tournament = running.tournament_create(
        by=by,
        name="Bot Cup",
        format=format,
        entrants=Tournament.Entrants.BOTS,
        rules=QUICK,
        rounds=rounds,
        table_sizes=sizes,
        preferred_size=preferred,
        seed=seed,
    )
    for version in versions:
        running.entrant_add(tournament=tournament, by=by, bot_version=version)
    return tournament


def play_bot_round(tournament: Tournament, number: int) -> None:
    """Play the round's matches in process (the worker's job elsewhere), then advance."""
    for match in Match.objects.filter(status=Match.Status.SCHEDULED).order_by("pk"):
        runner.run_match(match)
    rounds.round_advance(tournament=tournament, number=number)


def tables_of(round_: TournamentRound) -> list[list[int]]:
    """The round's tables as competitor numbers, from the games actually created."""
    by_game: dict[int, list[tuple[int, int]]] = {}
    for entry in GameEntry.objects.filter(round=round_).select_related("competitor"):
        by_game.setdefault(entry.game_id, []).append((entry.seat, entry.competitor.number))
    return [[n for _, n in sorted(seats)] for _, seats in sorted(by_game.items())]


def refused(code: str, status: int, call: Callable[..., Any], **kwargs: Any) -> None:
    with pytest.raises(DomainError) as error:
        call(**kwargs)
    assert (error.value.code, error.value.http_status) == (code, status)


# --- bots, in process ------------------------------------------------------------------------


def test_a_bot_round_robin_plays_every_planned_table_and_ranks_everyone(staff: User) -> None:
    versions = bot_field(8)
    tournament = bot_tournament(
        staff, versions, format="round_robin", rounds=3, sizes=[4], preferred=4
    )
    first = running.tournament_start(tournament=tournament, by=staff)
    rounds = list(TournamentRound.objects.filter(tournament=tournament))
    assert [r.number for r in rounds] == [1, 2, 3]  # round robin plans every round at once
    assert first.status == TournamentRound.Status.PLAYING
    assert [r.status for r in rounds[1:]] == ["seated", "seated"]
    for number in (1, 2, 3):
        round_ = TournamentRound.objects.get(tournament=tournament, number=number)
        assert tables_of(round_) == round_.plan  # the games seat the plan, in seat order
        play_bot_round(tournament, number)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    plans = [r.plan for r in TournamentRound.objects.filter(tournament=tournament)]
    met = Counter(p for plan in plans for t in plan for p in combinations(sorted(t), 2))
    # 8 entrants at 4 over 3 rounds must repeat (9 seats, 7 rivals), and none meets 3 times
    assert sorted(Counter(met.values()).items()) == [(1, 12), (2, 12)]
    quality = seating.quality(plans)
    assert quality.max_meetings == max(met.values()) == 2
    standings = selectors.standings(tournament.competition)
    assert sorted(r["rank"] for r in standings) == list(range(1, 9))
    assert all(r["games"] == 3 for r in standings)
    assert Result.objects.filter(competition=tournament.competition).count() == 24
    assert Match.objects.filter(kind=Match.Kind.FRIENDLY, status="finished").count() == 6
    change = ChangeLog.objects.get(competition=tournament.competition, action="tournament_started")
    assert change.after == {"quality": quality.__dict__}


def test_mixed_table_sizes_seat_a_field_that_does_not_divide(staff: User) -> None:
    versions = bot_field(7)
    tournament = bot_tournament(
        staff, versions, format="round_robin", rounds=2, sizes=[3, 4], preferred=4
    )
    running.tournament_start(tournament=tournament, by=staff)
    for round_ in TournamentRound.objects.filter(tournament=tournament):
        assert sorted(len(t) for t in round_.plan) == [3, 4]
        assert sorted(e for t in round_.plan for e in t) == list(range(7))
    round_one = TournamentRound.objects.get(tournament=tournament, number=1)
    games = Game.objects.filter(competition_entries__round=round_one).distinct()
    assert sorted(g.seat_count for g in games) == [3, 4]
    play_bot_round(tournament, 1)
    play_bot_round(tournament, 2)
    standings = selectors.standings(tournament.competition)
    assert all(r["games"] == 2 for r in standings)


def test_a_bot_swiss_seats_each_round_from_the_standings_after_the_last(staff: User) -> None:
    versions = bot_field(8)
    tournament = bot_tournament(staff, versions, format="swiss", rounds=3, sizes=[4], preferred=4)
    running.tournament_start(tournament=tournament, by=staff)
    assert TournamentRound.objects.filter(tournament=tournament).count() == 1  # one at a time
    numbers = dict(tournament.competition.competitors.values_list("pk", "number"))
    for number in (1, 2):
        play_bot_round(tournament, number)
        order = [numbers[r["competitor"]] for r in selectors.standings(tournament.competition)]
        history = seating.History()
        for past in TournamentRound.objects.filter(tournament=tournament, number__lte=number):
            history.record(past.plan)
        upcoming = TournamentRound.objects.get(tournament=tournament, number=number + 1)
        assert upcoming.plan == seating.swiss_tables(order, [4, 4], history)
        assert tables_of(upcoming) == upcoming.plan
    play_bot_round(tournament, 3)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert all(r["games"] == 3 for r in selectors.standings(tournament.competition))


def test_a_round_cannot_advance_before_its_tables_finish(staff: User, api_as: Clients) -> None:
    tournament = bot_tournament(
        staff, bot_field(4), format="round_robin", rounds=2, sizes=[2], preferred=2
    )
    running.tournament_start(tournament=tournament, by=staff)
    unfinished = sorted(
        Game.objects.filter(competition_entries__round__number=1)
        .distinct()
        .values_list("pk", flat=True)
    )
    with pytest.raises(DomainError) as error:
        rounds.round_advance(tournament=tournament, number=1)
    assert (error.value.code, error.value.http_status) == ("round_not_finished", 409)
    assert sorted(error.value.details["games"]) == unfinished
    response = api_as(staff).post(f"/api/v1/tournaments/{tournament.pk}/rounds/1/advance/")
    assert (response.status_code, response.json()["code"]) == (409, "round_not_finished")
    assert TournamentRound.objects.get(tournament=tournament, number=1).status == "playing"
    assert TournamentRound.objects.get(tournament=tournament, number=2).status == "seated"
    assert not Result.objects.filter(competition=tournament.competition).exists()
    play_bot_round(tournament, 1)
    assert TournamentRound.objects.get(tournament=tournament, number=2).status == "playing"
    assert rounds.round_advance(tournament=tournament, number=1) is None  # already closed


def test_tournament_rules_refuse_bad_set_ups(staff: User, alice: User) -> None:
    common: dict[str, Any] = {
        "by": staff,
        "name": "Cup",
        "format": "round_robin",
        "entrants": "humans",
        "rules": QUICK,
        "rounds": 2,
        "table_sizes": [3, 4],
        "preferred_size": 4,
    }
    refused("invalid", 422, running.tournament_create, **{**common, "format": "knockout"})
    refused("invalid", 422, running.tournament_create, **{**common, "entrants": "aliens"})
    refused("invalid", 422, running.tournament_create, **{**common, "rounds": 0})
    refused("invalid", 422, running.tournament_create, **{**common, "rounds": 21})
    refused("invalid", 422, running.tournament_create, **{**common, "table_sizes": [1, 4]})
    refused("invalid", 422, running.tournament_create, **{**common, "table_sizes": [4, 7]})
    refused("invalid", 422, running.tournament_create, **{**common, "preferred_size": 5})
    refused(
        "invalid",
        422,
        running.tournament_create,
        **{**common, "entrants": "bots", "play": "recorded"},
    )
    refused("invalid_tiebreaks", 422, running.tournament_create, **{**common, "tiebreaks": ["x"]})
    assert not Tournament.objects.exists()


def test_entrants_must_fit_the_tournament_and_join_before_it_starts(
    staff: User, alice: User, bob: User
) -> None:
    people = running.tournament_create(
        by=staff, name="People", format="round_robin", entrants="humans", rules=QUICK,
        rounds=1, table_sizes=[2], preferred_size=2,
    )  # fmt: skip
    guest_ok = running.tournament_create(
        by=staff, name="Club night", format="round_robin", entrants="humans", rules=QUICK,
        rounds=1, table_sizes=[2], preferred_size=2, play="recorded",
    )  # fmt: skip
    robots = bot_tournament(staff, [], format="round_robin", rounds=1, sizes=[2], preferred=2)
    version = bot_field(1)[0]
    refused("needs_accounts", 422, running.entrant_add, tournament=people, by=staff, name="Dora")
    assert running.entrant_add(tournament=guest_ok, by=staff, name="Dora").user is None
    refused("invalid", 422, running.entrant_add, tournament=people, by=staff, bot_version=version)
    refused("invalid", 422, running.entrant_add, tournament=robots, by=staff, user=alice)
    pending = BotVersion.objects.create(bot=version.bot, number=9, strategy="random")
    refused("invalid", 422, running.entrant_add, tournament=robots, by=staff, bot_version=pending)
    refused("permission_denied", 403, running.entrant_add, tournament=people, by=bob, user=bob)
    running.entrant_add(tournament=people, by=staff, user=alice)
    refused(
        "already_entered",
        409,
        running.entrant_add,
        tournament=people,
        by=staff,
        name="A",
        user=alice,
    )
    refused("name_taken", 409, running.entrant_add, tournament=people, by=staff, user=alice)
    refused("cannot_seat", 422, running.tournament_start, tournament=people, by=staff)
    running.entrant_add(tournament=people, by=staff, user=bob)
    refused("permission_denied", 403, running.tournament_start, tournament=people, by=alice)
    running.tournament_start(tournament=people, by=staff)
    late = UserFactory.create(username="late")
    refused("tournament_started", 409, running.entrant_add, tournament=people, by=staff, user=late)
    refused("tournament_started", 409, running.tournament_start, tournament=people, by=staff)


# --- people ----------------------------------------------------------------------------------


def test_people_play_a_round_robin_through_the_games_api(
    staff: User, alice: User, bob: User, carol: User, olga: User, api_as: Clients
) -> None:
    organiser = api_as(olga)
    created = organiser.post(
        "/api/v1/tournaments/",
        {
            "name": "Spring Open",
            "format": "round_robin",
            "entrants": "humans",
            "rules": {"preset": "2021", "options": {"ending": "quick"}},
            "rounds": 3,
            "table_sizes": [2],
            "preferred_size": 2,
            "seed": 11,
        },
        format="json",
    )
    assert created.status_code == 201, created.json()
    tournament = Tournament.objects.get(pk=created.json()["id"])
    competition = created.json()["competition"]["id"]
    players = {"alice": alice, "bob": bob, "carol": carol, "staff": staff}
    for username in players:
        joined = organiser.post(
            f"/api/v1/competitions/{competition}/competitors/",
            {"username": username},
            format="json",
        )
        assert joined.status_code == 201, joined.json()
    started = organiser.post(f"/api/v1/tournaments/{tournament.pk}/start/")
    assert started.status_code == 200, started.json()
    assert started.json()["status"] == "running"
    assert [r["status"] for r in started.json()["round_set"]] == ["playing", "seated", "seated"]
    by_id = {user.pk: api_as(user) for user in players.values()}
    for number in (1, 2, 3):
        games = Game.objects.filter(competition_entries__round__number=number).distinct()
        games = games.filter(competition_entries__round__tournament=tournament)
        assert games.count() == 2
        for game in games:
            seated = {s.number: by_id[s.user_id] for s in game.seats.all() if s.user_id}
            play_to_end(game, seated, rng=random.Random(game.pk))
        advanced = organiser.post(f"/api/v1/tournaments/{tournament.pk}/rounds/{number}/advance/")
        assert advanced.status_code == 200, advanced.json()
    detail = api_as(alice).get(f"/api/v1/tournaments/{tournament.pk}/").json()
    assert detail["status"] == "finished"
    assert detail["progress"] == {"rounds": 3, "rounds_finished": 3, "games": 6}
    standings = api_as(alice).get(f"/api/v1/competitions/{competition}/standings/").json()
    assert sorted(r["name"] for r in standings) == sorted(players)
    assert all(r["games"] == 3 for r in standings)
    # four entrants at tables of two over three rounds: everyone met everyone once
    plans = [r["plan"] for r in detail["round_set"]]
    met = Counter(p for plan in plans for t in plan for p in combinations(sorted(t), 2))
    assert set(met.values()) == {1}
    assert len(met) == 6


def test_a_recorded_swiss_is_entered_by_the_organiser_and_seated_from_the_standings(
    olga: User,
) -> None:
    tournament = running.tournament_create(
        by=olga, name="Pub Swiss", format="swiss", entrants="humans", rules=QUICK, rounds=2,
        table_sizes=[4], preferred_size=4, play="recorded", seed=3,
    )  # fmt: skip
    for i in range(16):
        running.entrant_add(tournament=tournament, by=olga, name=f"Player {i:02}")
    running.tournament_start(tournament=tournament, by=olga)
    round_one = TournamentRound.objects.get(tournament=tournament, number=1)
    games = list(
        Game.objects.filter(competition_entries__round=round_one).distinct().order_by("pk")
    )
    assert len(games) == 4
    assert all(g.mode == Game.Mode.RECORDED for g in games)
    refused("round_not_finished", 409, rounds.round_advance, tournament=tournament, number=1)
    for game in games:
        recording.round_record(game=game, by=olga, dollars=[400_000, 300_000, 200_000, 100_000])
    rounds.round_advance(tournament=tournament, number=1)
    standing = selectors.standings(tournament.competition)
    numbers = dict(Competitor.objects.values_list("pk", "number"))
    order = [numbers[r["competitor"]] for r in standing]
    round_two = TournamentRound.objects.get(tournament=tournament, number=2)
    assert round_two.status == TournamentRound.Status.PLAYING
    # top-down: the four winners, then the runners-up...; and nobody meets again
    for place, table in enumerate(round_two.plan):
        assert sorted(table) == sorted(order[4 * place : 4 * place + 4])
        for a, b in combinations(table, 2):
            assert not any(a in t and b in t for t in round_one.plan)


# --- the real worker: bot chords, sync_results, webhooks -----------------------------------


def wait_until(check: Callable[[], bool], timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(f"not done within {timeout} s")


@pytest.mark.usefixtures("transactional_db")
def test_a_bot_tournament_runs_through_the_worker_and_reports_progress(
    celery_worker: str, api: APIClient
) -> None:
    staff = UserFactory.create(username="staff", is_staff=True)
    tournament = bot_tournament(
        staff, bot_field(4), format="round_robin", rounds=3, sizes=[2], preferred=2
    )
    with Receiver() as receiver:
        services.webhook_add(
            competition=tournament.competition, by=staff, url=receiver.url, secret=SECRET
        )
        running.tournament_start(tournament=tournament, by=staff)  # commits: the chord starts
        seen: list[dict[str, int]] = []

        def finished() -> bool:
            body = api.get(f"/api/v1/tournaments/{tournament.pk}/").json()
            if not seen or seen[-1] != body["progress"]:
                seen.append(body["progress"])
            return bool(body["status"] == "finished")

        wait_until(finished)
        deliveries = receiver.wait_for(7)  # a result per table, then the final standings
    assert seen[-1] == {"rounds": 3, "rounds_finished": 3, "games": 6}
    assert [p["rounds_finished"] for p in seen] == sorted(p["rounds_finished"] for p in seen)
    rounds = TournamentRound.objects.filter(tournament=tournament)
    assert [r.status for r in rounds] == ["finished"] * 3
    matches = Match.objects.filter(kind=Match.Kind.FRIENDLY)
    assert matches.count() == 6
    assert set(matches.values_list("status", flat=True)) == {"finished"}
    standings = selectors.standings(tournament.competition)
    assert all(r["games"] == 3 for r in standings)
    assert all(d.signature_ok for d in deliveries)
    assert Counter(receiver.events()) == {"game.result": 6, "tournament.finished": 1}
    final = next(d.json() for d in deliveries if d.headers["x-cya-event"] == "tournament.finished")
    assert final["event"] == "tournament.finished"
    assert [r["name"] for r in final["data"]["standings"]] == [r["name"] for r in standings]
    assert Delivery.objects.filter(delivered_at__isnull=False, status_code=200).count() == 7


@pytest.mark.usefixtures("transactional_db")
def test_sync_results_takes_in_finished_tables_and_advances_a_human_round(
    celery_worker: str,
) -> None:
    olga = UserFactory.create(username="olga")
    tournament = running.tournament_create(
        by=olga, name="Night", format="round_robin", entrants="humans", rules=QUICK, rounds=2,
        table_sizes=[2], preferred_size=2, play="recorded", seed=1,
    )  # fmt: skip
    for name in ("Ann", "Ben", "Cat", "Dan"):
        running.entrant_add(tournament=tournament, by=olga, name=name)
    running.tournament_start(tournament=tournament, by=olga)
    games = Game.objects.filter(competition_entries__round__number=1).distinct()
    recording.round_record(game=games[0], by=olga, dollars=[100_000, 50_000])

    def sync() -> int:
        result = tasks.sync_results.apply_async(ignore_result=False)
        value: int = result.get(timeout=30)
        assert result.worker == celery_worker  # ran in the worker, not here
        return value

    sync()
    assert TournamentRound.objects.get(tournament=tournament, number=1).status == "playing"
    recording.round_record(game=games[1], by=olga, dollars=[50_000, 100_000])
    sync()
    statuses = dict(TournamentRound.objects.values_list("number", "status"))
    assert statuses == {1: "finished", 2: "playing"}
    assert sync() == 0  # nothing new: a rerun changes nothing


@pytest.mark.usefixtures("transactional_db")
def test_a_result_webhook_is_signed_retried_after_a_500_and_logged(celery_worker: str) -> None:
    """The receiver fails the first attempt; the task retries after its first backoff."""
    olga = UserFactory.create(username="olga")
    tournament = running.tournament_create(
        by=olga, name="Night", format="round_robin", entrants="humans", rules=QUICK, rounds=1,
        table_sizes=[2], preferred_size=2, play="recorded", seed=1,
    )  # fmt: skip
    for name in ("Ann", "Ben"):
        running.entrant_add(tournament=tournament, by=olga, name=name)
    running.tournament_start(tournament=tournament, by=olga)
    game = Game.objects.filter(competition_entries__round__tournament=tournament).distinct().get()
    with Receiver(statuses=[500]) as receiver:
        hook, secret = services.webhook_add(
            competition=tournament.competition, by=olga, url=receiver.url, secret=SECRET
        )
        assert secret == SECRET
        recording.round_record(game=game, by=olga, dollars=[100_000, 50_000])  # counts now
        # the game's end also closes its round, the last, so the tournament finishes too:
        # two deliveries, the first to arrive answered 500 and sent again
        delivered = receiver.wait_for(3, timeout=tasks.RETRY_DELAYS[0] + 30)
    by_delivery: dict[str, list[Any]] = {}
    for request in delivered:
        by_delivery.setdefault(request.headers["x-cya-delivery"], []).append(request)
    (first, second), (only,) = sorted(by_delivery.values(), key=len, reverse=True)
    assert (first.answered, second.answered, only.answered) == (500, 200, 200)
    assert first.body == second.body  # the same delivery, sent again
    assert {first.headers["x-cya-event"], only.headers["x-cya-event"]} == {
        "game.result",
        "tournament.finished",
    }
    for request in delivered:
        assert request.signature_ok
        for name in ("x-cya-timestamp", "x-cya-signature", "x-cya-event", "x-cya-delivery"):
            assert name in request.headers
        assert request.headers["x-cya-signature"].startswith("sha256=")
    result = next(r for r in delivered if r.headers["x-cya-event"] == "game.result")
    body = result.json()
    delivery = Delivery.objects.get(webhook=hook, event="game.result")
    assert body["delivery"] == delivery.pk == int(result.headers["x-cya-delivery"])
    assert body["data"]["game"] == game.pk
    assert body["data"]["competition"] == tournament.competition.pk
    assert [(r["name"], r["place"], r["dollars"], r["won"]) for r in body["data"]["results"]] == [
        ("Ann", 1, 100_000, True),
        ("Ben", 2, 50_000, False),
    ]
    retried = Delivery.objects.get(pk=int(first.headers["x-cya-delivery"]))
    wait_until(lambda: Delivery.objects.get(pk=retried.pk).delivered_at is not None, 10)
    retried.refresh_from_db()
    assert (retried.attempts, retried.status_code, retried.error) == (2, 200, "")


def test_a_delivery_that_cannot_connect_logs_the_error(olga: User) -> None:
    competition = services.competition_create(
        kind="tournament", name="Cup", tiebreaks=[], best_of=None
    )
    hook = Webhook.objects.create(
        competition=competition, url="http://127.0.0.1:9/nothing", secret=SECRET,
        created_by=olga,
    )  # fmt: skip
    delivery = Delivery.objects.create(webhook=hook, event="game.result", payload={"x": 1})
    assert notifications.deliver(delivery) is False
    delivery.refresh_from_db()
    assert (delivery.attempts, delivery.status_code, delivery.delivered_at) == (1, None, None)
    assert delivery.error


def test_inactive_webhooks_get_no_deliveries(olga: User) -> None:
    competition = services.competition_create(
        kind="tournament", name="Cup", tiebreaks=[], best_of=None
    )
    with Receiver() as receiver:
        Webhook.objects.create(
            competition=competition, url=receiver.url, secret=SECRET, created_by=olga,
            is_active=False,
        )  # fmt: skip
        assert notifications.publish(competition, "game.result", {}) == []
    assert not Delivery.objects.exists()


def test_a_bot_round_whose_callback_never_came_is_advanced_by_the_sync(staff: User) -> None:
    # the round's matches were played by tasks the sweep resent after a crash, outside the
    # chord, so round_finished never ran: sync_results advances the round itself
    tournament = bot_tournament(
        staff, bot_field(4), format="round_robin", rounds=2, sizes=[4], preferred=4
    )
    running.tournament_start(tournament=tournament, by=staff)
    tasks.sync_results()  # the table still plays: nothing moves
    first = TournamentRound.objects.get(tournament=tournament, number=1)
    assert first.status == TournamentRound.Status.PLAYING

    for match in Match.objects.filter(status=Match.Status.SCHEDULED):
        runner.run_match(match)
    tasks.sync_results()

    first.refresh_from_db()
    assert first.status == TournamentRound.Status.FINISHED
    second = TournamentRound.objects.get(tournament=tournament, number=2)
    assert second.status == TournamentRound.Status.PLAYING
    assert tasks.round_finished(tournament.pk, 2) is None  # a callback too early: left be
