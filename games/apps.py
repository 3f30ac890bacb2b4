from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Add the games sections to a person's data download (accounts.belongings)."""
        from games import belongings

        belongings.register()
