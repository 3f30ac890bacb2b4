"""What exported files are called: a name that says what is in them and as of when."""

from __future__ import annotations

from datetime import date, datetime

from django.utils import timezone
from django.utils.text import slugify

from tournaments.models import Competition, GameNight


def standings_filename(
    competition: Competition,
    *,
    as_of: datetime | None = None,
    night: GameNight | None = None,
    after_night: date | None = None,
    after_round: int | None = None,
) -> str:
    """``tuesday-club-spring-standings-after-2026-03-03-as-of-2026-03-04.csv``."""
    parts = [slugify(competition.name) or f"competition-{competition.pk}", "standings"]
    if night is not None:
        parts.append(f"night-{night.date.isoformat()}")
    if after_night is not None:
        parts.append(f"after-{after_night.isoformat()}")
    if after_round is not None:
        parts.append(f"after-round-{after_round}")
    if as_of is not None:
        parts.append(f"as-of-{timezone.localtime(as_of).date().isoformat()}")
    return "-".join(parts) + ".csv"


def games_filename(competition: Competition) -> str:
    """``tuesday-club-spring-games.csv``."""
    return f"{slugify(competition.name) or f'competition-{competition.pk}'}-games.csv"
