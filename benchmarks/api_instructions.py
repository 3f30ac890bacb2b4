"""The gunicorn side of api.py in instructions, which a busy machine does not change.

    python benchmarks/api_instructions.py [--bare 200] [--database cya_instructions_bench]

``api_inprocess.py`` counts CPU time, which a shared machine's neighbours still move by
10 % and more a run; this counts the instructions the same requests execute, under
valgrind's callgrind (on every machine here), which gives the same count whatever else
runs. It is about 50 times slower than the real thing: a minute or so. Two trees, or a
change and its absence, compare to a fraction of a percent; instructions are not time
(a cache miss costs more than an add), so speed figures still come from api.py.

In one process, through Django's WSGI handler as api_inprocess.py does: ``--bare`` POSTs
of the bare read/write endpoint, and the action POSTs of one complete game of four
seats. The game's actions are chosen first on a twin game (same seed, GET /decision/
then a random legal action), uncounted, then sent again to the counted one, so only the
action POSTs are counted. Only the requests are counted: valgrind starts with counting
off and the script turns it on around each phase (``callgrind_control``). Needs
PostgreSQL, Redis (as api_inprocess.py) and valgrind.

The last line is read by tools:
``bare_minstr=<millions a request> action_minstr=<millions an action> ratio=<bare/action>``.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.api import bench_database_url, recreate_database  # noqa: E402
from benchmarks.api_inprocess import play, setup  # noqa: E402

UNDER = "CYA_UNDER_CALLGRIND"  # set to the output directory when running under valgrind
SEED = 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bare", type=int, default=200)
    parser.add_argument("--database", default="cya_instructions_bench")
    args = parser.parse_args()
    if UNDER not in os.environ:
        sys.exit(_under_valgrind())
    url = bench_database_url(args.database)
    recreate_database(url)
    twin, counted_game = setup(url, 2, seeds=[SEED, SEED])
    from django.test import Client

    from accounts.models import User
    from accounts.services import token_create

    client = Client()
    posts = play(client, twin, random.Random(1))
    game, tokens, _ = counted_game
    auths: list[dict[str, Any]] = [{"HTTP_AUTHORIZATION": f"Bearer {t}"} for t in tokens]

    def actions() -> None:
        for seat, body in posts:
            reply = client.post(
                f"/api/v1/games/{game}/actions/", body, "application/json", **auths[seat]
            )
            if reply.status_code not in (200, 201):
                raise RuntimeError(f"the twin game's action was refused: {reply.content!r}")

    bare_token = token_create(user=User.objects.create_user("bench-bare"), name="bare")[1]
    bare_auth: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Bearer {bare_token}"}

    def bare() -> None:
        for _ in range(args.bare):
            client.post("/api/v1/bench/rw/", **bare_auth)

    for _ in range(30):  # warm up, as the actions' twin game did
        client.post("/api/v1/bench/rw/", **bare_auth)
    bare_i = _counted(bare) / args.bare
    action_i = _counted(actions) / len(posts)
    print(f"instructions per request: bare {bare_i / 1e6:.3f} M, action {action_i / 1e6:.3f} M")
    print(f"({args.bare} bare requests, {len(posts)} actions of one game)")
    bare_m, action_m = bare_i / 1e6, action_i / 1e6
    print(f"bare_minstr={bare_m:.3f} action_minstr={action_m:.3f} ratio={bare_i / action_i:.3f}")


def _under_valgrind() -> int:
    """Run this script again under callgrind, counting off until it says; its exit code."""
    if shutil.which("valgrind") is None:
        print("benchmarks/api_instructions.py needs valgrind (apt-get install valgrind)")
        return 1
    with tempfile.TemporaryDirectory(prefix="cya-callgrind-") as out:
        command = [
            "valgrind", "--tool=callgrind", "--instr-atstart=no", "--quiet",
            f"--callgrind-out-file={out}/out.%p", sys.executable, *sys.argv,
        ]  # fmt: skip
        return subprocess.run(command, env={**os.environ, UNDER: out}, check=False).returncode


def _counted(phase: Callable[[], None]) -> int:
    """The instructions ``phase`` executes (this process, every thread)."""
    out = Path(os.environ[UNDER])

    def control(*flags: str) -> None:
        subprocess.run(
            ["callgrind_control", *flags, str(os.getpid())], check=True, capture_output=True
        )

    control("--zero")
    control("--instr=on")
    phase()
    control("--instr=off")
    control("--dump")
    dumps = sorted(out.glob(f"out.{os.getpid()}.*"), key=lambda p: int(p.suffix[1:]))
    for line in dumps[-1].read_text().splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
    raise RuntimeError(f"callgrind wrote no totals in {dumps[-1]}")


if __name__ == "__main__":
    main()
