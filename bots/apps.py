from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "bots"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Provide games with bot seats (games.seating: games cannot import bots)."""
        from bots import belongings, metrics
        from bots.tables import Players
        from cya_site.metrics import read_at_scrape
        from games import seating

        seating.provide(Players())
        read_at_scrape(metrics.matches)  # cya_matches on /metrics
        belongings.register()  # a person's bots in their data download and deletion
