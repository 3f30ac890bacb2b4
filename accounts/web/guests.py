"""Playing as a guest: a visitor who taps "Play as a guest" is signed in as a new guest
user (accounts.services.user_guest_create), tied to this browser's session. Counted per
client address against the ``guest`` rate (THROTTLE_GUEST), so a script cannot mint
accounts; registering later keeps the guest's games (the register page turns the guest
into the account)."""

from __future__ import annotations

from django.contrib.auth import login
from django.http import HttpRequest
from django.utils.translation import gettext as _

from accounts import services
from accounts.models import User
from cya_site.errors import DomainError
from cya_site.throttling import page_rate_spent


def guest_sign_in(request: HttpRequest) -> User:
    """The signed-in user, or a new guest signed in on this session.

    Raises DomainError ``too_many_guests`` (429) once this address has made its rate of
    guests; nothing is created then."""
    user = request.user
    if isinstance(user, User):
        return user
    wait = page_rate_spent(request, "guest")
    if wait is not None:
        raise DomainError(
            "too_many_guests",
            _("Too many guests from here: try again in %(seconds)d seconds, or register.")
            % {"seconds": max(1, round(wait))},
            {"wait_seconds": max(1, round(wait))},
            status=429,
        )
    guest = services.user_guest_create()
    login(request, guest, backend="django.contrib.auth.backends.ModelBackend")
    return guest
