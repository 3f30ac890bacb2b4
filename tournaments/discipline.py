"""Substitutes and penalties: an organiser seats a substitute for a player who left a
recorded game, or takes points or dollars off a standing, always with a reason.

Both land in the competition's change log. A substitution rebuilds the game's results at
once (tournaments.results), closing the old rows, so the standings' clock of record shows
the standings before and after it; a penalty is read by the standings from when it was
given (tournaments.selectors.penalties_at). docs/tournaments.md, "Substitutes and
penalties", states each rule and its effect.
"""

from __future__ import annotations

import math
from datetime import date

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from cya_site.errors import DomainError
from games.models import Game, Seat
from tournaments import recording, results, selectors
from tournaments.changelog import log
from tournaments.models import (
    Competition,
    Competitor,
    GameEntry,
    GameNight,
    Member,
    Penalty,
    ScoreRecord,
    SubstitutePolicy,
    Substitution,
    TournamentRound,
)

MAX_PENALTY_POINTS = 1000.0  # far beyond any season's total: a typo, not a penalty
MAX_PENALTY_DOLLARS = 10**12  # BigInteger-safe, and beyond any season's dollars


def _require_organiser(competition: Competition, by: User) -> None:
    if not selectors.is_organiser(competition, by):
        raise DomainError("permission_denied", _("Only an organiser may do that."), status=403)


def _reason(reason: str) -> str:
    if not reason.strip():
        raise DomainError(
            "reason_required", _("Say why, for everyone to read."), {"field": "reason"}
        )
    return reason.strip()


def substitute_policy(competition: Competition) -> str:
    """The league's policy for a player who left; a tournament of no league: fixed."""
    league = selectors.league_of(competition)
    return league.substitute_policy if league is not None else SubstitutePolicy.FIXED.value


@transaction.atomic
def substitute_seat(
    *,
    game: Game,
    by: User,
    seat: int,
    reason: str,
    name: str = "",
    member: Member | None = None,
) -> Substitution:
    """Seat a substitute (a roster ``member``, or a guest by ``name``) at a recorded game
    for the player at ``seat``, who left, from the next round on (organisers only).

    The seat's player keeps the game, scored by the league's policy (kept on the row);
    the substitute's own play counts for nobody. A substitute with an account enters and
    confirms rounds for the seat, and the absent player's confirmation is no longer
    waited for. Raises ``permission_denied`` (403), ``not_recorded``/``game_over`` (409),
    ``no_such_seat`` (422), ``seat_substituted`` (409), ``substitute_at_table`` (422),
    ``name_required``/``reason_required`` (422).
    """
    game = Game.objects.select_for_update().get(pk=game.pk)
    if game.mode != Game.Mode.RECORDED:
        raise DomainError("not_recorded", _("This game is played on the platform."), status=409)
    entries = list(GameEntry.objects.filter(game=game).select_related("competitor", "competition"))
    if not entries:
        raise DomainError("not_found", _("This game belongs to no competition."), status=404)
    competition = entries[0].competition
    _require_organiser(competition, by)
    if game.status != Game.Status.ACTIVE:
        raise DomainError("game_over", _("The game has ended: nobody can take a seat."), status=409)
    entry = next((e for e in entries if e.seat == seat), None)
    if entry is None:
        raise DomainError(
            "no_such_seat",
            _("The table has seats 1 to %(n)d.") % {"n": len(entries)},
            {"field": "seat", "seats": len(entries)},
        )
    if Substitution.objects.filter(game=game, seat=seat).exists():
        raise DomainError(
            "seat_substituted",
            _("%(name)s already has a substitute.") % {"name": entry.competitor.name},
            {"field": "seat"},
            409,
        )
    why = _reason(reason)
    user = member.user if member is not None else None
    who = (member.name if member is not None else name).strip()
    if not who:
        raise DomainError("name_required", _("Name the substitute."), {"field": "name"})
    seated_users = set(Seat.objects.filter(game=game).values_list("user_id", flat=True))
    seated_users |= set(
        Substitution.objects.filter(game=game).values_list("substitute_user_id", flat=True)
    )
    seated_names = {e.competitor.name.casefold() for e in entries}
    seated_names |= {
        n.casefold()
        for n in Substitution.objects.filter(game=game).values_list("substitute_name", flat=True)
    }
    if who.casefold() in seated_names or (user is not None and user.pk in seated_users):
        raise DomainError(
            "substitute_at_table",
            _("%(name)s is already at this table.") % {"name": who},
            {"field": "member" if member is not None else "name"},
        )
    played = (
        ScoreRecord.objects.filter(game=game, superseded_by__isnull=True)
        .exclude(kind=ScoreRecord.Kind.VOID)
        .count()
    )
    substitution = Substitution.objects.create(
        competition=competition,
        game=game,
        seat=seat,
        absent=entry.competitor,
        substitute_name=who,
        substitute_user=user,
        from_round=played + 1,
        policy=substitute_policy(competition),
        reason=why,
        actor=by,
    )
    # the absent player's confirmation is no longer waited for: rounds it held up settle
    recording.resettle(game=game)
    results.take_in(competition=competition, game=game, now=timezone.now())
    log(
        competition,
        by,
        "substitute_seated",
        f"game {game.pk} seat {seat + 1}",
        reason=why,
        before={"player": entry.competitor.name},
        after={
            "substitute": who,
            "from_round": substitution.from_round,
            "policy": substitution.policy,
        },
    )
    return substitution


def substitutions_of(competition: Competition) -> QuerySet[Substitution]:
    """The competition's substitutions, first to last, with whom they concern."""
    return Substitution.objects.filter(competition=competition).select_related(
        "absent", "actor", "game"
    )


@transaction.atomic
def penalty_give(
    *,
    competition: Competition,
    by: User,
    competitor: Competitor,
    kind: str,
    amount: float,
    reason: str,
    night: GameNight | None = None,
) -> Penalty:
    """Take placement points or whole dollars off a competitor's standing (organisers
    only), with a reason everyone reads. A season's penalty is given at ``night`` (by
    default the last night up to today); a tournament's at the round in play (or the last
    one played; before the start, the first).

    Raises ``permission_denied`` (403), ``not_a_competitor``, ``invalid_kind``,
    ``invalid_amount``, ``reason_required`` (422), ``no_such_night`` (404).
    """
    _require_organiser(competition, by)
    if competitor.competition_id != competition.pk:
        raise DomainError(
            "not_a_competitor",
            _("Every player must be in this competition."),
            {"field": "competitor"},
        )
    if kind not in Penalty.Kind.values:
        raise DomainError(
            "invalid_kind", _("A penalty is in points or dollars."), {"field": "kind"}
        )
    _check_amount(kind, amount)
    why = _reason(reason)
    round_: TournamentRound | None = None
    if hasattr(competition, "tournament"):
        if night is not None:
            raise DomainError(
                "no_such_night", _("A tournament has no nights."), {"field": "night"}, 404
            )
        # the round in play, or the last one played: a round robin plans every round ahead
        started = competition.tournament.round_set.exclude(status=TournamentRound.Status.SEATED)
        round_ = (
            started.order_by("-number").first()
            or competition.tournament.round_set.order_by("number").first()
        )
    elif night is None:
        night = _last_night(competition, timezone.localdate())
    elif night.season.competition_id != competition.pk:
        raise DomainError(
            "no_such_night", _("This season has no such night."), {"field": "night"}, 404
        )
    penalty = Penalty.objects.create(
        competition=competition,
        competitor=competitor,
        kind=kind,
        amount=amount,
        reason=why,
        night=night,
        round=round_,
        actor=by,
    )
    where = f" at the night of {night.date}" if night else ""
    where = f" in round {round_.number}" if round_ else where
    log(
        competition,
        by,
        "penalty_given",
        f"{competitor.name}{where}",
        reason=why,
        after={"kind": kind, "amount": amount},
    )
    return penalty


@transaction.atomic
def penalty_withdraw(*, penalty: Penalty, by: User, reason: str) -> Penalty:
    """Withdraw a penalty given by mistake (organisers), with a reason everyone reads in
    the change log: from now on it counts on neither standings clock; the clock of record
    before now still shows it. Nothing is deleted.

    Raises ``permission_denied`` (403), ``reason_required`` (422), ``already_withdrawn``
    (409).
    """
    penalty = Penalty.objects.select_for_update().select_related("competitor").get(pk=penalty.pk)
    competition = penalty.competition
    _require_organiser(competition, by)
    why = _reason(reason)
    if penalty.withdrawn_at is not None:
        raise DomainError(
            "already_withdrawn",
            _("This penalty was withdrawn already."),
            {"penalty": penalty.pk},
            status=409,
        )
    penalty.withdrawn_at = timezone.now()
    penalty.withdrawn_by = by
    penalty.withdraw_reason = why
    penalty.save(update_fields=["withdrawn_at", "withdrawn_by", "withdraw_reason"])
    log(
        competition,
        by,
        "penalty_withdrawn",
        penalty.competitor.name,
        reason=why,
        before={"kind": penalty.kind, "amount": penalty.amount},
    )
    return penalty


def _check_amount(kind: str, amount: float) -> None:
    if kind == Penalty.Kind.POINTS:
        if not (math.isfinite(amount) and 0 < amount <= MAX_PENALTY_POINTS):
            raise DomainError(
                "invalid_amount",
                _("A points penalty is more than 0 and at most %(max)g points.")
                % {"max": MAX_PENALTY_POINTS},
                {"field": "amount"},
            )
    elif not (
        math.isfinite(amount) and amount == int(amount) and 0 < amount <= MAX_PENALTY_DOLLARS
    ):
        raise DomainError(
            "invalid_amount",
            _("A dollars penalty is a whole number of dollars, more than $0."),
            {"field": "amount"},
        )


def _last_night(competition: Competition, today: date) -> GameNight | None:
    return (
        GameNight.objects.filter(season__competition=competition, date__lte=today)
        .order_by("-date", "-id")
        .first()
    )
