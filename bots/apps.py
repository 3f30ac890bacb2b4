from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "bots"
    default_auto_field = "django.db.models.BigAutoField"
