"""Reads of users and tokens shared by the API, the pages and authentication."""

from django.db.models import QuerySet
from django.utils.translation import gettext as _

from accounts import store
from accounts.keys import key_hash
from accounts.models import ApiToken, User
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

    Every authenticated request runs this: the read is accounts.store's statement.
    """
    return store.token_with_user(key_hash(key))
