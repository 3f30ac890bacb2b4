"""Playing local bots against built-ins in memory: the core of ``manage.py play``.

Nothing touches the database. Webhook seats get the ladder's treatment through the
ladder's own functions: the same signed decision body and budget
(``verdicts.webhook_decision``, ``webhook.ask``), the same verdict on each answer
(``verdicts.judge``), the same clock (``timecontrol.bank_after_answer``/``bank_after_strike``)
and, after ``timecontrol.MAX_STRIKES`` strikes, the runner's autopilot for the rest of the
game, which ranks the seat last. Built-in seats run their strategy in process, seeded by
(seed, game, version) as the runner seeds them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from random import Random
from urllib.parse import urlsplit

from django.utils import timezone

from bots import ratings, runner, timecontrol, verdicts, webhook
from bots.strategies import STRATEGIES, decide, strategy
from games.engine import RuleSet, State, apply, new_game, observe

BUILTIN = "builtin:"


@dataclass(frozen=True)
class Entrant:
    """A player: a built-in strategy, or a webhook bot's URL."""

    spec: str
    strategy: str = ""
    url: str = ""


def entrant(spec: str) -> Entrant:
    """Parse ``builtin:<name>`` or an http(s) URL; ValueError says what is wrong."""
    if spec.startswith(BUILTIN):
        name = spec.removeprefix(BUILTIN)
        if name not in STRATEGIES:
            choices = ", ".join(BUILTIN + n for n in sorted(STRATEGIES))
            raise ValueError(f"unknown built-in {spec!r}: choose {choices}")
        return Entrant(spec, strategy=name)
    parts = urlsplit(spec)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"{spec!r} is neither an http(s) URL nor builtin:<name>")
    return Entrant(spec, url=spec)


@dataclass(frozen=True)
class StrikeNote:
    """A strike: at which decision (game version), why, and how long the bot took."""

    version: int
    reason: str
    detail: str
    elapsed_ms: int


@dataclass
class SeatRecord:
    """How a webhook seat fared: its clock, strikes and the autopilot taking over."""

    time_bank_ms: int
    strikes: list[StrikeNote] = field(default_factory=list)
    autopilot_at: int | None = None  # the version the autopilot took over at
    answers: int = 0
    used_ms: int = 0


@dataclass(frozen=True)
class SeatResult:
    """One seat's result; ``place`` ranks a seat on autopilot last, as the ladder does."""

    seat: int
    position: int  # the entrant's place in the command line
    entrant: Entrant
    place: int
    dollars: int
    winner: bool
    record: SeatRecord


@dataclass(frozen=True)
class GameResult:
    """A finished game: its number and seed, and every seat's result, best first."""

    number: int
    seed: int
    decisions: int
    seats: tuple[SeatResult, ...]


# Called after each webhook answer: (game number, seat, version, answer, verdict).
OnAnswer = Callable[[int, int, int, webhook.Answer, verdicts.Verdict], None]


def handshakes(entrants: Sequence[Entrant], secret: str) -> dict[str, dict[str, object]]:
    """Each webhook bot's handshake answer; a failure raises webhook.HandshakeError naming
    the URL."""
    answers: dict[str, dict[str, object]] = {}
    try:
        for url in dict.fromkeys(e.url for e in entrants if e.url):
            try:
                answers[url] = webhook.handshake(url, secret)
            except webhook.HandshakeError as error:
                raise webhook.HandshakeError(error.reason, f"{url}: {error.detail}") from None
    finally:
        webhook.close()
    return answers


def play_games(
    rules: RuleSet,
    entrants: Sequence[Entrant],
    *,
    games: int,
    seed: int,
    secret: str,
    decision_ms: int,
    time_bank_ms: int,
    on_answer: OnAnswer | None = None,
) -> Iterator[GameResult]:
    """Play ``games`` games, yielding each as it ends; game g deals from ``seed + g``
    with the seats turned by g (over n games, every entrant plays every seat)."""
    n = len(entrants)
    try:
        for g in range(games):
            seating = [0] * n  # seating[seat] = position of the entrant in that seat
            for position in range(n):
                seating[(position + g) % n] = position
            table = _Table(rules, entrants, seating, secret, decision_ms, time_bank_ms, on_answer)
            yield table.play(number=g + 1, seed=seed + g)
    finally:
        webhook.close()


class _Table:
    """One game in memory: whoever is to act chooses, until the game is over."""

    def __init__(
        self,
        rules: RuleSet,
        entrants: Sequence[Entrant],
        seating: list[int],
        secret: str,
        decision_ms: int,
        time_bank_ms: int,
        on_answer: OnAnswer | None,
    ) -> None:
        self.rules = rules
        self.seating = seating
        self.players = [entrants[p] for p in seating]
        self.records = [SeatRecord(time_bank_ms) for _ in seating]
        self.secret = secret
        self.decision_ms = decision_ms
        self.on_answer = on_answer

    def play(self, *, number: int, seed: int) -> GameResult:
        state = new_game(self.rules, seed)
        decisions = 0
        while not state.over:
            seat = state.to_act
            player, record = self.players[seat], self.records[seat]
            if player.url and record.autopilot_at is None:
                code = self._ask(number, state, player, record)
            else:
                name = runner.AUTOPILOT if record.autopilot_at is not None else player.strategy
                rng = Random(f"{seed}:{number}:{state.version}")
                code = decide(strategy(name), state, seat, rng)
            state = apply(state, code)[0]
            decisions += 1
        return GameResult(number, seed, decisions, self._results(state))

    def _ask(self, number: int, state: State, player: Entrant, record: SeatRecord) -> int:
        payload, budget_ms = verdicts.webhook_decision(
            number,
            state,
            decision_ms=self.decision_ms,
            time_bank_ms=record.time_bank_ms,
            now=timezone.now(),
        )
        answer = webhook.ask(player.url, self.secret, payload, timeout=budget_ms / 1000)
        record.answers += 1
        record.used_ms += answer.elapsed_ms
        record.time_bank_ms = timecontrol.bank_after_answer(
            record.time_bank_ms, self.decision_ms, answer.elapsed_ms
        )
        verdict = verdicts.judge(state, answer)
        if verdict.fault is not None:
            strike = StrikeNote(state.version, verdict.fault, verdict.detail, answer.elapsed_ms)
            record.strikes.append(strike)
            record.time_bank_ms = timecontrol.bank_after_strike(record.time_bank_ms, verdict.fault)
            if len(record.strikes) >= timecontrol.MAX_STRIKES:
                record.autopilot_at = state.version
        if self.on_answer is not None:
            self.on_answer(number, state.to_act, state.version, answer, verdict)
        return verdict.action

    def _results(self, state: State) -> tuple[SeatResult, ...]:
        ranking = observe(state, None)["ranking"]
        standings = [
            ratings.Standing(
                key=row["seat"],
                places=row["place"],
                dollars=row["tally"],
                forfeited=self.records[row["seat"]].autopilot_at is not None,
            )
            for row in ranking
        ]
        places = ratings.ranks(standings)
        out = [
            SeatResult(
                seat=row["seat"],
                position=self.seating[row["seat"]],
                entrant=self.players[row["seat"]],
                place=places[row["seat"]],
                dollars=row["tally"],
                winner=row["winner"],
                record=self.records[row["seat"]],
            )
            for row in ranking
        ]
        return tuple(sorted(out, key=lambda r: (r.place, r.seat)))
