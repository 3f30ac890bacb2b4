from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Take a competition game's result in as soon as the game ends (tournaments.tasks)."""
        from games.signals import game_ended
        from tournaments import belongings
        from tournaments.tasks import on_game_ended

        game_ended.connect(on_game_ended, dispatch_uid="tournaments.take_result")
        belongings.register()  # rosters and sheets in a person's data download and deletion
