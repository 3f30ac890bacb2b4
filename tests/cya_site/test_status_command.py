"""``manage.py status``: readiness and the ladder's state, and an exit code for a monitor;
the same summary on the admin's index, for staff only."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO

import pytest
from celery import Celery
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone
from pytest_django import Settings

from accounts.models import User
from bots import services
from bots.models import BotVersion, Match
from bots.validation import builtin_versions
from cya_site import health, status
from tests.faults.servers import running_redis

pytestmark = pytest.mark.usefixtures("db", "celery_worker")


def run_status(*args: str) -> tuple[int, str]:
    """The command's exit code and what it printed."""
    out = StringIO()
    try:
        call_command("status", *args, stdout=out)
    except SystemExit as exit_:
        return int(exit_.code or 0), out.getvalue()
    return 0, out.getvalue()


def running_match(started_ago: timedelta) -> Match:
    """A ladder match of the built-in bots, running since ``started_ago``."""
    match = services.match_create(versions=builtin_versions()[:2], duplicate=False)
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.RUNNING, started_at=timezone.now() - started_ago
    )
    return match


def test_a_healthy_site_exits_zero_and_prints_each_check_and_the_ladder() -> None:
    running_match(timedelta(minutes=2))

    code, printed = run_status()

    assert code == status.OK
    assert "readiness: ok" in printed
    for check in ("database", "redis", "broker", "workers"):
        assert f"  {check}" in printed
    assert "running 1" in printed
    assert "started 2 min ago" in printed
    assert "nothing needs a human" in printed


def test_a_stuck_match_exits_one_and_is_named() -> None:
    match = running_match(timedelta(hours=2))

    code, printed = run_status()

    assert code == status.NEEDS_HUMAN
    assert f"match_stuck: match {match.pk} has been running for 2.0 h" in printed


def test_the_stuck_threshold_is_an_option() -> None:
    running_match(timedelta(minutes=20))

    assert run_status()[0] == status.OK
    assert run_status("--stuck-minutes", "10")[0] == status.NEEDS_HUMAN


def test_json_output_carries_the_same_facts_for_machines() -> None:
    match = running_match(timedelta(hours=3))

    code, printed = run_status("--json")

    report = json.loads(printed)
    assert code == report["exit_code"] == status.NEEDS_HUMAN
    assert report["readiness"]["status"] == "ok"
    assert report["ladder"]["oldest_running"]["id"] == match.pk
    assert report["ladder"]["oldest_running"]["age_seconds"] >= 3 * 3600
    assert report["ladder"]["matches"]["running"] == 1
    assert [p["code"] for p in report["problems"]] == ["match_stuck"]


def test_a_ladder_with_tables_and_ready_versions_but_no_rating_change_is_stalled(
    settings: Settings,
) -> None:
    settings.LADDER_TABLES = 1
    settings.LADDER_SEATS = [3]
    builtin_versions()
    BotVersion.objects.update(validated_at=timezone.now() - timedelta(hours=5))

    code, printed = run_status()

    assert code == status.NEEDS_HUMAN
    assert "ladder_stalled: no rating change for more than 60 min" in printed


def test_no_ladder_tables_is_never_stalled(settings: Settings) -> None:
    settings.LADDER_TABLES = 0
    settings.LADDER_SEATS = [3]
    builtin_versions()
    BotVersion.objects.update(validated_at=timezone.now() - timedelta(hours=5))

    assert run_status()[0] == status.OK


def test_work_the_sweeps_left_unsent_is_named() -> None:
    match = services.match_create(versions=builtin_versions()[:2], duplicate=False)
    Match.objects.filter(pk=match.pk).update(dispatched_at=timezone.now() - timedelta(hours=1))

    code, printed = run_status()

    assert code == status.NEEDS_HUMAN
    assert "work_not_resent: idle work the sweeps have not sent again: 1 matches" in printed
    assert "matches 1" in printed  # the idle work line


def test_a_check_down_exits_three(monkeypatch: pytest.MonkeyPatch) -> None:
    running_match(timedelta(hours=2))
    with running_redis() as lonely:  # a broker no worker consumes
        client = Celery("lonely", broker=lonely.url, set_as_current=False)
        monkeypatch.setattr(health, "celery_app", client)
        code, printed = run_status()
        client.close()

    assert code == status.DOWN
    assert "workers   DOWN" in printed
    assert "check_down: workers: no worker answered" in printed
    assert "match_stuck" in printed  # the ladder's findings are listed too


def test_a_bad_threshold_is_refused_with_its_name() -> None:
    with pytest.raises(CommandError, match="--stuck-minutes: invalid minutes value: 'soon'"):
        call_command("status", "--stuck-minutes", "soon")


# --- the admin's index ----------------------------------------------------------------------


def test_staff_see_the_summary_on_the_admin_index(staff: User) -> None:
    match = running_match(timedelta(hours=2))
    client = Client()
    client.force_login(staff)

    response = client.get("/admin/")

    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="site-status"' in page
    assert "Platform status" in page
    assert f"match {match.pk} has been running for 2.0 h" in page
    assert "Site administration" in page  # the admin's own index is still there


def test_the_summary_is_shown_to_no_one_but_staff(alice: User) -> None:
    anonymous = Client().get("/admin/")
    client = Client()
    client.force_login(alice)
    player = client.get("/admin/")

    for response in (anonymous, player):
        assert response.status_code == 302
        assert "/admin/login/" in response["Location"]
        assert b"site-status" not in response.content
