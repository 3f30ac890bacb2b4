"""The card table's animations: how soon after its line on the stream each one starts.

    python benchmarks/table.py [--moves 60] [--seed 5]

Needs PostgreSQL and Redis (``DATABASE_URL``'s server, default the local one, and
``REDIS_URL``) and Debian's Chromium (``CHROMIUM``, default /usr/bin/chromium). It
recreates a database ``cya_bench_table`` on that server, migrates it and serves the site
with ``manage.py runserver --insecure`` on 127.0.0.1. Two players sit at a two-seat
table (2011 rules, one round, a fixed seed): alice watches it in Chromium at 360 px
while this script plays both seats through the services, first legal pair or discard
(alice's page is a seat's page, so it animates the opponent's moves and its own from the
stream). The page notes when each stream line arrived and when the animation it caused
started (``window.cyaTable.animations``, games/static/games/animate.js); the figures are
that delay's median, 95th percentile and maximum, and how many started within 300 ms.

The last line is read by tools:
``animations=<n> p50_ms=<n> p95_ms=<n> max_ms=<n> within_300ms=<n>``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.api import free_port  # noqa: E402 - after sys.path

DB = "cya_bench_table"
PASSWORD = "a long enough password"


def database_url() -> str:
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    return urlunsplit(urlsplit(base)._replace(path=f"/{DB}"))


def _recreate(url: str) -> None:
    admin = urlunsplit(urlsplit(url)._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=60, help="moves to watch at most")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    url = database_url()
    _recreate(url)
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        "DJANGO_SETTINGS_MODULE": "cya_site.settings",
        "SECURE_COOKIES": "false",
        # Playwright's sync API runs an event loop in this thread; the ORM calls made here
        # run between its calls, never inside them (as in tests/browser.py)
        "DJANGO_ALLOW_ASYNC_UNSAFE": "true",
    }
    os.environ.update(env)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", "--noreload", "--insecure", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        delays = _watch(f"http://127.0.0.1:{port}", args.moves, args.seed)
    finally:
        server.terminate()
        server.wait()
    _report(delays)


def _watch(base: str, moves: int, seed: int) -> list[float]:
    import django

    django.setup()
    from playwright.sync_api import sync_playwright

    from accounts import services as accounts
    from accounts.models import User
    from games import services, store
    from games.engine import RuleSet, action_to_json, legal_actions

    alice = accounts.user_register(username="alice", password=PASSWORD)
    bob = accounts.user_register(username="bob", password=PASSWORD)
    staff = User.objects.create_user(username="bench-staff", is_staff=True)
    game = services.game_create(by=alice, rules=RuleSet.preset("2011", seats=2, ending="quick"))
    services.game_join(game=game, user=bob)
    game = services.game_start(game=game, by=staff, seed=seed)
    users = {0: alice, 1: bob}
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 360, "height": 740}, base_url=base)
        page.goto("/sign-in/")
        page.get_by_label("Username").fill("alice")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.goto(f"/games/{game.pk}/")
        page.wait_for_timeout(1000)  # the stream is open
        for _ in range(moves):
            game.refresh_from_db()
            if game.status != "active":
                break
            state = store.load_state(game)
            legal = [action_to_json(a, "2011") for a in legal_actions(state)]
            action = next((a for a in legal if a["type"] == "pair"), legal[0])
            services.action_submit(
                game_id=game.pk, user=users[state.to_act], action=action, version=game.version
            )
            page.wait_for_function(
                "v => Number(document.getElementById('board').dataset.version) >= v",
                arg=game.version + 1,
                timeout=10_000,
            )
            time.sleep(0.4)  # the animation plays
        found = page.evaluate("window.cyaTable.animations")
        browser.close()
    return [a["at"] - a["line"] for a in found]


def _report(delays: list[float]) -> None:
    if not delays:
        sys.exit("no animation started: is the table's script loading?")
    ordered = sorted(delays)
    p50 = statistics.median(ordered)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    within = sum(d <= 300 for d in ordered)
    print(f"animations started: {len(ordered)}, {within} within 300 ms of their stream line")
    worst = ordered[-1]
    print(f"from the line to the start: median {p50:.0f} ms, p95 {p95:.0f} ms, max {worst:.0f} ms")
    print(
        f"animations={len(ordered)} p50_ms={p50:.0f} p95_ms={p95:.0f} "
        f"max_ms={ordered[-1]:.0f} within_300ms={within}"
    )


if __name__ == "__main__":
    main()
