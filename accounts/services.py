"""The only writers of users and tokens. Each runs as one transaction.

Errors are DomainError with the stable codes of docs/errors.md.
"""

import secrets
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import lockout
from accounts.keys import key_hash, key_new, key_prefix
from accounts.models import ApiToken, User
from cya_site.errors import DomainError

# Authentication records a token's use at most this often: a write per request would
# turn every read of the API into a database write.
LAST_USED_RESOLUTION = timedelta(minutes=1)


def _username_taken(username: str) -> DomainError:
    return DomainError(
        "username_taken",
        _("The username “%(username)s” is taken.") % {"username": username},
        {"username": username},
        409,
    )


GUEST_PREFIX = "guest-"
# Deleted accounts keep their row under this prefix (accounts.lifecycle.user_delete).
DELETED_PREFIX = "deleted-player-"


@transaction.atomic
def user_guest_create() -> User:
    """A guest: a user with a fresh ``guest-…`` name and no password, who plays from the
    session it is signed into (the page that creates it signs it in). Rate limits are
    the caller's (the pages count guests per client address: THROTTLE_GUEST)."""
    while True:
        username = f"{GUEST_PREFIX}{secrets.token_hex(4)}"
        if not User.objects.filter(username__iexact=username).exists():
            break
    user = User(username=username, is_guest=True)
    user.set_unusable_password()
    user.save()
    return user


@transaction.atomic
def user_register(
    *, username: str, password: str, email: str = "", guest: User | None = None
) -> User:
    """Create a human user with a validated, hashed password; with ``guest`` (a guest
    user), that user becomes the account, so its games and seats stay its own.

    Raises DomainError ``username_invalid``, ``username_taken`` (409, case-insensitive)
    or ``weak_password`` (Django's password validators, reasons in details).
    """
    username = User.normalize_username(username)
    guest = guest if guest is not None and guest.is_guest else None
    try:
        User._meta.get_field("username").clean(username, None)
    except ValidationError as error:
        raise DomainError("username_invalid", " ".join(error.messages)) from None
    if username.lower().startswith(GUEST_PREFIX):
        raise DomainError(
            "username_invalid",
            _("Names beginning with “%(prefix)s” are kept for guests.") % {"prefix": GUEST_PREFIX},
        )
    if username.lower().startswith(DELETED_PREFIX):
        raise DomainError(
            "username_invalid",
            _("Names beginning with “%(prefix)s” are kept for deleted accounts.")
            % {"prefix": DELETED_PREFIX},
        )
    taken = User.objects.filter(username__iexact=username)
    if guest is not None:
        taken = taken.exclude(pk=guest.pk)
    if taken.exists():
        raise _username_taken(username)
    user = User() if guest is None else guest
    user.username = username
    user.email = User.objects.normalize_email(email)
    user.is_guest = False
    try:
        validate_password(password, user=user)
    except ValidationError as error:
        reasons = [{"code": e.code, "message": " ".join(e.messages)} for e in error.error_list]
        raise DomainError("weak_password", " ".join(error.messages), {"reasons": reasons}) from None
    user.set_password(password)
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:  # registered concurrently under the same name
        raise _username_taken(username) from None
    return user


def user_authenticate(*, username: str, password: str, request: HttpRequest) -> User:
    """The user with this username (any case) and password: the API's login and the
    sign-in page both check credentials here.

    ``request`` is the sign-in's own: the lockout (accounts.lockout) counts failures by
    account and by its client address. Raises DomainError ``locked_out`` (429) while the
    account or the address is locked out, whatever the password, and
    ``invalid_credentials`` for a wrong name or password or an inactive user.
    """
    canonical = (
        User.objects.filter(username__iexact=username).values_list("username", flat=True).first()
    )
    user = authenticate(request, username=canonical or username, password=password)
    if lockout.is_locked_out(request):
        raise lockout.locked_out_error()
    if not isinstance(user, User):
        raise DomainError("invalid_credentials", _("Wrong username or password."))
    return user


def user_login(
    *, username: str, password: str, token_name: str, request: HttpRequest
) -> tuple[User, ApiToken, str]:
    """Check a username (any case) and password, and issue a new token for the user.

    Returns the user, the token and its raw key, which is never stored. Raises DomainError
    ``locked_out`` and ``invalid_credentials`` as ``user_authenticate`` does. Not one
    transaction: a failed sign-in's record (the lockout's count) must outlive the refusal.
    """
    user = user_authenticate(username=username, password=password, request=request)
    token, key = token_create(user=user, name=token_name)
    return user, token, key


def user_language_set(*, user: User, language: str) -> User:
    """Keep a player's page language (one of settings.LANGUAGES, or blank: the browser's)."""
    if language and language not in dict(settings.LANGUAGES):
        raise DomainError(
            "invalid", _("Choose one of the offered languages."), {"field": "language"}
        )
    User.objects.filter(pk=user.pk).update(language=language)
    user.language = language
    return user


@transaction.atomic
def token_create(*, user: User, name: str) -> tuple[ApiToken, str]:
    """Issue a token for ``user``; returns it with the raw key, shown to the caller once."""
    key = key_new()
    token = ApiToken.objects.create(
        user=user, name=name, prefix=key_prefix(key), key_hash=key_hash(key)
    )
    return token, key


@transaction.atomic
def token_revoke(*, token: ApiToken, by: User) -> ApiToken:
    """Revoke ``token``; revoking a revoked token changes nothing (idempotent).

    Only the token's owner or staff may revoke it: others get DomainError
    ``permission_denied`` (403).
    """
    if by.pk != token.user_id and not by.is_staff:
        raise DomainError("permission_denied", "Only the token's owner may revoke it.", status=403)
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    token.refresh_from_db(fields=["revoked_at"])
    return token


def token_mark_used(*, token: ApiToken, now: datetime | None = None) -> bool:
    """Record that ``token`` authenticated a request, at most once per minute.

    Returns whether a write happened. The conditional UPDATE keeps concurrent requests
    from writing more than once per minute between them.
    """
    now = now or timezone.now()
    stale_before = now - LAST_USED_RESOLUTION
    if token.last_used_at is not None and token.last_used_at > stale_before:
        return False
    updated = (
        ApiToken.objects.filter(pk=token.pk)
        .filter(Q(last_used_at__isnull=True) | Q(last_used_at__lte=stale_before))
        .update(last_used_at=now)
    )
    token.last_used_at = now
    return updated == 1
