"""``manage.py seed_demo``: demo players, finished games and a running one (idempotent).

``make run`` calls it on every start; once the demo players exist it does nothing.
Games are played through the same services as the API, with seeded random-legal moves.
"""

from __future__ import annotations

import random
from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.models import User
from games import services, store
from games.engine import RuleSet, action_to_json, legal_actions
from games.models import Game

DEMO_PASSWORD = "cover-your-assets"
PLAYERS = ("alice", "bob", "carol", "dave")
GAMES: tuple[tuple[dict[str, Any], int, int | None], ...] = (
    # (rule options, seats, decisions to play; None = to the end)
    ({"ending": "quick"}, 4, None),
    ({"ending": "highest_after_n", "ending_rounds": 2}, 3, None),
    ({}, 2, None),
    ({"ending": "quick", "advanced": {"penny_jar": True, "improve_set": True}}, 4, None),
    ({}, 4, 37),  # a game in progress
)


class Command(BaseCommand):
    help = "Create demo players and games (does nothing if they already exist)."

    def handle(self, *args: Any, **options: Any) -> None:
        if User.objects.filter(username__in=PLAYERS).exists():
            self.stdout.write("Demo data is already loaded.")
            return
        with transaction.atomic():
            users = [self._player(name) for name in PLAYERS]
            for index, (rule_options, seats, decisions) in enumerate(GAMES):
                self._game(users[:seats], rule_options, seats, decisions, seed=1000 + index)
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo players {', '.join(PLAYERS)} (password {DEMO_PASSWORD!r}) "
                f"and {len(GAMES)} games are ready."
            )
        )

    def _player(self, name: str) -> User:
        return User.objects.create_user(name, f"{name}@example.com", DEMO_PASSWORD)

    def _game(
        self,
        users: list[User],
        rule_options: dict[str, Any],
        seats: int,
        decisions: int | None,
        *,
        seed: int,
    ) -> Game:
        rules = RuleSet.preset("2021", seats=seats, **rule_options)
        game = services.game_create(by=users[0], rules=rules)
        for user in users[1:]:
            services.game_join(game=game, user=user)
        # A demo seed: these games are examples, not contests.
        game = services.game_start(game=game, by=_staff(), seed=seed)
        rng = random.Random(seed)
        played = 0
        while game.status == Game.Status.ACTIVE and (decisions is None or played < decisions):
            state = store.load_state(game)
            action = rng.choice(legal_actions(state))
            services.action_submit(
                game_id=game.pk,
                user=users[state.to_act],
                action=action_to_json(action, rules.edition),
                version=game.version,
            )
            game.refresh_from_db()
            played += 1
        return game


def _staff() -> User:
    staff, created = User.objects.get_or_create(
        username="demo-admin", defaults={"is_staff": True, "is_superuser": True}
    )
    if created:
        staff.set_password(DEMO_PASSWORD)
        staff.save()
    return staff
