"""The gunicorn side of api.py alone: CPU per request through Django's WSGI handler, in one process.

    python benchmarks/api_inprocess.py [--games 4] [--bare 1500] [--database cya_inprocess_bench]

api.py's figures follow a shared machine's load by 10 to 20 % a run, more than a change of
the request path moves them. This runs the same two requests in one process, with no
servers, clients or streams: the bare read/write endpoint ``--bare`` times, then complete
games of four seats, each seat POSTing one of its decision's legal actions as api.py's
clients do (the announcements still go to Redis). Only the requests' CPU time is counted
(``time.process_time`` around each), so two trees alternated a few times tell a change of
the request path apart. Needs PostgreSQL and Redis (``DATABASE_URL``'s server, which gets
the database ``--database`` anew, and ``REDIS_URL``).

The last line is read by tools: ``bare_ms=<n> action_ms=<n> ratio=<bare/action>``.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.api import bench_database_url, production_env, recreate_database  # noqa: E402

Table = tuple[int, list[str], int | None]  # game id, seat tokens, seat to act


def setup(url: str, games: int, seeds: list[int] | None = None) -> list[Table]:
    """Migrate, then deal ``games`` games of four seats, game g from ``seeds[g]`` (1000 +
    g by default): (game id, seat tokens, seat to act)."""
    env = production_env(url, BENCH_ENDPOINTS="true", ALLOWED_HOSTS="*")
    env.update(THROTTLE_USER="1000000/min", THROTTLE_ACTIONS="1000000/min")
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    os.environ.update(env)
    import django

    django.setup()
    logging.disable(logging.INFO)  # the access log, which api.py's servers write to a pipe
    from accounts.models import User
    from accounts.services import token_create
    from games import services
    from games.engine import RuleSet

    staff = User.objects.create_user("bench-staff", is_staff=True)
    tables = []
    for g in range(games):
        players = [User.objects.create_user(f"bench-{g}-{s}") for s in range(4)]
        game = services.game_create(
            by=players[0], rules=RuleSet.preset("2021", seats=4, ending="classic")
        )
        for player in players[1:]:
            services.game_join(game=game, user=player)
        game = services.game_start(
            game=game, by=staff, seed=1000 + g if seeds is None else seeds[g]
        )
        tokens = [token_create(user=p, name="bench")[1] for p in players]
        tables.append((game.pk, tokens, game.to_act))
    return tables


def bare_ms(client: Any, token: str, requests: int) -> float:
    """CPU ms per bare read/write request (after 50 to warm up)."""
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    for _ in range(50):
        client.post("/api/v1/bench/rw/", **auth)
    started = time.process_time()
    for _ in range(requests):
        client.post("/api/v1/bench/rw/", **auth)
    return (time.process_time() - started) / requests * 1000


def action_ms(client: Any, tables: list[Table]) -> float:
    """CPU ms per action POST, over every table's game played to its end."""
    rng, spent = random.Random(1), list[float]()
    for table in tables:
        play(client, table, rng, spent)
    return sum(spent) / len(spent) * 1000


def play(
    client: Any, table: Table, rng: random.Random, spent: list[float] | None = None
) -> list[tuple[int, bytes]]:
    """Play ``table``'s game to its end as api.py's clients do (GET the decision unless
    the last answer carried it, POST one of its legal actions): the (seat, body) of every
    action POST, and the CPU seconds of each appended to ``spent``."""
    game, tokens, seat = table
    auths = [{"HTTP_AUTHORIZATION": f"Bearer {token}"} for token in tokens]
    url = f"/api/v1/games/{game}"
    posts, decision = [], None
    while seat is not None:
        if decision is None:
            reply = client.get(f"{url}/decision/", **auths[seat])
            decision = orjson.loads(reply.content)["decision"]
        body = orjson.dumps(
            {"action": rng.choice(decision["legal_actions"]), "version": decision["version"]}
        )
        posts.append((seat, body))
        started = time.process_time()
        response = client.post(f"{url}/actions/", body, "application/json", **auths[seat])
        if spent is not None:
            spent.append(time.process_time() - started)
        result = orjson.loads(response.content)
        seat, decision = result["game"]["to_act"], result["decision"]
    return posts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--bare", type=int, default=1500)
    parser.add_argument("--database", default="cya_inprocess_bench")
    args = parser.parse_args()
    url = bench_database_url(args.database)
    recreate_database(url)
    tables = setup(url, args.games)
    from django.test import Client

    from accounts.models import User
    from accounts.services import token_create

    client = Client()
    token = token_create(user=User.objects.create_user("bench-bare"), name="bare")[1]
    bare, action = bare_ms(client, token, args.bare), action_ms(client, tables)
    print(f"CPU per request (ms): bare {bare:.3f}, action {action:.3f}")
    print(f"bare_ms={bare:.3f} action_ms={action:.3f} ratio={bare / action:.3f}")


if __name__ == "__main__":
    main()
