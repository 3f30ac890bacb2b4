"""Validating a new version: the handshake, then one game at a full table of built-ins.

A version is ranked only once it has answered the handshake (webhook bots) and finished
a validation game without being put on autopilot (fewer than three strikes). Its owner
sees the log: the handshake's answer, every strike with its reason, and the game.

The two parts run in different latency classes (cya_site.queues): the handshake is
interactive (``bots.handshake``: its author waits on the page, and a bot that does not
answer is told so in seconds, whatever the ladder's backlog); the game is batch work
(``bots.validate_version``). A version is PENDING until its handshake passes, then
VALIDATING until its game has a verdict.
"""

from __future__ import annotations

from django.db import transaction

from accounts.models import User
from bots import leases, runner, services, webhook
from bots.models import Bot, BotVersion, Match, SeatControl
from games.engine import RuleSet

BUILTIN_OPPONENTS = ("shark", "greedy", "random")
# every built-in a person may seat at a table: the validation game keeps to the three
# cheap ones above (it seats all of them), the search player only costs time at tables
SEATABLE_BUILTINS = (*BUILTIN_OPPONENTS, "ismcts")


def builtin_versions(names: tuple[str, ...] = BUILTIN_OPPONENTS) -> list[BotVersion]:
    """The platform's built-in bots ``names`` (created on first use), one ready version each.

    Race-free: validations started together on a fresh site create them once (the
    first takes a lock, the others wait for it and then find them).
    """
    found = _builtin_ready(names)
    if found is not None:
        return found
    with transaction.atomic():
        leases.serialised(leases.LEASE_BUILTIN)
        owner = services.platform_user()
        return [_builtin(owner, name) for name in names]


def opponents() -> list[BotVersion]:
    """The validation game's opponents, the three cheap built-ins.

    Every seatable built-in is made ready with them, the search player too, so that from
    the first validated bot on, the ladder seats each of them beside entrants.
    """
    by_strategy = {v.strategy: v for v in builtin_versions(SEATABLE_BUILTINS)}
    return [by_strategy[name] for name in BUILTIN_OPPONENTS]


def _builtin_ready(strategies: tuple[str, ...]) -> list[BotVersion] | None:
    """The built-in versions if every one exists (two queries), else None."""
    names = [f"builtin-{name}" for name in strategies]
    ready = {
        v.bot.name: v
        for v in BotVersion.objects.filter(
            bot__name__in=names, status=BotVersion.Status.READY
        ).select_related("bot")
    }
    if len(ready) < len(names):
        return None
    return [ready[name] for name in names]


def _builtin(owner: User, name: str) -> BotVersion:
    bot = Bot.objects.filter(name=f"builtin-{name}").first()
    if bot is None:
        bot = services.bot_create(owner=owner, name=f"builtin-{name}", kind=Bot.Kind.BUILTIN)
    version = bot.versions.filter(status=BotVersion.Status.READY).first()
    if version is None:
        version = BotVersion.objects.create(
            bot=bot, number=bot.versions.count() + 1, strategy=name,
            status=BotVersion.Status.READY, validation_log=["built in"],
        )  # fmt: skip
    return version


def handshake(version: BotVersion, fence: leases.Fence = leases.unfenced) -> BotVersion:
    """The handshake of a PENDING version: a failure is the verdict (FAILED, with why);
    a pass makes it VALIDATING, its answer the first line of the log. Versions of other
    kinds have no handshake and go straight on. Its writes check ``fence`` first."""
    log: list[str] = []
    if version.bot.kind == Bot.Kind.WEBHOOK:
        try:
            info = webhook.handshake(version.url, version.secret)
        except webhook.HandshakeError as error:
            log.append(f"handshake failed ({error.reason}): {error.detail}")
            with leases.fenced(fence):
                return services.version_validated(version=version, passed=False, log=log)
        log.append(f"handshake: {info.get('name')!r}, protocol {info.get('protocol_version')}")
    with leases.fenced(fence):
        return services.version_handshaken(version=version, log=log)


def validate(version: BotVersion, fence: leases.Fence = leases.unfenced) -> BotVersion:
    """The validation game of a VALIDATING version (the handshake first if it is still
    PENDING); record the verdict and its log. Its writes check ``fence`` first."""
    if version.status == BotVersion.Status.PENDING:
        version = handshake(version, fence)
        if version.status != BotVersion.Status.VALIDATING:
            return version
    log = list(version.validation_log)  # the handshake's answer
    busy = (Match.Status.SCHEDULED, Match.Status.RUNNING)  # left by a run that crashed
    match = Match.objects.filter(
        kind=Match.Kind.VALIDATION, status__in=busy, entries__version=version
    ).first()
    if match is None:
        versions = [version, *opponents()]
        with leases.fenced(fence):
            match = services.match_create(
                versions=versions,
                kind=Match.Kind.VALIDATION,
                rules=RuleSet.preset("2021", seats=len(versions)),
                duplicate=False,
            )
    log.append(f"validation game {match.match_games.get().game_id} (match {match.pk})")
    runner.run_match(match, fence)
    control = SeatControl.objects.get(seat__game__match_game__match=match, version=version)
    for strike in control.strike_log.all():
        log.append(f"strike at decision {strike.game_version}: {strike.reason} ({strike.detail})")
    passed = control.autopilot_since is None
    log.append("passed" if passed else "failed: three strikes put the seat on autopilot")
    with leases.fenced(fence):
        return services.version_validated(version=version, passed=passed, log=log)
