"""Recording games played with real cards: rounds entered, confirmed, disputed, corrected.

The ledger (``ScoreRecord`` and ``ScoreVote``) is the truth and is only ever appended to:
a correction is a new record superseding the old one, with who, when and why, and the
competition's change log keeps before and after. After every change the game's derived
rows (rounds, tallies, places: games.services.recorded_rounds_set) and the competition's
results are rebuilt from the effective records. Each change is checked against the deck
and the ending rules, and the rounds it leaves are scored, once, by the engine
(games.engine.recorded) before anything is written.

Who may do what: a seated player with an account, or an organiser, enters rounds; every
seated player with an account confirms (the one who entered it has); an organiser's
entry or confirmation settles a round at once; a dispute freezes the round until an
organiser corrects or confirms it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from cya_site.errors import DomainError
from games import services as game_services
from games.engine import RuleSet, ScoreError, recorded
from games.models import Game, Seat
from tournaments import refusals, results, selectors
from tournaments.changelog import log
from tournaments.models import (
    Competition,
    Competitor,
    GameEntry,
    GameNight,
    NightRound,
    ScoreRecord,
    ScoreVote,
    Substitution,
    TournamentRound,
)


@dataclass(frozen=True)
class RoundEntry:
    """What entering a round did: its record, and whether it was a retry of an earlier
    entry with the same idempotency key (which wrote nothing)."""

    record: ScoreRecord
    replayed: bool = False


@transaction.atomic
def recorded_game_create(
    *,
    by: User,
    competition: Competition,
    competitors: Sequence[Competitor],
    rules: RuleSet,
    night: GameNight | None = None,
    round_: TournamentRound | None = None,
    night_round: NightRound | None = None,
    table: int | None = None,
) -> Game:
    """Open a real-table game for these competitors, in seat order."""
    seated = {c.user_id for c in competitors if c.user_id}
    if not selectors.is_organiser(competition, by) and by.pk not in seated:
        raise DomainError(
            "permission_denied", "Organisers, or players at the table, record a game.", status=403
        )
    if len({c.pk for c in competitors}) != len(competitors):
        raise DomainError("duplicate_competitor", "A player can sit at a table only once.")
    if any(c.competition_id != competition.pk for c in competitors):
        raise DomainError("not_a_competitor", "Every player must be in this competition.")
    rules = rules.with_options(seats=len(competitors))
    game = game_services.recorded_game_create(
        by=by, rules=rules, players=[c.user for c in competitors]
    )
    results.games_enter(
        GameEntry(
            competition=competition,
            game=game,
            seat=n,
            competitor=c,
            night=night,
            round=round_,
            night_round=night_round,
            table=table,
        )
        for n, c in enumerate(competitors)
    )
    log(
        competition,
        by,
        "game_recorded",
        f"game {game.pk}",
        after={"players": [c.name for c in competitors]},
    )
    return game


def round_record(
    *, game: Game, by: User, dollars: list[int], key: str = "", number: int | None = None
) -> RoundEntry:
    """Enter the next round's dollars (idempotent with ``key``: a retry replays the first).

    ``number``, when given, is the round the sender meant to enter: if another phone
    entered (or an organiser removed) a round meanwhile, the entry is refused with
    ``409 stale_round`` instead of landing as a different round.
    """
    try:
        return _round_record(game=game, by=by, dollars=dollars, key=key, number=number)
    except IntegrityError:  # the same key, committed by a concurrent first attempt
        if key and ScoreRecord.objects.filter(game=game, idempotency_key=key).exists():
            return _round_record(game=game, by=by, dollars=dollars, key=key, number=number)
        raise


@transaction.atomic
def _round_record(
    *, game: Game, by: User, dollars: list[int], key: str, number: int | None
) -> RoundEntry:
    game = _locked_recorded(game)
    if key:
        earlier = ScoreRecord.objects.filter(game=game, idempotency_key=key).first()
        if earlier is not None:
            if earlier.actor_id != by.pk:
                raise DomainError(
                    "idempotency_key_reused", "That key belongs to another entry.", status=409
                )
            return RoundEntry(earlier, replayed=True)
    competition = _competition_of(game)
    organiser = selectors.is_organiser(competition, by)
    seat = _seat_of(game, by)
    if seat is None and not organiser:
        raise DomainError(
            "not_seated", "Only the table's players or an organiser enter rounds.", status=403
        )
    rules = RuleSet.from_json(game.rules)
    rounds = _effective(game)
    if number is not None and number != len(rounds) + 1:
        raise DomainError(
            "stale_round",
            _(
                "The next round is round %(next)d: round %(number)d was entered or removed "
                "meanwhile. Look at the sheet again before entering."
            )
            % {"next": len(rounds) + 1, "number": number},
            {"next_round": len(rounds) + 1},
            409,
        )
    if any(r.status == ScoreRecord.Status.DISPUTED for r in rounds):
        raise DomainError(
            "round_disputed", _("A disputed round must be settled first."), status=409
        )
    try:
        recorded.check_round(rules, dollars)
        scored = recorded.outcome(rules, [r.dollars for r in rounds] + [dollars])
    except ScoreError as error:
        raise refusals.score_refusal(error, rules) from None
    record = ScoreRecord.objects.create(
        game=game,
        round_number=len(rounds) + 1,
        dollars=dollars,
        kind=ScoreRecord.Kind.ENTER,
        actor=by,
        idempotency_key=key,
    )
    ScoreVote.objects.create(
        record=record,
        voter=by,
        verdict=ScoreVote.Verdict.CONFIRM,
        as_organiser=organiser and seat is None,
    )
    # the league decides whether the table still confirms what an organiser entered
    settles = organiser and seat is None and _organiser_entries_settle(competition)
    _settle(record, game, organiser_decides=settles)
    _derive(game, competition, scored)
    log(
        competition,
        by,
        "round_entered",
        f"game {game.pk} round {record.round_number}",
        after=dollars,
    )
    return RoundEntry(record)


@transaction.atomic
def round_vote(*, record: ScoreRecord, by: User, verdict: str, reason: str = "") -> ScoreRecord:
    """A seated player (or an organiser) confirms or disputes an entered round."""
    game = _locked_recorded(record.game)
    record = ScoreRecord.objects.select_for_update().get(pk=record.pk)
    if hasattr(record, "superseded_by"):
        raise DomainError("record_superseded", "A newer record replaced this one.", status=409)
    competition = _competition_of(game)
    organiser = selectors.is_organiser(competition, by)
    seat = _seat_of(game, by)
    if seat is None and not organiser:
        raise DomainError(
            "not_seated", "Only the table's players or an organiser vote.", status=403
        )
    if verdict not in ScoreVote.Verdict.values:
        raise DomainError("invalid", "verdict must be confirm or dispute", {"field": "verdict"})
    if verdict == ScoreVote.Verdict.DISPUTE and not reason.strip():
        raise DomainError("reason_required", "Say why the round is wrong.", {"field": "reason"})
    # An organiser's confirmation settles the round; an organiser's dispute freezes it
    # like anyone's (it used to settle it as confirmed too). An organiser who entered the
    # round (their entry waits for the table, by the league's setting) settles it too.
    settles = organiser and seat is None and verdict == ScoreVote.Verdict.CONFIRM
    voted = ScoreVote.objects.filter(record=record, voter=by).exists()
    if voted and not settles:
        raise DomainError("already_voted", "You have already voted on this round.", status=409)
    if not voted:
        ScoreVote.objects.create(
            record=record,
            voter=by,
            verdict=verdict,
            reason=reason,
            as_organiser=organiser and seat is None,
        )
    _settle(record, game, organiser_decides=settles)
    rules = RuleSet.from_json(game.rules)
    _derive(game, competition, recorded.outcome(rules, [r.dollars for r in _effective(game)]))
    subject = f"game {game.pk} round {record.round_number}"
    log(
        competition,
        by,
        f"round_{verdict}ed" if verdict == "confirm" else "round_disputed",
        subject,
        reason=reason,
    )
    return record


@transaction.atomic
def round_correct(
    *, game: Game, round_number: int, by: User, dollars: list[int] | None, reason: str
) -> ScoreRecord:
    """An organiser replaces a round's dollars (or removes the round: ``dollars`` None)."""
    game = _locked_recorded(game)
    competition = _competition_of(game)
    if not selectors.is_organiser(competition, by):
        raise DomainError("permission_denied", "Only an organiser corrects a round.", status=403)
    if not reason.strip():
        raise DomainError("reason_required", "Every correction says why.", {"field": "reason"})
    rounds = _effective(game)
    if not 1 <= round_number <= len(rounds):
        raise DomainError(
            "no_such_round",
            f"The game has rounds 1 to {len(rounds)}.",
            {"rounds": len(rounds)},
            status=404,  # as for votes on a round that does not exist: one code, one status
        )
    old = rounds[round_number - 1]
    rules = RuleSet.from_json(game.rules)
    if dollars is not None:
        corrected = [r.dollars for r in rounds]
        corrected[round_number - 1] = dollars
        try:
            recorded.check_round(rules, dollars)
            scored = recorded.outcome(rules, corrected)
        except ScoreError as error:
            raise refusals.score_refusal(error, rules) from None
    elif round_number != len(rounds):
        raise DomainError("not_last_round", "Only the last round can be removed; correct others.")
    else:
        scored = recorded.outcome(rules, [r.dollars for r in rounds[:-1]])
    record = ScoreRecord.objects.create(
        game=game,
        round_number=round_number,
        dollars=dollars if dollars is not None else old.dollars,
        kind=ScoreRecord.Kind.CORRECT if dollars is not None else ScoreRecord.Kind.VOID,
        status=ScoreRecord.Status.CONFIRMED,
        supersedes=old,
        actor=by,
        reason=reason,
    )
    _derive(game, competition, scored)
    action = "round_corrected" if dollars is not None else "round_removed"
    log(
        competition,
        by,
        action,
        f"game {game.pk} round {round_number}",
        reason=reason,
        before=old.dollars,
        after=dollars,
    )
    return record


# --- internals ------------------------------------------------------------------------------


def _locked_recorded(game: Game) -> Game:
    game = Game.objects.select_for_update().get(pk=game.pk)
    if game.mode != Game.Mode.RECORDED:
        raise DomainError("not_recorded", "This game is played on the platform.", status=409)
    if game.status == Game.Status.ABORTED:
        raise DomainError("game_over", "The game was voided.", status=409)
    return game


def _competition_of(game: Game) -> Competition:
    entry = GameEntry.objects.filter(game=game).select_related("competition").first()
    if entry is None:
        raise DomainError("not_found", "This game belongs to no competition.", status=404)
    return entry.competition


def _seat_of(game: Game, user: User) -> int | None:
    """The seat the user plays: their own, or one they took as a substitute."""
    taken = Substitution.objects.filter(game=game, substitute_user=user)
    seat = taken.values_list("seat", flat=True).first()
    if seat is not None:
        return seat
    return Seat.objects.filter(game=game, user=user).values_list("number", flat=True).first()


def _sitters(game: Game) -> set[int]:
    """The accounts whose confirmation a round waits for: the seats' players, but for a
    seat taken by a substitute, the substitute's account (if any) instead of theirs."""
    accounts = dict(
        Seat.objects.filter(game=game, user__isnull=False).values_list("number", "user_id")
    )
    for seat, user_id in Substitution.objects.filter(game=game).values_list(
        "seat", "substitute_user_id"
    ):
        accounts.pop(seat, None)
        if user_id is not None:
            accounts[seat] = user_id
    return set(accounts.values())


def resettle(*, game: Game) -> None:
    """Settle again the rounds still waiting, after who sits at the table changed (a
    substitute): a round the absent player alone held up is confirmed. The caller holds
    the game's lock and takes the results in."""
    waiting = [r for r in _effective(game) if r.status == ScoreRecord.Status.PENDING]
    for record in waiting:
        _settle(record, game, organiser_decides=False)


def _effective(game: Game) -> list[ScoreRecord]:
    """The game's current rounds: the newest record of each, removed rounds left out."""
    current = ScoreRecord.objects.filter(game=game, superseded_by__isnull=True).order_by(
        "round_number"
    )
    return [r for r in current if r.kind != ScoreRecord.Kind.VOID]


def _organiser_entries_settle(competition: Competition) -> bool:
    """The league's setting: does an organiser's entry count at once? A tournament of no
    league keeps the default: the table confirms it."""
    league = selectors.league_of(competition)
    return league is not None and league.organiser_entries_settle


def _settle(record: ScoreRecord, game: Game, *, organiser_decides: bool) -> None:
    """Confirmed once every seated account confirmed, or an organiser did; a dispute freezes it."""
    votes = list(ScoreVote.objects.filter(record=record))
    if organiser_decides:
        record.status = ScoreRecord.Status.CONFIRMED
    elif any(v.verdict == ScoreVote.Verdict.DISPUTE for v in votes):
        record.status = ScoreRecord.Status.DISPUTED
    else:
        accounts = _sitters(game)
        confirmed = {v.voter_id for v in votes if v.verdict == ScoreVote.Verdict.CONFIRM}
        if accounts <= confirmed:
            record.status = ScoreRecord.Status.CONFIRMED
    record.save(update_fields=["status"])


def _derive(game: Game, competition: Competition, scored: recorded.Outcome) -> None:
    """Rebuild the game's rows and the competition's results from the effective rounds,
    as the engine scored them (``scored``: computed once per change, by the caller)."""
    game_services.recorded_rounds_set(game=game, scored=scored)
    game.refresh_from_db()
    now = timezone.now()
    results.take_in(competition=competition, game=game, now=now)
