"""The round clock of a game night: the organiser starts the round in play's clock with a
length and an end policy, may pause, resume or extend it; everyone reads the time left
from the server's clock.

The clock is kept as moments (started, paused, how long the ended pauses lasted, how
much was added), never as a countdown that ticks in a database, so a reload, a second
phone and the projector all read the same time left (``remaining``). Every change goes
into the season's change log.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import User
from cya_site.errors import DomainError
from tournaments.changelog import log
from tournaments.models import GameNight, NightRound, RoundClock
from tournaments.services import require_organiser

DEFAULT_MINUTES = 75  # Mahjong Pantheon's default round, the club standard we meet
MAX_MINUTES = 600
# What each end policy means at the tables, said on the sheets when time is up.
AT_TIME = {
    RoundClock.Policy.FINISH_ROUND: gettext_lazy(
        "Time is up: finish the round in play and record it; no new round starts. The "
        "game is decided on the tallies after it."
    ),
    RoundClock.Policy.STOP: gettext_lazy(
        "Time is up: stop now. The round in play does not count; the game is decided on "
        "the rounds already recorded."
    ),
}
POLICY_NAMES = {
    RoundClock.Policy.FINISH_ROUND: gettext_lazy("At time, the round in play is finished"),
    RoundClock.Policy.STOP: gettext_lazy("At time, play stops at once"),
}


@dataclass(frozen=True)
class ClockState:
    """A clock as read at one moment: what pages and the API show."""

    round: int
    length_seconds: int
    policy: str
    started_at: datetime
    paused: bool
    remaining_seconds: int  # never below 0
    ends_at: datetime | None  # None while paused

    @property
    def expired(self) -> bool:
        return self.remaining_seconds == 0

    @property
    def left_text(self) -> str:
        """The time left as the clock shows it: ``74:59``, ``1:05:00``."""
        hours, rest = divmod(self.remaining_seconds, 3600)
        minutes, seconds = divmod(rest, 60)
        if hours:
            return f"{hours}:{minutes:02d}:{seconds:02d}"
        return f"{minutes}:{seconds:02d}"

    @property
    def policy_text(self) -> str:
        return str(POLICY_NAMES[RoundClock.Policy(self.policy)])

    @property
    def at_time(self) -> str:
        """What the policy means at the tables, once time is up."""
        return str(AT_TIME[RoundClock.Policy(self.policy)])


def remaining(clock: RoundClock, now: datetime) -> float:
    """Seconds left at ``now`` (negative past time): the length and extensions, plus every
    pause (the one running too), minus the time since the start."""
    paused: float = clock.paused_seconds
    if clock.paused_at is not None:
        paused += (now - clock.paused_at).total_seconds()
    budget = clock.length_seconds + clock.extended_seconds + paused
    return budget - (now - clock.started_at).total_seconds()


def clock_state(clock: RoundClock, now: datetime | None = None) -> ClockState:
    """The clock as it stands at ``now`` (the server's clock by default)."""
    now = now or timezone.now()
    left = remaining(clock, now)
    ends = None if clock.paused_at else now + timedelta(seconds=max(left, 0))
    return ClockState(
        round=clock.night_round.number,
        length_seconds=clock.length_seconds + clock.extended_seconds,
        policy=clock.policy,
        started_at=clock.started_at,
        paused=clock.paused_at is not None,
        remaining_seconds=max(int(left + 0.999), 0),
        ends_at=ends,
    )


def night_clock(night: GameNight) -> ClockState | None:
    """The clock of the night's round in play (its last draw), if it was started."""
    clock = (
        RoundClock.objects.filter(night_round__night=night)
        .select_related("night_round")
        .order_by("-night_round__number")
        .first()
    )
    if clock is None or clock.night_round.number != _last_number(night):
        return None
    return clock_state(clock)


def _last_number(night: GameNight) -> int | None:
    last = NightRound.objects.filter(night=night).order_by("-number").first()
    return last.number if last else None


def _current(night: GameNight, by: User) -> NightRound:
    require_organiser(night.season.competition, by)
    last = NightRound.objects.filter(night=night).order_by("-number").first()
    if last is None:
        raise DomainError("no_round", _("Draw a round before starting its clock."), status=409)
    return last


def _locked_clock(night: GameNight, by: User) -> RoundClock:
    round_ = _current(night, by)
    clock = RoundClock.objects.select_for_update().filter(night_round=round_).first()
    if clock is None:
        raise DomainError("clock_not_started", _("This round's clock has not started."), status=409)
    return clock


def _log(night: GameNight, by: User, action: str, clock: RoundClock, **after: object) -> None:
    subject = f"night {night.date.isoformat()} round {clock.night_round.number} clock"
    log(night.season.competition, by, action, subject, after=after or None)


@transaction.atomic
def clock_start(
    *, night: GameNight, by: User, minutes: int = DEFAULT_MINUTES, policy: str
) -> RoundClock:
    """Start the clock of the night's round in play (organisers): ``minutes`` long, and at
    time ``policy``. Refused with ``409 clock_started`` when it already runs."""
    round_ = _current(night, by)
    if RoundClock.objects.filter(night_round=round_).exists():
        raise DomainError("clock_started", _("This round's clock has already started."), status=409)
    _minutes(minutes)
    clock = RoundClock.objects.create(
        night_round=round_, length_seconds=minutes * 60, policy=policy, started_by=by
    )
    _log(night, by, "clock_started", clock, minutes=minutes, policy=policy)
    return clock


@transaction.atomic
def clock_pause(*, night: GameNight, by: User) -> RoundClock:
    """Stop the time running (organisers); ``409 clock_paused`` if it is already paused."""
    clock = _locked_clock(night, by)
    if clock.paused_at is not None:
        raise DomainError("clock_paused", _("The clock is already paused."), status=409)
    clock.paused_at = timezone.now()
    clock.save(update_fields=["paused_at"])
    _log(night, by, "clock_paused", clock)
    return clock


@transaction.atomic
def clock_resume(*, night: GameNight, by: User) -> RoundClock:
    """Let the time run again (organisers); ``409 clock_running`` if it is not paused."""
    clock = _locked_clock(night, by)
    if clock.paused_at is None:
        raise DomainError("clock_running", _("The clock is not paused."), status=409)
    clock.paused_seconds += round((timezone.now() - clock.paused_at).total_seconds())
    clock.paused_at = None
    clock.save(update_fields=["paused_at", "paused_seconds"])
    _log(night, by, "clock_resumed", clock)
    return clock


@transaction.atomic
def clock_extend(*, night: GameNight, by: User, minutes: int) -> RoundClock:
    """Add ``minutes`` to the round (organisers), also after time is up."""
    clock = _locked_clock(night, by)
    _minutes(minutes)
    clock.extended_seconds += minutes * 60
    clock.save(update_fields=["extended_seconds"])
    _log(night, by, "clock_extended", clock, minutes=minutes)
    return clock


def clock_change(
    *,
    night: GameNight,
    by: User,
    action: str,
    minutes: int | None = None,
    policy: str = RoundClock.Policy.FINISH_ROUND,
) -> ClockState:
    """One organiser's action on the round clock, as the page and the API name it:
    ``start`` (``minutes``, default 75, and ``policy``), ``pause``, ``resume``, ``extend``
    (``minutes``, default 5). Returns the clock as it now stands."""
    if action == "start":
        clock = clock_start(night=night, by=by, minutes=minutes or DEFAULT_MINUTES, policy=policy)
    elif action == "pause":
        clock = clock_pause(night=night, by=by)
    elif action == "resume":
        clock = clock_resume(night=night, by=by)
    else:
        clock = clock_extend(night=night, by=by, minutes=minutes or 5)
    return clock_state(clock)


def _minutes(minutes: int) -> None:
    if not 1 <= minutes <= MAX_MINUTES:
        raise DomainError(
            "invalid_minutes",
            _("A round lasts from 1 to %(max)s minutes.") % {"max": MAX_MINUTES},
            {"field": "minutes"},
        )
