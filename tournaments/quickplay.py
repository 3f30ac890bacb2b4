"""Quick pairing: "play a person now". People wait in a queue per table size and rules
preset; a table starts as soon as enough of them fit each other's rating range, which
widens the longer each waits, or, for someone who chose it, with bots in the empty seats
after the wait they chose. Tables made here are rated (docs/ratings.md).

Concurrency: pairing a queue locks its waiting tickets (``SELECT ... FOR UPDATE``, oldest
first), so two pairings of one queue run one after the other and a ticket is seated once;
leaving is a conditional ``UPDATE ... WHERE status = 'waiting'``, so it either happens
before the pairing that would have seated the person, or fails with ``already_seated``
naming the table. One waiting ticket per person (a unique index): nobody waits twice.
Pairing runs when someone joins, and whenever a waiting person asks how it goes (the
page and the API poll), so bot fills happen on time without a scheduler.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from cya_site.errors import DomainError
from games import services as game_services
from games.engine.rules import PRESETS, RuleSet
from games.models import Game
from games.seating import BotChoice
from tournaments import people_ratings
from tournaments.models import PersonRating, QueueTicket

START_RANGE = 5.0  # rating points (mu - 3 sigma) either side at first
WIDEN_PER_SECOND = 0.25  # ... plus this for every second waited
ANYONE_AFTER = 120  # seconds: then anyone in the queue will do
BOT_FILL_CHOICES = (15, 30, 60, 120)  # seconds a person may choose to wait before bots fill
BOT_STRATEGY = "greedy"
SEAT_CHOICES = (2, 3, 4, 5, 6)


@dataclass(frozen=True)
class Waiting:
    key: int
    rating: float
    waited: float  # seconds
    bot_fill_after: int | None


def rating_range(waited: float) -> float | None:
    """How far from their rating a person's table mates may be after waiting ``waited``
    seconds; None: anyone."""
    if waited >= ANYONE_AFTER:
        return None
    return START_RANGE + WIDEN_PER_SECOND * waited


def _fits(a: Waiting, b: Waiting) -> bool:
    """Whether two may share a table: within the wider of their two ranges, so the one who
    waited longer decides (a newcomer is seated with someone who waited long for them)."""
    ranges = [rating_range(a.waited), rating_range(b.waited)]
    if None in ranges:
        return True
    return abs(a.rating - b.rating) <= max(r for r in ranges if r is not None)


def tables(waiting: Sequence[Waiting], seats: int) -> list[tuple[list[int], int]]:
    """The tables to start now (pure): each the keys of its people, oldest first, and its
    number of bot seats. The longest waiting is served first; every pair at a table fits
    (``_fits``). A person whose bot fill is due gets a table at once, bots in the seats
    that people who fit do not take."""
    left = list(waiting)
    out: list[tuple[list[int], int]] = []
    while left:
        first = left[0]
        group = [first]
        for other in left[1:]:
            if len(group) == seats:
                break
            if all(_fits(other, g) for g in group):
                group.append(other)
        due = first.bot_fill_after is not None and first.waited >= first.bot_fill_after
        if len(group) == seats or due:
            out.append(([g.key for g in group], seats - len(group)))
            left = [w for w in left if w not in group]
        else:
            left.pop(0)
    return out


def _rating(user: User) -> float:
    pool = people_ratings.online_pool()
    held = PersonRating.objects.filter(pool=pool, user=user).first()
    return held.conservative if held is not None else PersonRating().conservative


def queue_join(
    *, user: User, seats: int, preset: str, bot_fill_after: int | None = None
) -> QueueTicket:
    """Wait for a rated table of ``seats`` with the ``preset`` rules; pairs the queue at
    once. Raises DomainError ``already_queued`` (409) for someone waiting already, and
    ``invalid`` for a size, preset or bot wait not offered; a bot cannot queue."""
    if user.is_bot:
        raise DomainError("permission_denied", _("Bots play on the ladder, not here."), status=403)
    for field, value, offered in (
        ("seats", seats, SEAT_CHOICES),
        ("preset", preset, tuple(PRESETS)),
        ("bot_fill_after", bot_fill_after, (None, *BOT_FILL_CHOICES)),
    ):
        if value not in offered:
            raise DomainError("invalid", _("Choose one of the offered values."), {"field": field})
    try:
        with transaction.atomic():
            ticket = QueueTicket.objects.create(
                user=user,
                seats=seats,
                preset=preset,
                rating=_rating(user),
                bot_fill_after=bot_fill_after,
            )
    except IntegrityError:
        raise DomainError(
            "already_queued", _("You are waiting for a table already."), status=409
        ) from None
    queue_pair(seats=seats, preset=preset)
    ticket.refresh_from_db()
    return ticket


@transaction.atomic
def queue_pair(*, seats: int, preset: str, now: datetime | None = None) -> list[Game]:
    """Start every table the queue of ``seats`` and ``preset`` can fill now (its waiting
    tickets locked meanwhile, oldest first); the games started."""
    now = now or timezone.now()
    waiting = list(
        QueueTicket.objects.select_for_update()
        .filter(status=QueueTicket.Status.WAITING, seats=seats, preset=preset)
        .select_related("user")
        .order_by("joined_at", "id")
    )
    by_id = {t.pk: t for t in waiting}
    found = tables(
        [
            Waiting(t.pk, t.rating, (now - t.joined_at).total_seconds(), t.bot_fill_after)
            for t in waiting
        ],
        seats,
    )
    games = []
    for keys, bots in found:
        tickets = [by_id[k] for k in keys]
        game = _table([t.user for t in tickets], bots, seats, preset)
        QueueTicket.objects.filter(pk__in=keys).update(
            status=QueueTicket.Status.SEATED, game=game, ended_at=now
        )
        games.append(game)
    return games


def queues_pair_all(now: datetime | None = None) -> list[Game]:
    """Pair every queue with someone waiting (beat's ``tournaments.pair_queues``): a bot
    fill that came due, or a rating range that widened, seats people who are not
    polling (their page closed), not only at the next join."""
    queues = (
        QueueTicket.objects.filter(status=QueueTicket.Status.WAITING)
        .values_list("seats", "preset")
        .distinct()
    )
    return [
        game
        for seats, preset in sorted(set(queues))
        for game in queue_pair(seats=seats, preset=preset, now=now)
    ]


def _table(people: list[User], bots: int, seats: int, preset: str) -> Game:
    rules = RuleSet.preset(preset, seats=seats)
    choices = [BotChoice(seat=n, strategy=BOT_STRATEGY) for n in range(len(people), seats)]
    game = game_services.game_create(
        by=people[0], rules=rules, bots=choices, auto_start=True, rated=True
    )
    for number, person in enumerate(people[1:], start=1):
        game_services.game_join(game=game, user=person, seat=number)
    return game


def queue_leave(*, user: User) -> None:
    """Leave the queue. Raises DomainError ``already_seated`` (409, with the ``game``) when
    a pairing seated the person first, ``not_queued`` (404) when they were not waiting."""
    left = QueueTicket.objects.filter(user=user, status=QueueTicket.Status.WAITING).update(
        status=QueueTicket.Status.LEFT, ended_at=timezone.now()
    )
    if left:
        return
    last = QueueTicket.objects.filter(user=user).order_by("-joined_at", "-id").first()
    if last is not None and last.status == QueueTicket.Status.SEATED and last.game_id:
        raise DomainError(
            "already_seated",
            _("A table was found for you first: it is waiting for you."),
            {"game": last.game_id},
            status=409,
        )
    raise DomainError("not_queued", _("You are not waiting for a table."), status=404)


def queue_ticket(*, user: User) -> QueueTicket:
    """The person's latest wait, its queue paired first if they are still waiting.
    Raises DomainError ``not_queued`` (404) for someone who never queued."""
    ticket = QueueTicket.objects.filter(user=user).order_by("-joined_at", "-id").first()
    if ticket is None:
        raise DomainError("not_queued", _("You are not waiting for a table."), status=404)
    if ticket.status == QueueTicket.Status.WAITING:
        queue_pair(seats=ticket.seats, preset=ticket.preset)
        ticket.refresh_from_db()
    return ticket
