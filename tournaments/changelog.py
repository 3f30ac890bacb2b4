"""A competition's change log: every change an organiser (or the platform) makes is
appended here, by this one function, from whichever module makes it (services, the
roster, nights, recording, running)."""

from __future__ import annotations

from accounts.models import User
from tournaments.models import ChangeLog, Competition


def log(
    competition: Competition,
    actor: User | None,
    action: str,
    subject: str,
    *,
    reason: str = "",
    before: object = None,
    after: object = None,
) -> None:
    """Append one entry to the competition's change log."""
    ChangeLog.objects.create(
        competition=competition,
        actor=actor,
        action=action,
        subject=subject,
        reason=reason,
        before=before,
        after=after,
    )
