"""``manage.py ratings_recompute``: rebuild people's ratings, online and in every league,
from their games (docs/ratings.md). The same history gives the same ratings."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from tournaments import people_ratings


class Command(BaseCommand):
    help = "Recompute every person's rating, online and per league, from the games played."

    def handle(self, *args: Any, **options: Any) -> None:
        done = people_ratings.ratings_recompute()
        self.stdout.write(
            f"Recomputed the online ratings from {done['online_games']} rated games "
            f"and the club ratings of {done['leagues']} leagues."
        )
