"""Users (humans and bots) and their API tokens."""

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone


class User(AbstractUser):
    """A person, or a bot owned by a person (``is_bot``)."""

    is_bot = models.BooleanField(
        default=False, help_text="A bot account: plays through the API with tokens only."
    )
    is_guest = models.BooleanField(
        default=False,
        help_text="A guest: plays from one browser's session, no password; registering "
        "turns the guest into a full account, keeping its games.",
    )
    deleted_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="When the person deleted the account: the row stays, renamed "
        "“deleted-player-…” and emptied, so games, sheets and standings keep their seats.",
    )
    language = models.CharField(
        max_length=8,
        blank=True,
        choices=settings.LANGUAGES,
        help_text="Pages in this language once signed in; blank follows the browser.",
    )

    class Meta:
        constraints = (
            # "Alice" and "alice" are one name: no one can impersonate a player by case.
            models.UniqueConstraint(Lower("username"), name="accounts_user_username_ci_unique"),
        )

    def __str__(self) -> str:
        return self.username


class ApiToken(models.Model):
    """A bearer token: the raw key is shown once at creation, only its hash is stored."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=8, db_index=True, editable=False)
    key_hash = models.CharField(max_length=64, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ("-created_at", "-id")
        constraints = (
            models.UniqueConstraint(fields=["key_hash"], name="accounts_apitoken_key_hash_unique"),
        )

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.name})"

    @property
    def is_active(self) -> bool:
        """Whether the token still authenticates."""
        return self.revoked_at is None
