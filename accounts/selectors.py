"""Reads of users and tokens shared by the API and authentication."""

from django.db.models import QuerySet

from accounts.keys import key_hash
from accounts.models import ApiToken, User


def token_list(*, user: User) -> QuerySet[ApiToken]:
    """The user's tokens, revoked ones included, newest first."""
    return ApiToken.objects.filter(user=user).order_by("-created_at", "-id")


def token_get_by_key(*, key: str) -> ApiToken | None:
    """The token whose raw key is ``key`` (revoked or not), with its user, or None.

    Every authenticated request runs this: ``get`` on the unique hash, not ``first()``,
    whose ORDER BY costs the ORM as much again to compile.
    """
    try:
        return ApiToken.objects.select_related("user").get(key_hash=key_hash(key))
    except ApiToken.DoesNotExist:
        return None
