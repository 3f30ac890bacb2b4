"""``manage.py play``: local bots (webhook URLs) against built-ins, in memory.

    python manage.py play --bot http://127.0.0.1:9001 --bot builtin:greedy \\
        --bot builtin:random --seed 7 --games 3 --secret "$CYA_SECRET"

URL bots are called with the ladder's rules (bots.local): the same signed decisions,
deadlines, time bank, strikes and autopilot. Nothing is written to the database. The
URLs may lead to any address, this machine's included: the operator typed them, and
``WEBHOOK_ALLOWED_NETWORKS`` guards only the URLs that users register.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import defaultdict
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bots import local, runner, verdicts, webhook
from cya_site import outbound
from games.engine import PRESETS, InvalidRules, RuleSet
from games.engine.simulate import parse_rules

ANYWHERE = ("0.0.0.0/0", "::/0")


class Command(BaseCommand):
    help = (
        "Play webhook bots (URLs) and built-in strategies at one table in memory, "
        "with the ladder's time control, strikes and autopilot; print each game's result."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--bot",
            action="append",
            default=[],
            metavar="URL|builtin:NAME",
            help="a seat: a webhook URL or builtin:random|greedy|shark (2-6 of them)",
        )
        parser.add_argument("--seed", type=int, default=7, help="game g deals from seed + g")
        parser.add_argument("--games", type=int, default=1, help="games to play (seats rotate)")
        parser.add_argument("--preset", default="2021", help=f"one of {', '.join(PRESETS)}")
        parser.add_argument(
            "--option", action="append", default=[], metavar="NAME=VALUE", help="a rule option"
        )
        parser.add_argument("--advanced", action="store_true", help="every advanced rule on")
        parser.add_argument(
            "--secret", default=None, help="the webhook bots' secret (default: $CYA_SECRET)"
        )
        parser.add_argument("--decision-ms", type=int, default=1000, help="per-decision limit")
        parser.add_argument("--time-bank-ms", type=int, default=15_000, help="time bank per game")

    def handle(self, *args: Any, **options: Any) -> None:
        entrants = _entrants(options["bot"])
        rules = _rules(options, len(entrants))
        if options["games"] < 1:
            raise CommandError("--games must be at least 1")
        if options["decision_ms"] < 1 or options["time_bank_ms"] < 0:
            raise CommandError("--decision-ms must be positive and --time-bank-ms not negative")
        secret = options["secret"] or os.environ.get("CYA_SECRET", "")
        if not secret and any(e.url for e in entrants):
            raise CommandError("URL bots need the secret they verify with: --secret or CYA_SECRET")
        # The operator typed these URLs here, unlike the URLs users register: they may lead
        # anywhere, this machine's loopback most of all.
        with outbound.allowing(*ANYWHERE):
            self._play(entrants, rules, secret, options)

    def _play(
        self, entrants: list[local.Entrant], rules: RuleSet, secret: str, options: dict[str, Any]
    ) -> None:
        try:
            infos = local.handshakes(entrants, secret)
        except webhook.HandshakeError as error:
            raise CommandError(f"handshake failed ({error.reason}): {error.detail}") from None
        for url, info in infos.items():
            self.stdout.write(f"{url}: {info.get('name')!r}, protocol {info['protocol_version']}")
        games = local.play_games(
            rules,
            entrants,
            games=options["games"],
            seed=options["seed"],
            secret=secret,
            decision_ms=options["decision_ms"],
            time_bank_ms=options["time_bank_ms"],
            on_answer=self._print_answer if options["verbosity"] >= 2 else None,
        )
        results = []
        for result in games:
            self._print_game(result, rules, options["games"])
            results.append(result)
        if len(results) > 1:
            self._print_summary(results, entrants)

    def _print_answer(
        self, game: int, seat: int, version: int, answer: webhook.Answer, verdict: verdicts.Verdict
    ) -> None:
        said = json.dumps(answer.action) if answer.fault is None else answer.fault
        note = f" debug {answer.debug!r}" if answer.debug else ""
        fault = f" STRIKE {verdict.fault}: {verdict.detail}" if verdict.fault else ""
        self.stdout.write(
            f"  game {game} seat {seat} v{version}: {said} in {answer.elapsed_ms} ms{note}{fault}"
        )

    def _print_game(self, result: local.GameResult, rules: RuleSet, games: int) -> None:
        out = self.stdout
        out.write(
            f"Game {result.number} of {games}: {rules.edition} rules, {rules.seats} seats, "
            f"seed {result.seed}, {result.decisions} decisions (* won the game)"
        )
        out.write(f"  {'place':<6}{'seat':<6}{'bot':<32}{'dollars':>11}  {'strikes':>7}  time")
        for r in result.seats:
            record = r.record
            if r.entrant.url:
                strikes = str(len(record.strikes))
                time = (
                    f"{record.used_ms:,} ms in {record.answers} answers, "
                    f"bank {record.time_bank_ms:,} ms left"
                )
            else:
                strikes, time = "-", "in process"
            place = f"{r.place}{'*' if r.winner else ''}"
            out.write(
                f"  {place:<6}{r.seat:<6}{_label(r.entrant.spec):<32}"
                f"{r.dollars:>11,}  {strikes:>7}  {time}"
            )
        for r in sorted(result.seats, key=lambda r: r.seat):
            for s in r.record.strikes:
                out.write(
                    f"  strike: seat {r.seat} at decision {s.version}: {s.reason} "
                    f"after {s.elapsed_ms} ms ({s.detail})"
                )
            if r.record.autopilot_at is not None:
                out.write(
                    f"  autopilot: seat {r.seat} from decision {r.record.autopilot_at} "
                    f"({runner.AUTOPILOT}, three strikes): ranked last"
                )

    def _print_summary(
        self, results: list[local.GameResult], entrants: list[local.Entrant]
    ) -> None:
        totals: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for result in results:
            for r in result.seats:
                t = totals[r.position]
                t["places"] += r.place
                t["firsts"] += r.place == 1
                t["dollars"] += r.dollars
                t["strikes"] += len(r.record.strikes)
                t["autopilot"] += r.record.autopilot_at is not None
        n = len(results)
        self.stdout.write(f"Summary over {n} games:")
        self.stdout.write(
            f"  {'bot':<36}{'firsts':>7}{'mean place':>12}{'mean dollars':>14}"
            f"{'strikes':>9}{'autopilot':>11}"
        )
        for position, e in enumerate(entrants):
            t = totals[position]
            self.stdout.write(
                f"  {f'#{position + 1} {_label(e.spec)}':<36}{t['firsts']:>7}"
                f"{t['places'] / n:>12.2f}{t['dollars'] // n:>14,}{t['strikes']:>9}"
                f"{t['autopilot']:>11}"
            )


def _entrants(specs: list[str]) -> list[local.Entrant]:
    if len(specs) < 2:
        raise CommandError("play needs 2 to 6 bots: give --bot at least twice")
    try:
        return [local.entrant(spec) for spec in specs]
    except ValueError as error:
        raise CommandError(f"--bot: {error}") from None


def _rules(options: dict[str, Any], seats: int) -> RuleSet:
    if options["preset"] not in PRESETS:
        raise CommandError(f"--preset must be one of {', '.join(PRESETS)}")
    args = argparse.Namespace(
        preset=options["preset"],
        seats=seats,
        advanced=options["advanced"],
        option=options["option"],
    )
    try:
        return parse_rules(args)
    except InvalidRules as error:
        raise CommandError(f"rules: {error.field}: {error}") from None


def _label(spec: str) -> str:
    return spec if len(spec) <= 30 else spec[:29] + "…"
