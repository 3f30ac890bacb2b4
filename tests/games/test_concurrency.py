"""Many simultaneous answers to one decision: exactly one applies, the rest get 409.

Submissions come from real threads (each on its own database connection) and from
separate processes (each its own Django, against the test database), so what serialises
them is the database: each is written by one statement that writes only if the game is
still at the version it was played from (games.store.append). ``transactional_db``:
every submission commits, as it would in production.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection, transaction
from rest_framework.test import APIClient

from games import services, store
from games.engine import RuleSet, action_to_json, legal_actions, observe, replay
from games.models import Event, Game
from tests.clients import authenticate
from tests.conftest import _test_database_url
from tests.games.conftest import engine_state, game_url, submit
from tests.races import Outcome, race_threads

pytestmark = pytest.mark.usefixtures("transactional_db")

ROOT = Path(__file__).resolve().parents[2]
THREADS = 8
PROCESSES = 4


def submission(
    client: APIClient, game: Game, action: Any, version: int, key: str | None = None
) -> Callable[[], Outcome]:
    def job() -> Outcome:
        response = submit(client, game, action, version, key=key)
        return response.status_code, response.json()

    return job


def clients_of(game: Game, per_seat: int) -> dict[int, list[APIClient]]:
    """``per_seat`` clients for each seated player, each with its own token."""
    clients: dict[int, list[APIClient]] = {}
    for seat in game.seats.select_related("user"):
        assert seat.user is not None
        clients[seat.number] = []
        for _ in range(per_seat):
            client = APIClient()
            authenticate(client, seat.user)
            clients[seat.number].append(client)
    return clients


def assert_log_is_whole_and_replays(game: Game) -> None:
    """No gaps or duplicates in the log, and the stored game is the replay of its log."""
    game.refresh_from_db()
    seqs = list(Event.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(game.version + 1))
    rows = Event.objects.filter(game=game, seq__gt=0).order_by("seq")
    codes = [code for code in rows.values_list("action_code", flat=True) if code is not None]
    assert len(codes) == game.version
    replayed = replay(RuleSet.from_json(game.rules), game.seed or 0, codes)
    assert replayed.version == game.version
    assert engine_state(game) == replayed
    assert (game.to_act, game.round_number) == (replayed.to_act, replayed.round)
    assert store.load_state(game) == replayed
    for seat in range(replayed.table.seats):
        assert observe(replayed, seat) == observe(engine_state(game), seat)


def legal_json(game: Game) -> tuple[int, int, list[dict[str, Any]]]:
    """(seat to act, version, its legal actions as JSON)."""
    state = engine_state(game)
    return state.to_act, state.version, [action_to_json(a, "2021") for a in legal_actions(state)]


# --- threads --------------------------------------------------------------------------


def test_one_of_many_simultaneous_answers_applies_and_the_rest_are_stale(
    started: Game,
) -> None:
    clients = clients_of(started, THREADS)
    for _ in range(6):  # six decisions in a row, each answered by eight racing requests
        seat, version, actions = legal_json(started)
        jobs = [
            submission(client, started, actions[i % len(actions)], version)
            for i, client in enumerate(clients[seat])
        ]

        outcomes = race_threads(jobs)

        statuses = sorted(status for status, _ in outcomes)
        assert statuses == [201] + [409] * (THREADS - 1), outcomes
        assert {body["code"] for status, body in outcomes if status == 409} == {"stale_version"}
        assert all(body["details"] == {"version": version + 1} for s, body in outcomes if s == 409)
        started.refresh_from_db()
        assert started.version == version + 1
    assert_log_is_whole_and_replays(started)


def test_simultaneous_retries_sharing_a_key_apply_once_and_replay_the_rest(
    started: Game,
) -> None:
    clients = clients_of(started, THREADS)
    for turn in range(4):
        seat, version, actions = legal_json(started)
        key = f"decision-{turn}"
        jobs = [submission(c, started, actions[0], version, key=key) for c in clients[seat]]

        outcomes = race_threads(jobs)

        statuses = sorted(status for status, _ in outcomes)
        assert statuses == [200] * (THREADS - 1) + [201], outcomes
        entries = {json.dumps(body["entry"], sort_keys=True) for _, body in outcomes}
        assert len(entries) == 1
        assert [body["replayed"] for s, body in outcomes if s == 200] == [True] * (THREADS - 1)
        assert Event.objects.filter(game=started, idempotency_key=key).count() == 1
    assert_log_is_whole_and_replays(started)


def test_racing_seats_and_racing_keys_still_apply_exactly_one(started: Game) -> None:
    """Every seat answers at once, half with a key its seat shares, half with their own."""
    clients = clients_of(started, 4)
    for turn in range(4):
        _, version, actions = legal_json(started)
        jobs = []
        for seat, seat_clients in clients.items():
            for i, client in enumerate(seat_clients):
                key = f"shared-{turn}-{seat}" if i % 2 else f"own-{turn}-{seat}-{i}"
                jobs.append(submission(client, started, actions[0], version, key=key))

        outcomes = race_threads(jobs)

        assert [s for s, _ in outcomes].count(201) == 1, outcomes
        assert all(s in (200, 201, 409) for s, _ in outcomes), outcomes
        codes = {body["code"] for s, body in outcomes if s == 409}
        assert codes <= {"stale_version", "not_your_turn"}
    assert_log_is_whole_and_replays(started)


def test_a_resignation_waits_for_an_action_in_flight_and_applies_after_it(started: Game) -> None:
    """A resignation names no version: it takes the game's lock, so an action holding that
    lock (applied, not yet committed) goes first and the resignation applies after it."""
    seat, version, actions = legal_json(started)
    actor = started.seats.get(number=seat).user
    leaver = started.seats.exclude(number=seat).select_related("user").first()
    assert actor is not None
    assert leaver is not None
    leaving = leaver.user
    assert leaving is not None
    holding, release = threading.Event(), threading.Event()
    results: dict[str, Any] = {}

    def act() -> None:
        try:
            with transaction.atomic():
                services.action_submit(
                    game_id=started.pk, user=actor, action=actions[0], version=version
                )
                holding.set()
                release.wait(timeout=10)
        finally:
            holding.set()
            connection.close()

    def resign() -> None:
        try:
            results["resign"] = services.game_resign(game=started, user=leaving)
        except BaseException as error:  # a stale read would fail here: keep it
            results["resign"] = error
        finally:
            connection.close()

    acting = threading.Thread(target=act)
    acting.start()
    assert holding.wait(timeout=10)
    resigning = threading.Thread(target=resign)
    resigning.start()
    resigning.join(timeout=0.5)
    assert resigning.is_alive()  # it waits for the action's lock
    release.set()
    acting.join(timeout=10)
    resigning.join(timeout=10)

    assert isinstance(results["resign"], services.ActionResult), results
    log = Event.objects.filter(game=started, seq__gt=version).order_by("seq")
    assert [(e.seq, e.seat, e.origin) for e in log][:2] == [
        (version + 1, seat, Event.Origin.API),
        (version + 2, leaver.number, Event.Origin.RESIGN),
    ]
    assert_log_is_whole_and_replays(started)


# --- processes ------------------------------------------------------------------------

# A submitter process: its own Django against the test database, warmed up by one request.
# It prints "ready", then for each job line on stdin submits through the full stack (WSGI
# handler, DRF, services) and prints [status, body]. Writing a job to every process at
# once releases them together.
SUBMITTER = """
import json, sys
import django
django.setup()
from rest_framework.test import APIClient
client = APIClient()
client.credentials(HTTP_AUTHORIZATION="Bearer " + sys.argv[1])
url = sys.argv[2]
assert client.get(url.replace("actions/", "")).status_code == 200
print("ready", flush=True)
for line in sys.stdin:
    job = json.loads(line)
    headers = {"Idempotency-Key": job["key"]} if job["key"] else {}
    response = client.post(url, {"action": job["action"], "version": job["version"]},
                           format="json", headers=headers)
    print(json.dumps([response.status_code, response.json()]), flush=True)
"""


class Submitters:
    """Separate Python processes, each submitting as one token of the seat to act."""

    def __init__(self, game: Game, tokens: list[str]) -> None:
        env = {
            **os.environ,
            "DATABASE_URL": _test_database_url(),
            "REDIS_URL": settings.REDIS_URL,
            "DJANGO_SETTINGS_MODULE": "cya_site.settings",
            "ALLOWED_HOSTS": "testserver",
        }
        self.processes = [
            subprocess.Popen(
                [sys.executable, "-c", SUBMITTER, token, game_url(game, "actions")],
                cwd=ROOT,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for token in tokens
        ]
        for process in self.processes:
            assert process.stdout is not None
            line = process.stdout.readline()
            assert line == "ready\n", (line, self.close())

    def race(self, jobs: list[dict[str, Any]]) -> list[Outcome]:
        """Give every process its job at once; returns each one's (status, body)."""
        for process, job in zip(self.processes, jobs, strict=True):
            assert process.stdin is not None
            process.stdin.write(json.dumps(job) + "\n")
            process.stdin.flush()
        outcomes = []
        for process in self.processes:
            assert process.stdout is not None
            line = process.stdout.readline()
            assert line, self.close()
            status, body = json.loads(line)
            outcomes.append((status, body))
        return outcomes

    def close(self) -> str:
        """Stop every process; returns what they wrote to stderr."""
        for process in self.processes:  # end of input: each process exits, all at once
            if process.stdin is not None and not process.stdin.closed:
                process.stdin.close()
        errors = []
        for process in self.processes:
            process.wait(timeout=30)
            assert process.stdout is not None
            assert process.stderr is not None
            errors.append(process.stderr.read())
            process.stdout.close()
            process.stderr.close()
        return "\n".join(errors)


def test_simultaneous_answers_from_separate_processes_apply_once(started: Game) -> None:
    seat, _, _ = legal_json(started)
    user = started.seats.get(number=seat).user
    assert user is not None
    submitters = Submitters(started, [authenticate(APIClient(), user) for _ in range(PROCESSES)])
    try:
        # 1: every process answers with its own key, or none
        _, version, actions = legal_json(started)
        jobs = [
            {"action": actions[0], "version": version, "key": f"own-{i}" if i % 2 else ""}
            for i in range(PROCESSES)
        ]
        outcomes = submitters.race(jobs)
        assert sorted(s for s, _ in outcomes) == [201] + [409] * (PROCESSES - 1), outcomes
        assert {body["code"] for s, body in outcomes if s == 409} == {"stale_version"}

        # 2: the same seat again (its turn comes round after the others pass)
        while legal_json(started)[0] != seat:
            to_act, version, actions = legal_json(started)
            other = started.seats.get(number=to_act).user
            client = APIClient()
            authenticate(client, other)  # type: ignore[arg-type]
            assert submit(client, started, actions[0], version).status_code == 201
        _, version, actions = legal_json(started)
        jobs = [{"action": actions[0], "version": version, "key": "retry"}] * PROCESSES
        outcomes = submitters.race(jobs)
        assert sorted(s for s, _ in outcomes) == [200] * (PROCESSES - 1) + [201], outcomes
        assert len({json.dumps(body["entry"], sort_keys=True) for _, body in outcomes}) == 1
        assert Event.objects.filter(game=started, idempotency_key="retry").count() == 1
    finally:
        errors = submitters.close()
    assert "Traceback" not in errors, errors
    assert_log_is_whole_and_replays(started)
