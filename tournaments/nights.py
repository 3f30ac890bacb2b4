"""A league's game night: who came (check-in), and seating draws among them.

A draw seats the checked-in players at tables of the preferred size (4 unless asked),
with tables of 5 or 3 where the count demands (``seating.table_sizes``), chosen by the
seating optimiser so that players who met less this season meet now
(``seating.schedule`` continuing the season's meetings). Each table gets a recorded
game, whose score sheet its players keep (tournaments.recording). One transaction each.
"""

from __future__ import annotations

import copy
import secrets
from collections import defaultdict
from collections.abc import Sequence

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from accounts.models import User
from cya_site.errors import DomainError
from games.engine import RuleSet
from games.models import Game
from tournaments import recording, roster, seating, selectors
from tournaments.changelog import log
from tournaments.models import (
    CheckIn,
    Competitor,
    GameEntry,
    GameNight,
    Member,
    NightRound,
)
from tournaments.services import competitor_of_member, require_organiser

DEFAULT_PREFERRED = 4


def sizes_around(preferred: int) -> tuple[int, ...]:
    """Tables of the preferred size, and one more or one fewer where the count demands
    (within 2 to 6): 4 gives 3, 4, 5."""
    return tuple(s for s in (preferred - 1, preferred, preferred + 1) if 2 <= s <= 6)


DEFAULT_SIZES = sizes_around(DEFAULT_PREFERRED)


@transaction.atomic
def night_check_in(*, night: GameNight, by: User, member: Member) -> CheckIn:
    """Check a roster member in (organisers, or the member themself when signed in).

    The member becomes a competitor of the season if not one yet. Checking in twice is
    ``409 already_checked_in``.
    """
    night = _locked(night)
    competition = night.season.competition
    organiser = selectors.is_organiser(competition, by)
    if not organiser and (member.user_id is None or member.user_id != by.pk):
        raise DomainError(
            "permission_denied", _("Only an organiser checks other players in."), status=403
        )
    if member.league_id != night.season.league_id:
        raise DomainError(
            "not_on_roster", _("That player is not on this club's roster."), {"member": member.pk}
        )
    competitor = competitor_of_member(competition=competition, member=member, by=by)
    if CheckIn.objects.filter(night=night, competitor=competitor).exists():
        raise DomainError(
            "already_checked_in",
            _("%(name)s is already checked in.") % {"name": competitor.name},
            status=409,
        )
    try:
        with transaction.atomic():
            checkin = CheckIn.objects.create(night=night, competitor=competitor, by=by)
    except IntegrityError:  # a double tap racing the first
        raise DomainError(
            "already_checked_in",
            _("%(name)s is already checked in.") % {"name": competitor.name},
            status=409,
        ) from None
    log(competition, by, "checked_in", f"night {night.date}", after={"player": competitor.name})
    return checkin


@transaction.atomic
def night_check_in_newcomer(
    *, night: GameNight, by: User, name: str, user: User | None = None
) -> CheckIn:
    """Someone new at the door: put them on the roster and check them in (organisers)."""
    member = roster.member_add(league=night.season.league, by=by, name=name, user=user)
    return night_check_in(night=night, by=by, member=member)


@transaction.atomic
def night_check_out(*, night: GameNight, by: User, member: Member) -> None:
    """Undo a check-in (organisers, or the member themself): later draws leave them out.

    Tables already drawn keep them; ``404 not_checked_in`` if they were not checked in.
    """
    night = _locked(night)
    competition = night.season.competition
    if not selectors.is_organiser(competition, by) and member.user_id != by.pk:
        raise DomainError(
            "permission_denied", _("Only an organiser checks other players out."), status=403
        )
    deleted, _rows = CheckIn.objects.filter(night=night, competitor__member=member).delete()
    if not deleted:
        raise DomainError(
            "not_checked_in", _("%(name)s is not checked in.") % {"name": member.name}, status=404
        )
    log(competition, by, "checked_out", f"night {night.date}", after={"player": member.name})


@transaction.atomic
def night_draw(
    *,
    night: GameNight,
    by: User,
    table_sizes: Sequence[int] = DEFAULT_SIZES,
    preferred_size: int = DEFAULT_PREFERRED,
    seed: int | None = None,
) -> NightRound:
    """Seat the checked-in players for the night's next round, one recorded game a table.

    Organisers only. Refused with ``409 round_not_finished`` while a table of the
    night's last round is still playing, and ``400 cannot_seat`` when the players
    cannot fill tables of the allowed sizes.
    """
    night = _locked(night)
    competition = night.season.competition
    require_organiser(competition, by)
    playing = _playing(night)
    if playing:
        raise DomainError(
            "round_not_finished",
            _("Some tables of the last round are still playing."),
            {"games": playing},
            409,
        )
    present = list(
        Competitor.objects.filter(checkins__night=night).select_related("user").order_by("number")
    )
    sizes = _sizes(len(present), table_sizes, preferred_size)
    seed = secrets.randbits(62) if seed is None else seed
    history = _history(night, [c.pk for c in present])
    plan = seating.schedule(  # it records the new round in the history it is given
        len(present),
        1,
        allowed=sizes,
        preferred=preferred_size,
        seed=seed,
        history=copy.deepcopy(history),
    )
    tables = [[present[i] for i in table] for table in plan.rounds[0]]
    number = (night.rounds.aggregate(n=Max("number"))["n"] or 0) + 1
    round_ = NightRound.objects.create(
        night=night,
        number=number,
        seed=seed,
        quality=_quality(history, plan.rounds[0]),
        created_by=by,
    )
    rules = RuleSet.from_json(night.season.league.rules)
    for index, seated in enumerate(tables):
        recording.recorded_game_create(
            by=by,
            competition=competition,
            competitors=seated,
            rules=rules,
            night=night,
            night_round=round_,
            table=index,
        )
    log(
        competition,
        by,
        "seating_drawn",
        f"night {night.date} round {number}",
        after={"tables": [[c.name for c in t] for t in tables], "seed": seed},
    )
    return round_


def _locked(night: GameNight) -> GameNight:
    """The night, locked: check-ins and draws of one night queue behind each other."""
    return (
        GameNight.objects.select_for_update(of=("self",))
        .select_related("season__competition", "season__league")
        .get(pk=night.pk)
    )


def _playing(night: GameNight) -> list[int]:
    """Games of the night's last round that have not ended."""
    last = night.rounds.order_by("-number").first()
    if last is None:
        return []
    return sorted(
        Game.objects.filter(competition_entries__night_round=last)
        .filter(status__in=(Game.Status.OPEN, Game.Status.ACTIVE))
        .values_list("pk", flat=True)
        .distinct()
    )


def _sizes(n: int, allowed: Sequence[int], preferred: int) -> list[int]:
    sizes = sorted(set(allowed))
    if not sizes or any(not 2 <= s <= 6 for s in sizes) or preferred not in sizes:
        raise DomainError(
            "invalid",
            _("Table sizes are from 2 to 6, and the preferred size is one of them."),
            {"field": "table_sizes"},
        )
    try:
        seating.table_sizes(n, sizes, preferred)
    except ValueError:
        raise DomainError(
            "cannot_seat",
            _("%(n)d checked-in players cannot be seated at tables of %(sizes)s.")
            % {"n": n, "sizes": ", ".join(map(str, sizes))},
            {"players": n, "table_sizes": sizes},
        ) from None
    return sizes


def _history(night: GameNight, present: list[int]) -> seating.History:
    """The season's meetings and seat positions among the players present (as indices
    of ``present``), and who shared a table in the night's last round."""
    index = {pk: i for i, pk in enumerate(present)}
    tables: dict[int, list[tuple[int, int]]] = defaultdict(list)
    last = night.rounds.order_by("-number").values_list("pk", flat=True).first()
    last_games: set[int] = set()
    entries = GameEntry.objects.filter(competition=night.season.competition).exclude(
        game__status=Game.Status.ABORTED
    )
    for game_id, seat, competitor_id, round_id in entries.values_list(
        "game_id", "seat", "competitor_id", "night_round_id"
    ):
        if competitor_id in index:
            tables[game_id].append((seat, index[competitor_id]))
            if last is not None and round_id == last:
                last_games.add(game_id)
    history = seating.History()
    for game_id, seated in tables.items():
        history.add_table(seated, last_round=game_id in last_games)
    return history


def _quality(history: seating.History, tables: list[list[int]]) -> dict[str, int]:
    """What the draw does, over the season so far among those present: the most times
    any pair seated together has now met, how many of them had met before, and how many
    also shared a table in the night's last round."""
    most = repeats = consecutive = 0
    for table in tables:
        for i, a in enumerate(table):
            for b in table[i + 1 :]:
                key = (a, b) if a < b else (b, a)
                before = history.meetings.get(key, 0)
                most = max(most, before + 1)
                repeats += before > 0
                consecutive += key in history.last_round
    return {"max_meetings": most, "repeated_pairs": repeats, "consecutive_repeats": consecutive}
