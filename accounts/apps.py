from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Users and their API tokens."""

    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Register the bearer-token scheme with drf-spectacular."""
        from accounts import schema  # noqa: F401
