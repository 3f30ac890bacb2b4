"""Store snapshots as JSON bytes instead of jsonb (games.models.GameSnapshot).

Snapshots are derived caches: the old ones are dropped, and each game's next load
rebuilds its state from the seed and the action log (games.store).
"""

from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps


def drop_snapshots(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    apps.get_model("games", "GameSnapshot").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]

    operations = [
        migrations.RunPython(drop_snapshots, migrations.RunPython.noop),
        migrations.RemoveField(model_name="gamesnapshot", name="state"),
        migrations.AddField(
            model_name="gamesnapshot",
            name="state",
            field=models.BinaryField(
                default=b"", help_text="games.engine.state_to_json(state) as JSON bytes"
            ),
            preserve_default=False,
        ),
    ]
