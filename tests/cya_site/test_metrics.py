"""/metrics: who may scrape, what moves when games are played and matches run, and the
multiprocess files adding up (cya_site.metrics)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from django.core.management import call_command
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families
from pytest_django import Settings
from rest_framework.test import APIClient

from accounts.models import User
from bots import runner
from bots import services as bot_services
from bots.models import Bot, BotVersion
from bots.validation import builtin_versions
from cya_site import metrics
from games import services
from games.engine import RuleSet
from tests.games.conftest import play_to_end, submit

ROOT = Path(__file__).resolve().parents[2]
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@pytest.fixture
def scrape(settings: Settings) -> Callable[[], Samples]:
    """Scrape /metrics as the test client (from 127.0.0.1, an allowed network here)."""
    settings.METRICS_ALLOWED_NETWORKS = ["127.0.0.0/8"]

    def read() -> Samples:
        response = APIClient().get("/metrics")
        assert response.status_code == 200, response.content
        assert response["Content-Type"].startswith("text/plain")
        return parse(response.content.decode())

    return read


def parse(text: str) -> Samples:
    """Every sample, keyed by name and sorted labels (prometheus_client's own parser)."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


# --- who may scrape -------------------------------------------------------------------


@pytest.mark.django_db
def test_nobody_may_scrape_by_default(api: APIClient) -> None:
    response = api.get("/metrics")

    assert response.status_code == 403
    body = response.json()
    assert body["code"] == "metrics_forbidden"
    assert "METRICS_TOKEN" in body["message"]
    assert body["request_id"] == response["X-Request-ID"]


@pytest.mark.django_db
def test_the_token_opens_metrics_and_a_wrong_one_does_not(
    api: APIClient, settings: Settings
) -> None:
    settings.METRICS_TOKEN = "scrape-me-1234"

    wrong = api.get("/metrics", headers={"Authorization": "Bearer scrape-me-12345"})
    right = api.get("/metrics", headers={"Authorization": "Bearer scrape-me-1234"})

    assert wrong.status_code == 403
    assert wrong.json()["code"] == "metrics_forbidden"
    assert right.status_code == 200
    assert b"cya_http_request_duration_seconds" in right.content


@pytest.mark.django_db
def test_an_allowed_network_may_scrape_and_others_may_not(
    api: APIClient, settings: Settings
) -> None:
    settings.METRICS_ALLOWED_NETWORKS = ["10.0.0.0/8"]

    assert api.get("/metrics").status_code == 403  # the test client is 127.0.0.1
    assert api.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 200


# --- what moves -------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)  # games count once their change commits
def test_playing_a_game_moves_the_game_and_action_counters(
    scrape: Callable[[], Samples],
    alice: User,
    bob: User,
    staff: User,
    api_as: Callable[[User], APIClient],
) -> None:
    before = scrape()
    game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2))
    services.game_join(game=game, user=bob)
    game = services.game_start(game=game, by=staff, seed=3)
    clients = {0: api_as(alice), 1: api_as(bob)}
    stale = submit(clients[0], game, {"type": "discard", "card": "cabin"}, game.version + 5)
    assert stale.status_code == 409

    bodies = play_to_end(game, clients, rng=random.Random(3))

    after = scrape()
    assert value(after, "cya_games_started_total") == value(before, "cya_games_started_total") + 1
    ended = value(after, "cya_games_ended_total", status="finished")
    assert ended == value(before, "cya_games_ended_total", status="finished") + 1
    submitted = value(after, "cya_actions_submitted_total", origin="api")
    assert submitted == value(before, "cya_actions_submitted_total", origin="api") + len(bodies)
    refused = value(after, "cya_actions_refused_total", code=stale.json()["code"])
    assert refused == value(before, "cya_actions_refused_total", code=stale.json()["code"]) + 1


@pytest.mark.django_db(transaction=True)
def test_running_and_voiding_matches_moves_the_match_figures(
    scrape: Callable[[], Samples], alice: User, staff: User
) -> None:
    builtins = builtin_versions()
    bot = bot_services.bot_create(owner=staff, name="alices-greedy", kind=Bot.Kind.BUILTIN)
    bot.owner = alice
    bot.save()
    fourth = BotVersion.objects.create(bot=bot, number=1, strategy="greedy", status="ready")
    before = scrape()

    played = bot_services.match_create(versions=[*builtins, fourth], seed=5)
    claimed = bot_services.match_claim(match_id=played.pk)  # as the worker's task does
    assert claimed is not None
    runner.run_match(claimed)
    voided = bot_services.match_create(versions=[*builtins, fourth], seed=6)
    bot_services.match_void(match=voided, reason="test")

    after = scrape()

    def moved(status: str) -> float:
        name = "cya_match_transitions_total"
        return value(after, name, kind="ladder", status=status) - value(
            before, name, kind="ladder", status=status
        )

    assert (moved("scheduled"), moved("running"), moved("finished"), moved("voided")) == (
        2,
        1,
        1,
        1,
    )
    assert value(after, "cya_matches", kind="ladder", status="finished") == 1
    assert value(after, "cya_matches", kind="ladder", status="voided") == 1
    assert value(after, "cya_matches", kind="ladder", status="running") == 0
    assert value(after, "cya_database_up") == 1
    # a built-in match plays every game in-process: four games started, four finished
    assert value(after, "cya_games_started_total") - value(before, "cya_games_started_total") == 8
    aborted = value(after, "cya_games_ended_total", status="aborted")
    assert aborted - value(before, "cya_games_ended_total", status="aborted") == 4


@pytest.mark.django_db
def test_the_route_label_is_the_url_pattern_never_the_path(
    scrape: Callable[[], Samples], api_as: Callable[[User], APIClient], alice: User
) -> None:
    game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2))
    assert api_as(alice).get(f"/api/v1/games/{game.pk}/").status_code == 200

    samples = scrape()

    routes = {dict(labels).get("route") for name, labels in samples if "http_request" in name}
    assert "api/v1/games/<id:pk>/" in routes
    assert not any(f"/{game.pk}/" in (route or "") for route in routes)
    count = value(
        samples,
        "cya_http_request_duration_seconds_count",
        method="GET",
        route="api/v1/games/<id:pk>/",
        status="200",
    )
    assert count >= 1


@pytest.mark.django_db
def test_each_queue_s_length_and_oldest_task_are_read_from_redis_at_scrape_time(
    scrape: Callable[[], Samples], settings: Settings
) -> None:
    import redis

    client = redis.Redis.from_url(settings.REDIS_URL)
    samples = scrape()

    for queue in ("interactive", "batch", "outbound"):  # cya_site.queues
        assert value(samples, "cya_celery_queue_length", queue=queue) == client.llen(queue)
        assert value(samples, "cya_celery_queue_oldest_seconds", queue=queue) >= 0


# --- several processes ------------------------------------------------------------------

COUNT_IN_A_PROCESS = (
    "import django; django.setup()\n"
    "from cya_site import metrics\n"
    "metrics.ACTIONS_SUBMITTED.labels('api').inc(3)\n"
    "metrics.TASK_SECONDS.labels('bots.play_match', 'SUCCESS').observe(0.2)\n"
    "metrics.STREAMS_OPEN.inc(2)\n"
)


def test_two_processes_counters_add_up_in_multiprocess_mode(
    tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "metrics"
    folder.mkdir()
    (folder / "counter_1.db").write_bytes(b"left by the last run")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "cya_site.settings"}
    env["PROMETHEUS_MULTIPROC_DIR"] = str(folder)
    call = [
        sys.executable,
        "-c",
        "import django; django.setup()\n"
        "from django.core.management import call_command; call_command('metrics_clear')",
    ]
    subprocess.run(call, cwd=ROOT, env=env, check=True, capture_output=True)
    assert list(folder.iterdir()) == []  # cleared at start, as the library requires

    processes = [
        subprocess.Popen([sys.executable, "-c", COUNT_IN_A_PROCESS], cwd=ROOT, env=env)
        for _ in range(2)
    ]
    assert [p.wait(timeout=60) for p in processes] == [0, 0]

    registry = CollectorRegistry()
    MultiProcessCollector(registry, str(folder))  # type: ignore[no-untyped-call]
    assert registry.get_sample_value("cya_actions_submitted_total", {"origin": "api"}) == 6
    duration = {"task": "bots.play_match", "state": "SUCCESS"}
    assert registry.get_sample_value("cya_celery_task_duration_seconds_count", duration) == 2
    # both processes have exited and none marked dead: livesum drops them once marked
    for process in processes:
        metrics.MULTIPROCESS_DIR = str(folder)
        try:
            metrics.process_exited(process.pid)
        finally:
            metrics.MULTIPROCESS_DIR = ""
    registry = CollectorRegistry()
    MultiProcessCollector(registry, str(folder))  # type: ignore[no-untyped-call]
    assert registry.get_sample_value("cya_streams_open", {}) in (None, 0)


@pytest.mark.django_db
def test_the_view_reports_every_processs_files(
    tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "metrics"
    folder.mkdir()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "cya_site.settings"}
    env["PROMETHEUS_MULTIPROC_DIR"] = str(folder)
    for _ in range(2):
        subprocess.run([sys.executable, "-c", COUNT_IN_A_PROCESS], cwd=ROOT, env=env, check=True)
    monkeypatch.setattr(metrics, "MULTIPROCESS_DIR", str(folder))
    settings.METRICS_ALLOWED_NETWORKS = ["127.0.0.0/8"]

    samples = parse(APIClient().get("/metrics").content.decode())

    assert value(samples, "cya_actions_submitted_total", origin="api") == 6
    assert value(samples, "cya_database_up") == 1  # the live figures are there too


def test_clearing_without_the_variable_is_refused() -> None:
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="PROMETHEUS_MULTIPROC_DIR is not set"):
        call_command("metrics_clear")
