"""What a fault test's platform starts with, written through the services like anything else.

Run in a process of its own against the platform's database (``python -m tests.faults.seed
KIND ...`` with ``DATABASE_URL`` set: tests.faults.platform does it), because the test
process's Django talks to the suite's test database. Prints what the test needs as JSON.

- ``ladder COUNT``: COUNT ready built-in bots (greedy, shark, random...), each entered by
  an owner of its own (the platform's own built-ins only play beside entrants).
- ``tournament URL SECRET [URL SECRET ...]``: one owner and one ready webhook bot per
  pair (kept off the ladder), entered into a bot round robin (quick games) that is
  started: its first round's matches are sent to the workers, each decision a call to a
  bot of the test's.
- ``people``: two players, alice and bob, and a bearer token each.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import django


def ladder(count: str) -> dict[str, Any]:
    from accounts.models import User
    from bots import services
    from bots.models import Bot, BotVersion

    versions = []
    for i in range(int(count)):
        owner = User.objects.create_user(username=f"house-owner{i}", is_staff=True)
        bot = services.bot_create(owner=owner, name=f"house{i}", kind=Bot.Kind.BUILTIN)
        strategy = ("greedy", "shark", "random")[i % 3]
        versions.append(
            BotVersion.objects.create(
                bot=bot, number=1, strategy=strategy, status=BotVersion.Status.READY
            ).pk
        )
    return {"versions": versions}


def webhooks(pairs: list[str]) -> list[int]:
    from accounts.models import User
    from bots import services
    from bots.models import Bot, BotVersion

    versions = []
    for i in range(0, len(pairs), 2):
        url, secret = pairs[i], pairs[i + 1]
        owner = User.objects.create_user(username=f"owner{i // 2}")
        bot = services.bot_create(owner=owner, name=f"hook{i // 2}", kind=Bot.Kind.WEBHOOK)
        versions.append(
            BotVersion.objects.create(
                bot=bot, number=1, url=url, secret=secret, status=BotVersion.Status.READY
            ).pk
        )
    return versions


def tournament(pairs: list[str]) -> dict[str, Any]:
    from bots.models import Bot, BotVersion
    from games.engine import RuleSet
    from tests.factories import UserFactory
    from tournaments import running
    from tournaments.models import Tournament

    versions = BotVersion.objects.filter(pk__in=webhooks(pairs)).order_by("pk")
    Bot.objects.filter(versions__in=versions).update(is_active=False)  # not on the ladder
    organiser = UserFactory.create(username="organiser")
    cup = running.tournament_create(
        by=organiser,
        name="Fault Cup",
        format=Tournament.Format.ROUND_ROBIN,
        entrants=Tournament.Entrants.BOTS,
        rules=RuleSet.preset("2021", ending="quick"),
        rounds=2,
        table_sizes=[3],
        preferred_size=3,
        seed=11,
        decision_ms=2000,
        time_bank_ms=5000,
    )
    for version in versions:
        running.entrant_add(tournament=cup, by=organiser, bot_version=version)
    running.tournament_start(tournament=cup, by=organiser)
    return {"tournament": cup.pk}


def people() -> dict[str, Any]:
    from accounts.models import User
    from accounts.services import token_create

    tokens = {}
    for name in ("alice", "bob"):
        user = User.objects.create_user(username=name, password="cover-your-assets")
        tokens[name] = token_create(user=user, name="faults")[1]
    return {"tokens": tokens}


def main(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cya_site.settings")
    django.setup()
    kind, rest = argv[0], argv[1:]
    made = {"ladder": lambda: ladder(*rest), "tournament": lambda: tournament(rest)}
    made["people"] = people
    print(json.dumps(made[kind]()))


if __name__ == "__main__":
    main(sys.argv[1:])
