"""Playing a match's games: built-in seats in process, webhooks called, API clients awaited.

A game whose seats are all built-in (or on autopilot) is played in memory; a match's such
games are then written together, in one round trip and one transaction
(games.services.actions_record_all), with the match's result when they were its last. A
game with a webhook or API-client seat goes decision by decision through
games.services.action_submit: the runner calls the webhook with the seat's deadline
(per-decision limit plus what is left of its time bank) or waits for the API client to
act, and turns every fault into a strike and the engine's safe default. Everything is
resumable: each step starts from the game's stored version, so a rerun after a crash
picks up where the last one stopped, and built-in choices are seeded by (match, game,
version) so a rerun chooses the same.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from random import Random
from typing import NamedTuple, Protocol

from django.conf import settings
from django.utils import timezone

from bots import decision_log, health, services, webhook
from bots.leases import Fence, fenced, fenced_pipeline, unfenced
from bots.models import Bot, Match, SeatControl, Strike
from bots.persistence import games as game_rows
from bots.persistence.games import Seating
from bots.strategies import Strategy, decide, strategy
from bots.verdicts import judge, webhook_decision
from cya_site.errors import DomainError
from games import notify, store
from games import services as game_services
from games.engine import (
    State,
    action_to_json,
    default_action,
)
from games.models import Event, Game

AUTOPILOT = "greedy"


class Table(Protocol):
    """What playing a seat needs of the match or table it sits at."""

    @property
    def seed(self) -> int:
        """Seeds the built-in strategies' choices (with the game and version)."""
        ...

    @property
    def decision_ms(self) -> int:
        """The per-decision limit, before the seat's time bank."""
        ...


class Pace(NamedTuple):
    """A people's table as a ``Table``: its own seed, and its bots' per-decision limit."""

    seed: int
    decision_ms: int


def run_match(match: Match, fence: Fence = unfenced) -> Match:
    """Play every game of the match to its end, then aggregate and rate (exactly once);
    ``fence`` as for ``run_slice``."""
    seatings = game_rows.match_seatings(match.pk)
    games = game_rows.match_games(match.pk)
    in_memory = [g for g in games if _all_in_process(g, seatings[g.pk])]
    if in_memory:  # played first, and written together: one round trip for them all
        _run_in_memory(match, in_memory, seatings, fence)
    for game in games:
        if game not in in_memory:
            _run(match, game, seatings[game.pk], fence)
    with fenced(fence):
        return services.match_finish(match=match)


def run_slice(match: Match, seconds: float, fence: Fence = unfenced) -> bool:
    """Play the match's unfinished games one after another, the next one only while less
    than ``seconds`` have passed (one at least); True once none is left, the match then
    aggregated and rated (exactly once). A slice bounds how long a match holds a worker:
    a restart or a deploy costs at most the game it was playing, or, if every game left
    is of built-in seats, the slice's games (``_slice_in_memory``).

    ``fence`` runs inside the transaction of each finishing write (the games played in
    memory, each action and strike of a game stepped seat by seat, the match's result):
    bots.leases' ``Held.check``, which raises LeaseLost once another run has taken the
    match over, so this one writes nothing more."""
    until = time.monotonic() + seconds
    seatings = game_rows.match_seatings(match.pk)
    games = [g for g in game_rows.match_games(match.pk) if g.status == Game.Status.ACTIVE]
    if all(_all_in_process(game, seatings[game.pk]) for game in games):
        return _slice_in_memory(match, games, seatings, until, fence)
    for n, game in enumerate(games):
        if n and time.monotonic() >= until:
            return False
        _run(match, game, seatings[game.pk], fence)
    with fenced(fence):
        services.match_finish(match=match)
    return True


def _slice_in_memory(
    match: Match, games: list[Game], seatings: game_rows.Seatings, until: float, fence: Fence
) -> bool:
    """``run_slice`` for games whose every seat is decided here: each is played in memory,
    the next one only before ``until`` (one at least), then all are written in one
    transaction, its lease checked first (bots.leases.fenced_pipeline), with the match's
    result if none is left (then that check lets the lease go). A crash costs the slice's
    games, not one: built-in games end in milliseconds, and the next run plays them again
    as they were (seeded by match, game and version); a transaction a game cost the ladder
    more (benchmarks/README.md)."""
    played: list[Game] = []

    def in_time() -> Iterator[tuple[Game, Callable[[State], int]]]:  # each played in turn
        for n, game in enumerate(games):
            if n and time.monotonic() >= until:
                return
            played.append(game)
            yield game, _chooser(match, game, seatings[game.pk])

    @contextmanager
    def within() -> Iterator[None]:  # entered once they are played
        last = len(played) == len(games)  # then the run's last write: it lets the lease go
        with fenced_pipeline(fence, last=last):
            yield
            if last:
                services.match_finish(match=match)

    with notify.batch():  # the games' ends, announced once they commit: one round trip
        game_services.actions_record_all(in_time(), origin=Event.Origin.BUILTIN, within=within)
    return len(played) == len(games)


def _plays_in_process(autopilot: object, kind: str) -> bool:
    """Whether a seat is played here: on autopilot (truthy ``autopilot``), or built-in."""
    return bool(autopilot) or kind == Bot.Kind.BUILTIN


def _seating_in_process(seating: Seating) -> bool:
    return _plays_in_process(seating.autopilot, seating.kind)


def _seating_strategy(seating: Seating) -> str:
    """What plays a seat in process: its version's strategy, or the autopilot's."""
    return AUTOPILOT if seating.autopilot else seating.strategy


def _in_process(control: SeatControl) -> bool:
    return _plays_in_process(control.autopilot_since is not None, control.version.bot.kind)


def _choose(match: Table, game: Game, state: State, control: SeatControl) -> int:
    name = AUTOPILOT if control.autopilot_since is not None else control.version.strategy
    return _pick(match, game, state, strategy(name))


def _pick(match: Table, game: Game, state: State, chooser: Strategy) -> int:
    rng = Random(f"{match.seed}:{game.pk}:{state.version}")
    return decide(chooser, state, state.to_act, rng)


def run_game(match: Match, game: Game) -> Game:
    """Play one game to its end (or resume it)."""
    game.refresh_from_db()
    return _run(match, game, game_rows.game_seatings(game.pk))


def _run(match: Match, game: Game, seatings: dict[int, Seating], fence: Fence = unfenced) -> Game:
    """Play one game, read just now, to its end (or resume it)."""
    if game.status != Game.Status.ACTIVE:
        return game
    if _all_in_process(game, seatings):
        return _run_in_memory(match, [game], {game.pk: seatings}, fence)[0]
    with decision_log.batch():  # the bots' decisions, written once the game ends
        while True:
            game.refresh_from_db()
            if game.status != Game.Status.ACTIVE:
                return game
            state = store.load_state(game)
            control = SeatControl.objects.select_related("seat__user", "version__bot").get(
                pk=seatings[state.to_act].control_id
            )
            _step(match, game, state, control, fence)


def _all_in_process(game: Game, seatings: dict[int, Seating]) -> bool:
    """Whether an active game's every seat is decided here (``_run_in_memory``)."""
    return game.status == Game.Status.ACTIVE and all(map(_seating_in_process, seatings.values()))


def _run_in_memory(
    match: Match,
    games: list[Game],
    seatings: dict[int, dict[int, Seating]],
    fence: Fence = unfenced,
) -> list[Game]:
    """Every seat of these games is decided here: each game is played whole, then all are
    written at once (games.services.actions_record_all), ``fence`` checked in the same
    transaction and round trip (bots.leases.fenced_pipeline), which opens once they
    are played."""
    plays = [(game, _chooser(match, game, seatings[game.pk])) for game in games]
    return game_services.actions_record_all(
        plays, origin=Event.Origin.BUILTIN, within=lambda: fenced_pipeline(fence)
    )


def _chooser(match: Match, game: Game, seatings: dict[int, Seating]) -> Callable[[State], int]:
    """``_pick`` for each seat of a game played in memory (its seeds formatted once)."""
    seats = {n: strategy(_seating_strategy(s)) for n, s in seatings.items()}
    seeded = f"{match.seed}:{game.pk}:"  # + the version: _pick's seed, the same choices

    def choose(state: State) -> int:
        seat = state.to_act
        return decide(seats[seat], state, seat, Random(seeded + str(state.version)))

    return choose


def _step(
    match: Table, game: Game, state: State, control: SeatControl, fence: Fence = unfenced
) -> None:
    """One decision of the seat to act; every write it makes checks ``fence`` first."""
    kind = control.version.bot.kind
    if _in_process(control):
        origin = Event.Origin.BUILTIN if control.autopilot_since is None else Event.Origin.AUTOPILOT
        _submit(game, state, control, _choose(match, game, state, control), origin, fence)
    elif kind == Bot.Kind.WEBHOOK:
        _ask_webhook(match, game, state, control, fence)
    else:
        _await_client(match, game, state, control, fence)


def _submit(
    game: Game,
    state: State,
    control: SeatControl,
    code: int,
    origin: Event.Origin,
    fence: Fence = unfenced,
) -> bool:
    """Submit an action for the seat; False when the game moved on first (nothing applied)."""
    user = control.seat.user  # the bot's own account, or a seat account of it
    if user is None:  # a bot seat is taken before its table starts
        raise ValueError(f"{control.seat} has no player")
    try:
        with fenced(fence):
            game_services.action_submit(
                game_id=game.pk,
                user=user,
                action=action_to_json(code, state.rules.edition),
                version=state.version,
                origin=origin,
            )
    except DomainError as error:
        if error.code in ("stale_version", "game_over"):
            return False
        raise
    return True


def _fault(
    game: Game,
    state: State,
    control: SeatControl,
    reason: str,
    detail: str,
    elapsed_ms: int,
    fence: Fence = unfenced,
) -> None:
    """A strike, then the engine's safe default in the seat's place."""
    with fenced(fence):
        services.strike_record(
            control=control,
            game_version=state.version,
            reason=reason,
            detail=detail,
            elapsed_ms=elapsed_ms,
        )
    _submit(game, state, control, default_action(state), Event.Origin.FALLBACK, fence)


def _deadline_ms(match: Table, control: SeatControl) -> int:
    return match.decision_ms + control.time_bank_ms


def _ask_webhook(
    match: Table, game: Game, state: State, control: SeatControl, fence: Fence = unfenced
) -> None:
    payload, budget_ms = webhook_decision(
        game.pk,
        state,
        decision_ms=match.decision_ms,
        time_bank_ms=control.time_bank_ms,
        now=timezone.now(),
    )
    version = control.version
    answer = webhook.ask(version.url, version.secret, payload, timeout=budget_ms / 1000)
    with fenced(fence):
        services.time_spend(
            control=control, decision_ms=match.decision_ms, elapsed_ms=answer.elapsed_ms
        )
    verdict = judge(state, answer)
    entry = decision_log.Entry(
        game.pk,
        control.seat.number,
        version.pk,
        state.version,
        answer.request_bytes,
        answer.action,
        answer.elapsed_ms,
        verdict.fault,
        verdict.detail,
        answer.debug,
    )
    if verdict.fault is not None:
        _fault(game, state, control, verdict.fault, verdict.detail, answer.elapsed_ms, fence)
    else:
        with fenced(fence):
            health.answered(version)
        _submit(game, state, control, verdict.action, Event.Origin.WEBHOOK, fence)
    decision_log.record(entry)  # once its move is written: a run cut off logs nothing


def _await_client(
    match: Table, game: Game, state: State, control: SeatControl, fence: Fence = unfenced
) -> None:
    """Wait for an API-client bot to act through the API, until its deadline."""
    budget_ms = _deadline_ms(match, control)
    deadline = timezone.now() + timedelta(milliseconds=budget_ms)
    game_services.deadline_set(game=game, version=state.version, deadline=deadline)
    started = time.monotonic()

    def acted() -> bool:
        row = Game.objects.filter(pk=game.pk).values_list("version", "status").get()
        return row[0] > state.version or row[1] != Game.Status.ACTIVE

    moved = notify.wait_for_change(game.pk, acted, budget_ms / 1000)
    elapsed_ms = int((time.monotonic() - started) * 1000)
    if moved:
        with fenced(fence):
            services.time_spend(
                control=control, decision_ms=match.decision_ms, elapsed_ms=elapsed_ms
            )
            health.answered(control.version)  # its log entry: decision_log.client_acted
        return
    reason, detail = Strike.Reason.TIMEOUT, f"no action within {budget_ms} ms"
    _fault(game, state, control, reason, detail, elapsed_ms, fence)
    decision_log.record(
        decision_log.Entry(
            game.pk,
            control.seat.number,
            control.version_id,
            state.version,
            None,
            None,
            elapsed_ms,
            reason,
            detail,
        )
    )


# --- a bot seat at a people's table (games.seating) --------------------------------------


def play_turn(
    game_id: int, version: int, fence: Fence = unfenced, last: Fence | None = None
) -> str:
    """Play one bot seat's decision at a people's table, if it is still a bot's turn at
    ``version``: what a redelivered or resent task finds already played, it leaves.

    The seat plays as in a match (built-in, webhook with strikes and the safe default,
    API client awaited until its deadline), with the ladder's time control unless the
    table is timed. Its action commits through games.services, whose announcement of
    the next decision sends the next bot's turn. Each write checks ``fence`` first (the
    turn's lease: bots.tasks.play_turn), a built-in's one write ``last`` if given.
    """
    control = game_rows.turn_control(game_id, version)
    if control is None:
        game = Game.objects.filter(pk=game_id).first()
        if game is None or game.status != Game.Status.ACTIVE or game.version != version:
            return "moved on"
        return "not a bot's turn"
    game = control.seat.game
    limit = game.decision_seconds
    pace = Pace(game.seed or 0, settings.LADDER_DECISION_MS if limit is None else limit * 1000)
    if last is not None and _in_process(control):  # a built-in writes once
        fence = last
    _step(pace, game, store.load_state(game), control, fence)
    return "played"
