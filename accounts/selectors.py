"""Reads of users and tokens shared by the API, the pages and authentication."""

from functools import cache
from typing import cast

from django.db.models import QuerySet
from django.utils.translation import gettext as _

from accounts.keys import key_hash
from accounts.models import ApiToken, User
from cya_site import rows
from cya_site.errors import DomainError


def user_named(username: str | None) -> User | None:
    """The account with this username in any letter case; None for no name.

    Raises DomainError ``no_such_user`` for a name nobody has: the API and the pages
    name accounts the same way.
    """
    if not username:
        return None
    user = User.objects.filter(username__iexact=username).first()
    if user is None:
        raise DomainError(
            "no_such_user",
            _("Nobody here has the username “%(username)s”.") % {"username": username},
            {"username": username},
        )
    return user


def token_list(*, user: User) -> QuerySet[ApiToken]:
    """The user's tokens, revoked ones included, newest first."""
    return ApiToken.objects.filter(user=user).order_by("-created_at", "-id")


def token_get_by_key(*, key: str) -> ApiToken | None:
    """The token whose raw key is ``key`` (revoked or not), with its user, or None.

    Every authenticated request runs this, and compiling it through the ORM (a join of
    two models) cost a third of a cheap request's CPU: it is one statement built once
    (cya_site.rows), its rows loaded through the ORM's own converters.
    """
    found = rows.fetch_one(_token_sql(), [key_hash(key)], (_TOKEN, _USER))
    if found is None:
        return None
    token, user = found
    ApiToken.user.field.set_cached_value(token, user)
    return cast(ApiToken, token)


_TOKEN = rows.Columns(ApiToken, "t")
_USER = rows.Columns(User, "u")


@cache
def _token_sql() -> str:
    return (
        f"SELECT {_TOKEN.sql}, {_USER.sql} FROM {_TOKEN.table}"
        f" JOIN {_USER.table} ON u.id = t.user_id WHERE t.key_hash = %s"
    )
