"""``manage.py seed_demo``: demo data that gives every page something to show (idempotent).

``make run`` calls it on every start. It seeds two parts, each in one transaction and
each skipped when it is already there, so an interrupted run leaves no half-made part
and a database seeded before a part existed gets it on its next start:

- players: alice, bob, carol and dave, staff ``demo-admin``, and digital games (finished,
  and one in progress) played through the games services with seeded random-legal moves;
- club: organiser ``olga``'s league "Tuesday Club" (2021 rules, classic ending), its
  roster, the season "Autumn 2026" with two played nights, this week's club night with
  players checked in and no draw yet, next week's night, and the finished round robin
  "Autumn Cup". The club meets on Tuesdays, as its name says: this week's night is the
  latest Tuesday (today, on a Tuesday), the others a week apart (``club_night``).

Everything goes through the services, so the ledgers, change logs and results are those
real use makes. A real table's dollars come from the pure engine: each table's game is
played by built-in strategies (fixed seeds), and its rounds are entered, confirmed,
disputed and corrected through ``tournaments.recording``, so they pass the deck checks
and the recorded game ends where the engine's did. No service takes a moment, so once
a past night is seeded every moment it wrote (ledger, votes, results, change log) is moved
to that night's evening (``_stamp_at``): the standings by night played and "as recorded
at" a past night both hold that night's games. Tonight's check-ins and the Autumn Cup
keep the moment of seeding.
"""

from __future__ import annotations

import random
from datetime import date, datetime, time, timedelta
from typing import Any

from django.apps import apps
from django.core.management.base import BaseCommand, CommandParser
from django.db import models, transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import User
from accounts.services import user_register
from bots.strategies import strategy
from bots.strategies.arena import play
from games import services, store
from games.engine import RuleSet, action_to_json, legal_actions
from games.models import Game, Seat
from tournaments import nights, recording, roster, rounds, running
from tournaments.models import GameEntry, GameNight, League, Member, ScoreRecord, Season
from tournaments.services import league_create, night_create, season_create

DEMO_PASSWORD = "cover-your-assets"
TUESDAY = 1  # date.weekday()
NIGHT_STARTS = time(19, 30)  # a past night's records are stamped from then on
PLAYERS = ("alice", "bob", "carol", "dave")
GAMES: tuple[tuple[dict[str, Any], int, int | None], ...] = (
    # (rule options, seats, decisions to play; None = to the end)
    ({"ending": "quick"}, 4, None),
    ({"ending": "highest_after_n", "ending_rounds": 2}, 3, None),
    ({}, 2, None),
    ({"ending": "quick", "advanced": {"penny_jar": True, "improve_set": True}}, 4, None),
    ({}, 4, 37),  # a game in progress
)

ORGANISER = "olga"
LEAGUE_SLUG = "tuesday"
# The club's players and the built-in strategy that plays each one's seats: accounts by
# username, guests by name (no account). Noor arrives on the second night.
ACCOUNTS = {
    "alice": "shark",
    "bob": "greedy",
    "carol": "shark",
    "dave": "random",
    "erin": "greedy",
    "frank": "random",
    "gina": "shark",
    "hugo": "greedy",
    "ivan": "greedy",
    "judy": "random",
}
GUESTS = {"Kim": "greedy", "Leo": "random", "Mia": "shark"}
NEWCOMER = ("Noor", "greedy")
STRATEGIES = {**ACCOUNTS, **GUESTS, NEWCOMER[0]: NEWCOMER[1]}
VENUE = "The Crown, back room"
CUP_ENTRANTS = ("alice", "bob", "carol", "erin", "gina", "hugo", "Kim", "Mia")
# Mistakes made (and put right) in the first draw of a played night, by table.
TYPO = "typo"  # the organiser enters two rows swapped and corrects it
DISPUTE = "dispute"  # a player enters two rows swapped; a player disputes; olga corrects


class Command(BaseCommand):
    help = "Create the demo players, games and club (does nothing for a part already there)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--url", default="http://127.0.0.1:8000/", help="Where the site is served."
        )

    def handle(self, *args: Any, url: str, **options: Any) -> None:
        made = []
        if not User.objects.filter(username__in=PLAYERS).exists():
            with transaction.atomic():
                self._players()
            made.append(f"players {', '.join(PLAYERS)} and {len(GAMES)} games")
        if not League.objects.filter(slug=LEAGUE_SLUG).exists():
            with transaction.atomic():
                Club(today=club_night(timezone.localdate())).seed()
            made.append('the club "Tuesday Club"')
        if made:
            self.stdout.write(self.style.SUCCESS(f"Demo data is ready: {' and '.join(made)}."))
        else:
            self.stdout.write("Demo data is already loaded.")
        self.stdout.write(
            f"Open {url.rstrip('/')}/leagues/{LEAGUE_SLUG}/ and sign in as {ORGANISER} "
            f"(organiser), alice (player) or demo-admin (staff): password {DEMO_PASSWORD!r}."
        )

    def _players(self) -> None:
        users = [_account(name) for name in PLAYERS]
        for index, (rule_options, seats, decisions) in enumerate(GAMES):
            _digital_game(users[:seats], rule_options, seats, decisions, seed=1000 + index)


def _stamp_at(night: GameNight, *, since: datetime) -> None:
    """Move every moment written since ``since`` (the night's check-ins, draws, ledger,
    votes, results, change log and games) to the night's evening, in order and spacing
    kept, as if the club had played and typed it in then: the standings' clock of record
    (``as_of``) at a past night then shows what was recorded by that night.

    The services stamp what they write with the present (none takes a moment), so the
    demo moves a past night's rows once they are written; nothing else was written
    meanwhile (the seeding is one transaction), and no row is created or deleted.
    """
    evening = datetime.combine(night.date, NIGHT_STARTS, tzinfo=timezone.get_current_timezone())
    shift = evening - since
    for app in ("games", "tournaments"):
        for model in apps.get_app_config(app).get_models():
            for field in model._meta.concrete_fields:
                if isinstance(field, models.DateTimeField):
                    written = model._default_manager.filter(**{f"{field.name}__gte": since})
                    written.update(**{field.name: F(field.name) + shift})


def club_night(today: date) -> date:
    """This week's club night: the latest Tuesday, today included."""
    return today - timedelta(days=(today.weekday() - TUESDAY) % 7)


def _account(name: str) -> User:
    """The demo account with this username, registered if missing."""
    found = User.objects.filter(username=name).first()
    if found is not None:
        return found
    return user_register(username=name, password=DEMO_PASSWORD, email=f"{name}@example.com")


def _staff() -> User:
    staff, created = User.objects.get_or_create(
        username="demo-admin", defaults={"is_staff": True, "is_superuser": True}
    )
    if created:
        staff.set_password(DEMO_PASSWORD)
        staff.save()
    return staff


def _digital_game(
    users: list[User],
    rule_options: dict[str, Any],
    seats: int,
    decisions: int | None,
    *,
    seed: int,
) -> Game:
    rules = RuleSet.preset("2021", seats=seats, **rule_options)
    game = services.game_create(by=users[0], rules=rules)
    for user in users[1:]:
        services.game_join(game=game, user=user)
    # A demo seed: these games are examples, not contests.
    game = services.game_start(game=game, by=_staff(), seed=seed)
    rng = random.Random(seed)
    played = 0
    while game.status == Game.Status.ACTIVE and (decisions is None or played < decisions):
        state = store.load_state(game)
        action = rng.choice(legal_actions(state))
        services.action_submit(
            game_id=game.pk,
            user=users[state.to_act],
            action=action_to_json(action, rules.edition),
            version=game.version,
        )
        game.refresh_from_db()
        played += 1
    return game


class Club:
    """The demo club, seeded as its organiser and players would make it."""

    def __init__(self, *, today: date) -> None:
        self.today = today  # this week's club night: the other nights are a week apart
        self.games = 0  # tables recorded so far: seeds each table's engine game

    def seed(self) -> None:
        """The league, its roster, the season's nights and the tournament."""
        self.olga = _account(ORGANISER)
        self.league = league_create(
            by=self.olga,
            name="Tuesday Club",
            slug=LEAGUE_SLUG,
            rules=RuleSet.preset("2021"),
            description="Cover Your Assets on Tuesday nights: classic rules, first to "
            "$1,000,000, new players welcome.",
        )
        for name in ACCOUNTS:
            roster.member_add(league=self.league, by=self.olga, user=_account(name))
        for name in GUESTS:
            roster.member_add(league=self.league, by=self.olga, name=name)
        season = season_create(
            league=self.league,
            by=self.olga,
            name="Autumn 2026",
            starts_on=self.today - timedelta(days=14),
            ends_on=self.today + timedelta(days=28),
        )
        since = timezone.now()
        first = self._night(season, days=-14, absent={"judy"})
        self._draws(first, seed=110, mistakes={1: TYPO})
        _stamp_at(first, since=since)
        since = timezone.now()
        second = self._night(season, days=-7, absent={"frank"}, newcomer=NEWCOMER[0])
        self._draws(second, seed=120, mistakes={0: DISPUTE})
        _stamp_at(second, since=since)
        self._night(season, days=0, absent={"Leo"})  # tonight: checked in, not drawn yet
        night_create(season=season, by=self.olga, on=self.today + timedelta(days=7), venue=VENUE)
        self._cup()

    def _night(
        self, season: Season, *, days: int, absent: set[str], newcomer: str = ""
    ) -> GameNight:
        """A night and its check-ins: every other player with an account checks in on
        their own phone, the organiser checks in the rest at the door."""
        night = night_create(
            season=season, by=self.olga, on=self.today + timedelta(days=days), venue=VENUE
        )
        members = self.league.members.select_related("user").order_by("pk")
        for n, member in enumerate(m for m in members if m.name not in absent):
            by = member.user if member.user is not None and n % 2 else self.olga
            nights.night_check_in(night=night, by=by, member=member)
        if newcomer:
            nights.night_check_in_newcomer(night=night, by=self.olga, name=newcomer)
        return night

    def _draws(self, night: GameNight, *, seed: int, mistakes: dict[int, str]) -> None:
        """Two draws, every table played to its end; the first draw's mistakes put right."""
        for number in (1, 2):
            draw = nights.night_draw(night=night, by=self.olga, seed=seed + number)
            for entry in GameEntry.objects.filter(night_round=draw, seat=0).order_by("table"):
                assert entry.table is not None
                mistake = mistakes.get(entry.table) if number == 1 else None
                self._table(entry.game, mistake=mistake)

    def _cup(self) -> None:
        """The club's round robin: 8 of the roster at tables of 4 over 3 rounds."""
        cup = running.tournament_create(
            by=self.olga,
            name="Autumn Cup",
            format="round_robin",
            entrants="humans",
            play="recorded",
            rules=RuleSet.from_json(self.league.rules),
            rounds=3,
            table_sizes=[4],
            preferred_size=4,
            seed=2026,
            league=self.league,
        )
        for name in CUP_ENTRANTS:
            member = Member.objects.get(league=self.league, name=name)
            running.entrant_add(tournament=cup, by=self.olga, member=member)
        running.tournament_start(tournament=cup, by=self.olga)
        for number in range(1, cup.rounds + 1):
            entries = GameEntry.objects.filter(round__tournament=cup, round__number=number, seat=0)
            for entry in entries.order_by("table"):
                self._table(entry.game)
            rounds.round_advance(tournament=cup, number=number)

    def _table(self, game: Game, *, mistake: str | None = None) -> None:
        """Play the table's game in the engine, then record it round by round.

        Every third table the organiser enters the rounds (settled at once); at the
        others the seated accounts take turns entering, and the rest confirm.
        """
        self.games += 1
        entries = GameEntry.objects.filter(game=game).select_related("competitor")
        names = [e.competitor.name for e in entries.order_by("seat")]
        seats = [strategy(STRATEGIES[name]) for name in names]
        seed = 7000 + self.games
        rounds = play(RuleSet.from_json(game.rules), seed, seats, random.Random(seed)).scores
        players = [
            s.user for s in Seat.objects.filter(game=game).select_related("user").order_by("number")
        ]
        accounts = [u for u in players if u is not None]
        by_organiser = mistake == TYPO or (mistake is None and self.games % 3 == 0)
        for number, scores in enumerate(rounds, start=1):
            dollars = list(scores)
            if by_organiser or not accounts:
                enters = self.olga
            else:
                enters = accounts[(number - 1) % len(accounts)]
            if number == 1 and mistake is not None:
                self._mistake(game, dollars, names, players, enters, mistake)
                continue
            record = recording.round_record(
                game=game, by=enters, dollars=dollars, number=number
            ).record
            self._confirm(record, [u for u in accounts if u != enters])

    def _confirm(self, record: ScoreRecord, voters: list[User]) -> None:
        for voter in voters:
            if record.status == ScoreRecord.Status.CONFIRMED:
                return
            record = recording.round_vote(record=record, by=voter, verdict="confirm")

    def _mistake(
        self,
        game: Game,
        dollars: list[int],
        names: list[str],
        players: list[User | None],
        enters: User,
        mistake: str,
    ) -> None:
        """Round 1 entered with two seats' dollars swapped, then corrected with a reason.

        A swap keeps every amount and the total, so the wrong round passes the deck
        checks too; round 1 never ends a classic game whose engine game went on.
        """
        seats = list(range(len(dollars)))
        if mistake == DISPUTE:  # the disputer, short-changed, sits in one of the rows
            seats = [s for s, u in enumerate(players) if u is not None and u != enters]
        a = max(seats, key=dollars.__getitem__)
        b = min(range(len(dollars)), key=dollars.__getitem__)
        wrong = list(dollars)
        wrong[a], wrong[b] = dollars[b], dollars[a]
        assert wrong != dollars, "the demo's mistake swaps two different stacks"
        record = recording.round_record(game=game, by=enters, dollars=wrong, number=1).record
        who = f"{names[a]} had ${dollars[a]:,} and {names[b]} ${dollars[b]:,}"
        if mistake == DISPUTE:
            disputer = players[a]
            assert disputer is not None
            others = [u for u in players if u is not None and u not in (enters, disputer)]
            self._confirm(record, others)
            recording.round_vote(
                record=record,
                by=disputer,
                verdict="dispute",
                reason=f"My stack was ${dollars[a]:,}, not ${wrong[a]:,}: rows swapped.",
            )
            reason = f"Recounted with the table: {who}."
        else:
            reason = f"Typed into the wrong rows: {who}."
        recording.round_correct(
            game=game, round_number=1, by=self.olga, dollars=dollars, reason=reason
        )
