from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "bots"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Provide games with bot seats (games.seating) and the owners' decision logs
        (games.decision_logs, games.signals.bot_acted): games cannot import bots."""
        from bots import belongings, decision_log, metrics
        from bots.tables import Players
        from cya_site.metrics import read_at_scrape
        from games import decision_logs, seating, signals

        seating.provide(Players())
        read_at_scrape(metrics.matches)  # cya_matches on /metrics
        belongings.register()  # a person's bots in their data download and deletion
        # an API-client bot's decisions, kept in its owner's decision log
        signals.bot_acted.connect(decision_log.on_bot_acted, dispatch_uid="bots.decision_log")
        decision_logs.provide(decision_log.ReplayReader())  # shown to owners in the replay
