"""The writers of an account's life after registering: a new password, a new email address
(confirmed from that address before it replaces the old one), a password reset by email,
the data download and deleting the account.

None of them tells whether an address belongs to an account: a reset asked for an unknown
address, or an address taken by another account, answers just as a known one does (no
account enumeration). Rates are the callers' (the ``mail`` and ``account`` scopes), but
for one: an address receives at most ``THROTTLE_MAIL_TO`` mails, however many clients
ask (``mail_to``), and past it nothing is sent and the answer is the same.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.tokens import default_token_generator
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import transaction
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_str
from django.utils.http import urlsafe_base64_decode
from django.utils.translation import gettext as _

from accounts import belongings
from accounts.models import ApiToken, User
from accounts.services import DELETED_PREFIX
from cya_site import throttling
from cya_site.errors import DomainError

_EMAIL_SALT = "accounts.email-change"
EXPORT_FORMAT = 1


def mail_allowed(address: str) -> bool:
    """Whether one more mail may go to ``address`` (counted: the ``mail_to`` rate). The
    address is kept only as a hash in the counter's key."""
    digest = hashlib.sha256(address.strip().lower().encode()).hexdigest()[:32]
    return throttling.rate_spent("mail_to", f"to:{digest}") is None


class ResetForm(PasswordResetForm):
    """Django's reset form, its mails counted per address (``mail_allowed``)."""

    def send_mail(
        self,
        subject_template_name: str,
        email_template_name: str,
        context: dict[str, Any],
        from_email: str | None,
        to_email: str,
        html_email_template_name: str | None = None,
    ) -> None:
        if mail_allowed(to_email):
            super().send_mail(
                subject_template_name,
                email_template_name,
                context,
                from_email,
                to_email,
                html_email_template_name,
            )


def _wrong_password() -> DomainError:
    return DomainError("wrong_password", _("That is not your current password."), status=403)


def _link_invalid() -> DomainError:
    return DomainError(
        "link_invalid",
        _("This link has expired or was used already: ask for a new one."),
    )


def _validated(password: str, user: User) -> None:
    try:
        validate_password(password, user=user)
    except ValidationError as error:
        reasons = [{"code": e.code, "message": " ".join(e.messages)} for e in error.error_list]
        raise DomainError("weak_password", " ".join(error.messages), {"reasons": reasons}) from None


def tokens_revoke_all(*, user: User, keep: ApiToken | None = None) -> int:
    """Revoke every API token of ``user`` but ``keep``; how many were revoked."""
    tokens = ApiToken.objects.filter(user=user, revoked_at__isnull=True)
    if keep is not None:
        tokens = tokens.exclude(pk=keep.pk)
    return tokens.update(revoked_at=timezone.now())


@transaction.atomic
def user_password_change(
    *, user: User, current: str, new: str, keep_token: ApiToken | None = None
) -> User:
    """Set a new password after checking the current one. Every other session ends (the
    session hash changes with the password; the caller keeps its own by
    ``update_session_auth_hash``) and every API token but ``keep_token`` is revoked.

    Raises DomainError ``wrong_password`` (403) and ``weak_password``.
    """
    if not user.check_password(current):
        raise _wrong_password()
    _validated(new, user)
    user.set_password(new)
    user.save(update_fields=["password"])
    tokens_revoke_all(user=user, keep=keep_token)
    return user


def email_change_request(*, user: User, email: str, request: HttpRequest) -> None:
    """Mail a confirmation link to the new address; the account keeps its old address
    until the link is followed. The link is signed, names the account and both addresses,
    and works for ``PASSWORD_RESET_TIMEOUT`` seconds and only while the old address is
    still the account's. Whether another account uses the address is never said."""
    email = User.objects.normalize_email(email)
    token = signing.dumps({"u": user.pk, "e": email, "o": user.email}, salt=_EMAIL_SALT)
    link = request.build_absolute_uri(reverse("email-confirm", args=[token]))
    context = {"user": user, "link": link, "token": token, "email": email}
    if mail_allowed(email):
        send_mail(
            _("Confirm your new email address"),
            render_to_string("accounts/email/confirm_email.txt", context),
            None,
            [email],
        )


@transaction.atomic
def email_change_confirm(*, token: str) -> User:
    """Make the address a confirmation link names the account's address.

    Raises DomainError ``link_invalid`` for a link that is forged, expired, used, or
    whose account changed its address since (or was deleted)."""
    try:
        claim = signing.loads(token, salt=_EMAIL_SALT, max_age=settings.PASSWORD_RESET_TIMEOUT)
    except signing.BadSignature:
        raise _link_invalid() from None
    user = User.objects.select_for_update().filter(pk=claim["u"], is_active=True).first()
    if user is None or user.email != claim["o"] or user.email == claim["e"]:
        raise _link_invalid()
    old = user.email
    user.email = claim["e"]
    user.save(update_fields=["email"])
    if old:  # the old address hears of it: a stolen session cannot move the account quietly
        context = {"user": user, "email": user.email}
        transaction.on_commit(
            lambda: send_mail(
                _("Your email address was changed"),
                render_to_string("accounts/email/email_changed.txt", context),
                None,
                [old],
            )
        )
    return user


def password_reset_request(*, email: str, request: HttpRequest) -> None:
    """Mail a reset link to every active account with a password under this address, as
    Django's reset page does (the same form and templates); nothing is said either way."""
    form = ResetForm(data={"email": email})
    if form.is_valid():
        form.save(
            request=request,
            use_https=request.is_secure(),
            subject_template_name="accounts/email/password_reset_subject.txt",
            email_template_name="accounts/email/password_reset.txt",
        )


@transaction.atomic
def password_reset_confirm(*, uid: str, token: str, password: str) -> User:
    """Set the password a reset link's ``uid`` and ``token`` allow (Django's token: it is
    spent once the password changes). Every session and token of the account ends.

    Raises DomainError ``link_invalid`` and ``weak_password``."""
    try:
        pk = force_str(urlsafe_base64_decode(uid))
        user = User.objects.select_for_update().filter(pk=int(pk), is_active=True).first()
    except (ValueError, TypeError, OverflowError):
        user = None
    if user is None or not default_token_generator.check_token(user, token):
        raise _link_invalid()
    _validated(password, user)
    user.set_password(password)
    user.save(update_fields=["password"])
    tokens_revoke_all(user=user)
    return user


def user_export(*, user: User) -> dict[str, Any]:
    """Everything the platform keeps about ``user`` as one JSON value: the account, its
    tokens (never a key nor its hash) and every app's section (accounts.belongings)."""
    tokens = ApiToken.objects.filter(user=user).order_by("created_at", "id")
    return {
        "format": EXPORT_FORMAT,
        "exported_at": timezone.now().isoformat(),
        "account": {
            "id": user.pk,
            "username": user.username,
            "email": user.email,
            "date_joined": user.date_joined.isoformat(),
            "last_login": user.last_login.isoformat() if user.last_login else None,
            "language": user.language,
            "is_guest": user.is_guest,
        },
        "tokens": [
            {
                "name": t.name,
                "prefix": t.prefix,
                "created_at": t.created_at.isoformat(),
                "last_used_at": t.last_used_at.isoformat() if t.last_used_at else None,
                "revoked_at": t.revoked_at.isoformat() if t.revoked_at else None,
            }
            for t in tokens
        ],
        **belongings.export_sections(user),
    }


@transaction.atomic
def user_delete(*, user: User, password: str) -> User:
    """Delete the person from the account, keeping its row: games, score sheets and
    standings point at it, so it becomes ``deleted-player-…`` with no email, no name, no
    password and no tokens, inactive (every session ends). Each app renames what showed
    the person's name (accounts.belongings). A guest has no password to give.

    Raises DomainError ``wrong_password`` (403); a bot's account cannot be deleted this
    way (``permission_denied``: its owner retires the bot)."""
    user = User.objects.select_for_update().get(pk=user.pk)
    if user.is_bot:
        raise DomainError(
            "permission_denied", _("A bot's account is retired by its owner."), status=403
        )
    if not user.is_guest and not user.check_password(password):
        raise _wrong_password()
    shown_as = f"{DELETED_PREFIX}{secrets.token_hex(4)}"
    for step in belongings.departure_steps():
        step(user, shown_as)
    user.username = shown_as
    user.email = user.first_name = user.last_name = ""
    user.set_unusable_password()
    user.is_active = user.is_staff = user.is_superuser = False
    user.deleted_at = timezone.now()
    user.save()
    user.groups.clear()
    user.user_permissions.clear()
    tokens_revoke_all(user=user)
    return user
