"""``cya-bot``: play your bot locally against the built-ins, or replay a platform game.

    cya-bot play bot.py --against greedy --against shark --deals 20 --seed 7
    cya-bot replay 1234 bot.py --url https://cya.example --player my-bot

``play`` is offline: the platform's engine and built-ins run in this process. ``replay``
reads a finished game through the platform's public API. Bad arguments exit with status
2 and a message; a game that cannot be replayed, or a bot that cannot be loaded, with 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import asdict
from math import isfinite
from typing import Any

from bots.strategies.duplicate import Interval
from games.engine import PRESETS, InvalidRules, RuleSet
from games.engine.simulate import parse_rules

from . import local
from . import replay as replaying
from .players import BotError, Remote, load
from .webhook import Decide

DEFAULT_AGAINST = ("shark", "greedy", "random")  # the validation game's table


def main(argv: Sequence[str] | None = None) -> int:
    """The console script's entry point; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "play":
            return _play(parser, args)
        return _replay(parser, args)
    except (BotError, replaying.ReplayError) as error:
        print(f"cya-bot: {error}", file=sys.stderr)
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cya-bot", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("play", help="play your bot against the built-ins, offline")
    _bot_arguments(play)
    play.add_argument(
        "--against",
        action="append",
        metavar="BUILTIN",
        help=f"a built-in in another seat, once per seat (default: {' '.join(DEFAULT_AGAINST)})",
    )
    play.add_argument("--deals", type=int, default=10, help="deals, each played once per rotation")
    play.add_argument("--seed", type=int, default=7, help="the same seed plays the same games")
    play.add_argument("--preset", default="2021", help=f"rules preset: {', '.join(PRESETS)}")
    play.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="a rule option"
    )
    play.add_argument("--advanced", action="store_true", help="every advanced rule on")
    play.add_argument("--quiet", "-q", action="store_true", help="no line per game")
    again = commands.add_parser("replay", help="replay a finished platform game through your bot")
    again.add_argument("game", type=int, help="the game's id")
    _bot_arguments(again)
    again.add_argument(
        "--url", default=os.environ.get("CYA_URL"), help="the platform (default: $CYA_URL)"
    )
    again.add_argument("--seat", type=int, action="append", default=[], help="a seat to replay")
    again.add_argument(
        "--player", action="append", default=[], help="replay this player's seats (its name)"
    )
    again.add_argument("--all", action="store_true", help="list every decision, not only changes")
    return parser


def _bot_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bot", help="bot.py[:function], package.module:function, or a URL")
    parser.add_argument(
        "--secret", default=os.environ.get("CYA_SECRET"), help="a URL bot's secret ($CYA_SECRET)"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def _load(spec: str, secret: str | None) -> Decide:
    bot = load(spec, secret=secret)
    if isinstance(bot, Remote):
        info = bot.handshake()
        print(f"{spec}: {info.get('name')!r}, protocol {info['protocol_version']}", file=sys.stderr)
    return bot


# --- play --------------------------------------------------------------------------------


def _play(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    against = args.against or list(DEFAULT_AGAINST)
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    if args.preset not in PRESETS:
        parser.error(f"--preset must be one of {', '.join(PRESETS)}")
    try:
        local.check_builtins(against)
        rules = parse_rules(
            argparse.Namespace(
                preset=args.preset,
                seats=len(against) + 1,
                advanced=args.advanced,
                option=args.option,
            )
        )
    except InvalidRules as error:
        parser.error(f"rules: {error.field}: {error}")
    except ValueError as error:
        parser.error(str(error))
    bot = _load(args.bot, args.secret)
    show = None if args.quiet or args.json else _print_game
    run = local.play(
        bot, against, rules=rules, deals=args.deals, seed=args.seed, name=args.bot, on_game=show
    )
    if args.json:
        print(json.dumps(_run_json(run), indent=1))
    else:
        _print_run(run)
    return 0


def _interval_json(value: Interval) -> dict[str, float | None]:
    return {"mean": value.mean, "half": value.half if isfinite(value.half) else None}


def _print_game(game: local.Game) -> None:
    won = "won" if local.YOU in game.winners else "lost"
    print(
        f"game {game.number:>3}  deal {game.deal} rotation {game.rotation}  seed {game.seed}"
        f"  seat {game.seats[local.YOU]}: place {game.places[local.YOU]},"
        f" ${game.dollars[local.YOU]:,}, {won}"
    )


def _print_run(run: local.Run) -> None:
    rules: RuleSet = run.rules
    games = len(run.games)
    print(
        f"{run.deals} deals x {rules.seats} rotations = {games} games,"
        f" {rules.edition} rules, {rules.seats} seats, seed {run.seed}"
    )
    print(f"  {'player':<32} {'win share (95%)':>17}  {'average place (95%)':>20}")
    for s in run.standings:  # one deal gives no interval: "± n/a"
        win = f"±{s.win.half:>5.1%}" if isfinite(s.win.half) else "±  n/a"
        place = f"±{s.place.half:>5.2f}" if isfinite(s.place.half) else "±  n/a"
        print(f"  {s.name[:32]:<32} {s.win.mean:>9.1%} {win}  {s.place.mean:>12.2f} {place}")
    clock = run.clock
    average = clock.total_ms / clock.answers if clock.answers else 0.0
    print(
        f"your bot: {clock.answers} decisions, {len(run.faults)} faults, {average:.2f} ms on"
        f" average, {clock.longest_ms:.1f} ms at most, {clock.over_limit} over the ladder's"
        f" {clock.limit_ms:,} ms a decision"
    )
    for fault in run.faults[:20]:
        print(f"  game {fault.game} v{fault.version}: {fault.fault}: {fault.detail}")
    if len(run.faults) > 20:
        print(f"  ... and {len(run.faults) - 20} more")


def _run_json(run: local.Run) -> dict[str, Any]:
    """The run as JSON; an interval of one deal, unbounded, has a null half-width."""
    return {
        "entries": list(run.entries),
        "rules": run.rules.to_json(),
        "seed": run.seed,
        "deals": run.deals,
        "standings": [
            {
                "name": s.name,
                "win": _interval_json(s.win),
                "place": _interval_json(s.place),
            }
            for s in run.standings
        ],
        "games": [asdict(g) for g in run.games],
        "faults": [asdict(f) for f in run.faults],
        "decisions": run.clock.answers,
    }


# --- replay ------------------------------------------------------------------------------


def _replay(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if not args.url:
        parser.error("give the platform's address: --url or CYA_URL")
    record = replaying.fetch(args.url, args.game)
    seats = replaying.seats_of(record, args.seat, args.player)
    report = replaying.replay(record, _load(args.bot, args.secret), seats)
    if args.json:
        print(json.dumps(_report_json(report), indent=1))
    else:
        _print_report(report, show_all=args.all)
    return 0


def _print_report(report: replaying.Report, *, show_all: bool) -> None:
    record = report.record
    names = ", ".join(f"seat {s} ({record.players.get(s) or '-'})" for s in report.seats)
    print(f"game {record.game}: {len(record.log) - 1} actions; replaying {names}")
    for s in report.steps:
        if not (s.differs or show_all):
            continue
        mark = "differs" if s.differs else "same"
        now = f"{s.fault}: {s.detail}" if s.fault else _action(s.chosen)
        print(
            f"  v{s.version:<4} seat {s.seat} {s.kind:<15} {mark:<8}"
            f" played {_action(s.played)} ({s.origin}); your bot: {now}"
        )
    differ = len(report.differences)
    asked = len(report.steps)
    share = f" ({differ / asked:.0%})" if asked else ""
    faults = sum(1 for s in report.steps if s.fault)
    print(f"{asked} decisions replayed, {differ} differ{share}, {faults} faults")


def _action(action: dict[str, Any] | None) -> str:
    return "nothing" if action is None else json.dumps(action, separators=(",", ":"))


def _report_json(report: replaying.Report) -> dict[str, Any]:
    return {
        "game": report.record.game,
        "seats": list(report.seats),
        "players": {str(k): v for k, v in sorted(report.record.players.items())},
        "decisions": [asdict(s) for s in report.steps],
        "differences": len(report.differences),
    }


if __name__ == "__main__":
    raise SystemExit(main())
