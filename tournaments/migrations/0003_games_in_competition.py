"""Mark every game a competition already counts (Game.in_competition, games 0009): from
now on tournaments.results.games_enter marks a game as it enters it."""

from typing import Any

from django.db import migrations


def mark(apps: Any, schema_editor: Any) -> None:
    Game = apps.get_model("games", "Game")
    GameEntry = apps.get_model("tournaments", "GameEntry")
    counted = GameEntry.objects.values("game_id")
    Game.objects.filter(pk__in=counted, in_competition=False).update(in_competition=True)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0009_game_in_competition"),
        ("tournaments", "0002_roster_checkins_night_rounds"),
    ]

    operations = [migrations.RunPython(mark, migrations.RunPython.noop)]
