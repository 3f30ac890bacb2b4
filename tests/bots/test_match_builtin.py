"""A ladder match of built-in versions: duplicate deals, aggregate places, rated once;
claimed, its attempts given back, voided, and its versions locked while it is rated."""

from __future__ import annotations

from typing import Any

import orjson
import psycopg
import pytest
from django.db import IntegrityError, OperationalError, connection, transaction
from prometheus_client import REGISTRY
from pytest_django import Settings

from accounts.models import User
from bots import runner, services
from bots.models import Bot, BotVersion, Match, RatingChange
from bots.validation import builtin_versions
from cya_site.errors import DomainError
from games import notify, store
from games import services as game_services
from games.engine import (
    EngineError,
    RuleSet,
    State,
    action_to_json,
    apply,
    default_action,
    legal_actions,
    replay,
)
from games.models import Event, Game, GameSnapshot, Playout, Round, RoundScore, Seat
from tests.bots.checks import quick, states_before
from tests.conftest import _test_database_url
from tests.listening import listening


@pytest.fixture
def builtins(db: None) -> list[BotVersion]:
    """The platform's three built-in versions (shark, greedy, random)."""
    return builtin_versions()


@pytest.fixture
def fourth(alice: User, staff: User) -> BotVersion:
    """A fourth built-in bot with another owner, so a ladder table of four is legal."""
    bot = services.bot_create(owner=staff, name="alices-greedy", kind=Bot.Kind.BUILTIN)
    bot.owner = alice
    bot.save()
    return BotVersion.objects.create(bot=bot, number=1, strategy="greedy", status="ready")


def test_a_builtin_match_plays_one_game_per_rotation_and_rates_each_version_once(
    builtins: list[BotVersion], fourth: BotVersion
) -> None:
    match = services.match_create(versions=[*builtins, fourth], seed=42)
    assert match.match_games.count() == 4
    runner.run_match(match)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.rated_at is not None
    games = Game.objects.filter(match_game__match=match)
    assert {g.status for g in games} == {"finished"}
    assert {g.seed for g in games} == {42}  # duplicate deals: one shuffle, every rotation
    for game in games:  # the log written as one playout replays to the stored result
        entries = store.entries(game, after=0)
        assert [e.seq for e in entries] == list(range(1, game.version + 1))
        assert {e.origin for e in entries} == {"builtin"}
        codes = [e.action_code for e in entries if e.action_code is not None]
        assert game.seed is not None
        final = replay(RuleSet.from_json(game.rules), game.seed, codes)
        assert list(final.winners) == game.winners
        assert entries[-1].public_events[-1]["type"] == "game_end"
        # one row holds the whole game's actions; only the deal is an Event row
        assert Event.objects.filter(game=game).count() == 1
        assert Playout.objects.get(game=game).codes == codes
    changes = RatingChange.objects.filter(match=match)
    assert changes.count() == 4
    places = sorted(c.actual_place for c in changes)
    assert places[0] == 1
    # the match's summary agrees with its entries, by version id
    summed = match.entries.all()
    assert match.result == {
        "places": {str(e.version_id): e.place for e in summed},
        "dollars": {str(e.version_id): e.dollars for e in summed},
    }
    services.match_finish(match=match)  # a rerun changes nothing
    assert RatingChange.objects.filter(match=match).count() == 4
    for version in [*builtins, fourth]:
        version.refresh_from_db()
        assert version.games_played == 4
        assert version.matches_played == 1


# --- a match's claim, attempts and void ---------------------------------------------------


def counted(name: str, **labels: str) -> float:
    """A counter's value in this process (cya_site.metrics), 0 before its first count."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


def transitions(status: str) -> float:
    return counted("cya_match_transitions_total", kind="ladder", status=status)


@pytest.fixture
def scheduled(db: None) -> Match:
    """A ladder match of two built-ins, one game per rotation, not yet claimed."""
    return services.match_create(versions=builtin_versions()[:2], rules=quick(2), seed=11)


def games_of(match: Match) -> list[Game]:
    return [mg.game for mg in match.match_games.select_related("game").order_by("rotation")]


def test_each_rotation_seats_position_p_at_seat_p_plus_r_under_its_versions_control(
    builtins: list[BotVersion], django_capture_on_commit_callbacks: Any
) -> None:
    before = transitions("scheduled")

    with django_capture_on_commit_callbacks(execute=True):
        match = services.match_create(versions=builtins, rules=quick(3), seed=5)

    assert transitions("scheduled") == before + 1
    assert (match.decision_ms, match.time_bank_ms, match.duplicate) == (1000, 15_000, True)
    for rotation, game in enumerate(games_of(match)):
        for position, version in enumerate(builtins):
            seat = game.seats.get(number=(position + rotation) % 3)
            assert seat.user == version.bot.user
            assert (seat.control.version, seat.control.time_bank_ms) == (version, 15_000)


def test_a_match_of_one_game_is_kept_as_one(builtins: list[BotVersion]) -> None:
    match = services.match_create(versions=builtins, rules=quick(3), seed=5, duplicate=False)

    match.refresh_from_db()
    assert match.duplicate is False
    assert match.match_games.count() == 1


def test_a_claim_marks_the_match_running_counts_an_attempt_and_its_transition(
    scheduled: Match, django_capture_on_commit_callbacks: Any
) -> None:
    before = transitions("running")

    with django_capture_on_commit_callbacks(execute=True):
        claimed = services.match_claim(match_id=scheduled.pk)

    assert claimed is not None
    assert (claimed.pk, claimed.status, claimed.attempts) == (
        scheduled.pk,
        Match.Status.RUNNING,
        1,
    )
    assert claimed.started_at is not None
    assert transitions("running") == before + 1


def test_a_claim_after_an_outage_counts_no_attempt(scheduled: Match) -> None:
    claimed = services.match_claim(match_id=scheduled.pk, attempt=False)

    assert claimed is not None
    assert (claimed.status, claimed.attempts) == (Match.Status.RUNNING, 0)


def test_an_ended_match_is_not_claimed_and_no_transition_is_counted(
    scheduled: Match, django_capture_on_commit_callbacks: Any
) -> None:
    services.match_void(match=scheduled, reason="test")
    before = transitions("running")

    with django_capture_on_commit_callbacks(execute=True):
        assert services.match_claim(match_id=scheduled.pk) is None

    scheduled.refresh_from_db()
    assert (scheduled.status, scheduled.attempts) == (Match.Status.VOIDED, 0)
    assert transitions("running") == before


def test_a_refund_gives_back_one_attempt_of_that_match_and_never_goes_below_none(
    scheduled: Match,
) -> None:
    other = services.match_create(versions=builtin_versions()[1:3], rules=quick(2), seed=12)
    for match in (scheduled, scheduled, other):
        services.match_claim(match_id=match.pk)

    attempts = []
    for _ in range(3):
        services.match_attempt_refund(match_id=scheduled.pk)
        scheduled.refresh_from_db()
        attempts.append(scheduled.attempts)

    assert attempts == [1, 0, 0]
    other.refresh_from_db()
    assert other.attempts == 1


def test_a_void_ends_the_match_and_aborts_its_unfinished_games_without_a_result(
    scheduled: Match, staff: User, django_capture_on_commit_callbacks: Any
) -> None:
    ended, running = games_of(scheduled)
    game_services.game_abort(game=ended, by=staff, reason="by hand")
    before = transitions("voided")

    with django_capture_on_commit_callbacks(execute=True):
        voided = services.match_void(match=scheduled, reason="x" * 300)

    voided.refresh_from_db()
    assert (voided.status, voided.void_reason) == (Match.Status.VOIDED, "x" * 200)
    assert voided.finished_at is not None
    assert voided.rated_at is None
    assert transitions("voided") == before + 1
    ended.refresh_from_db()
    running.refresh_from_db()
    assert (ended.status, ended.end_reason) == (Game.Status.ABORTED, "by hand")
    assert (running.status, running.end_reason) == (Game.Status.ABORTED, "platform_fault")


def test_a_void_of_an_ended_match_leaves_it_as_it_was(
    scheduled: Match, django_capture_on_commit_callbacks: Any
) -> None:
    first = services.match_void(match=scheduled, reason="first")
    before = transitions("voided")

    with django_capture_on_commit_callbacks(execute=True):
        again = services.match_void(match=scheduled, reason="second")

    again.refresh_from_db()
    assert (again.void_reason, again.finished_at) == ("first", first.finished_at)
    assert transitions("voided") == before


# --- a rated finish locks its versions ---------------------------------------------------


@pytest.mark.usefixtures("transactional_db")
def test_a_ladder_finish_waits_for_its_versions_rows_held_by_another_transaction() -> None:
    # the paused version's rating is read but never written: only the lock makes it wait
    shark, greedy = builtin_versions()[:2]
    match = services.match_create(versions=[shark, greedy], rules=quick(2), seed=13)
    BotVersion.objects.filter(pk=greedy.pk).update(status=BotVersion.Status.PAUSED)

    with psycopg.connect(_test_database_url()) as other:  # its row lock lasts its transaction
        other.execute(
            f"SELECT 1 FROM {BotVersion._meta.db_table} WHERE id = %s FOR UPDATE", [greedy.pk]
        )
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '300ms'")
            with pytest.raises(OperationalError, match="lock timeout"):
                services.match_finish(match=match)
    finished = services.match_finish(match=match)  # the other transaction is over

    assert finished.status == Match.Status.FINISHED
    assert finished.rated_at is not None
    assert list(RatingChange.objects.filter(match=match).values_list("version", flat=True)) == [
        shark.pk
    ]


@pytest.mark.usefixtures("seam_path")
def test_an_unrated_match_finishes_with_its_places_moves_no_rating_and_is_counted_once(
    builtins: list[BotVersion], django_capture_on_commit_callbacks: Any
) -> None:
    match = services.match_create(
        versions=builtins[:2], kind=Match.Kind.FRIENDLY, rules=quick(2), seed=15
    )

    def finishes() -> float:
        return counted("cya_match_transitions_total", kind="friendly", status="finished")

    before = finishes()
    with django_capture_on_commit_callbacks(execute=True):
        finished = services.match_finish(match=match)
        services.match_finish(match=match)  # a rerun finds it ended

    assert (finished.status, finished.rated_at) == (Match.Status.FINISHED, None)
    assert list(match.entries.values_list("place", flat=True)) == [1, 1]  # no game played
    assert not RatingChange.objects.filter(match=match).exists()
    assert finishes() == before + 1


# --- the batch that writes a built-in game (games.services.actions_record) ---------------


def test_every_entry_of_a_batch_written_game_is_what_the_engine_produced(
    builtins: list[BotVersion],
) -> None:
    match = services.match_create(versions=builtins, rules=quick(3), seed=7)
    game = Game.objects.filter(match_game__match=match).order_by("match_game__rotation")[0]
    runner.run_game(match, game)
    game.refresh_from_db()
    users = dict(Seat.objects.filter(game=game).values_list("number", "user_id"))
    playout = Playout.objects.get(game=game)
    assert (playout.first_seq, playout.last_seq, playout.origin) == (1, game.version, "builtin")
    entries = store.entries(game, after=0)
    assert len(entries) == game.version
    for entry, state in states_before(game):
        assert entry.action_code is not None
        after, public = apply(state, entry.action_code)
        assert entry.seq == after.version
        assert entry.seat == state.to_act
        assert entry.actor_id == users[state.to_act]
        assert entry.action == action_to_json(entry.action_code, state.rules.edition)
        assert entry.public_events == orjson.loads(orjson.dumps(public))
        assert (entry.origin, entry.idempotency_key) == ("builtin", "")
        assert entry.created_at == playout.created_at
    assert game.status == Game.Status.FINISHED
    assert store.load_state(game).version == game.version
    ended = entries[-1].public_events[-1]
    assert ended["type"] == "game_end"
    places = dict(Seat.objects.filter(game=game).values_list("number", "place"))
    assert places == {row["seat"]: row["place"] for row in ended["ranking"]}
    # quick: one round, and one more for each tie (RULES tie policy): the bots' choices
    # are seeded with the game's id, so which it is depends on the rows made before
    rounds = sum(e["type"] == "round_end" for entry in entries for e in entry.public_events)
    assert rounds >= 1
    assert Round.objects.filter(game=game).count() == rounds
    assert RoundScore.objects.filter(round__game=game).count() == 3 * rounds


def test_a_playout_after_single_actions_continues_the_log_and_reads_as_one(
    builtins: list[BotVersion],
) -> None:
    """A game resumed in process (a rerun) after actions sent one at a time: Event rows
    then a playout, read back as one gap-free log, by range as the events endpoint does."""
    match = services.match_create(versions=builtins, rules=quick(3), seed=7)
    game = Game.objects.filter(match_game__match=match).order_by("match_game__rotation")[0]
    for _ in range(5):
        submit_default(game)
    game.refresh_from_db()
    runner.run_game(match, game)
    game.refresh_from_db()
    assert Playout.objects.get(game=game).first_seq == 6
    whole = store.entries(game)
    assert [e.seq for e in whole] == list(range(game.version + 1))
    assert [e.origin for e in whole[:7]] == ["deal", "api", "api", "api", "api", "api", "builtin"]
    assert store.entries(game, after=3, limit=5) == whole[4:9]
    assert store.codes(game, 0, game.version) == [e.action_code for e in whole[1:]]
    store.forget(game.pk)  # a rebuild from the seed replays both row shapes
    GameSnapshot.objects.filter(game=game).delete()
    assert store.load_state(Game.objects.get(pk=game.pk)) == store.load_state(game)
    final = replay(store.rules_of(game), game.seed or 0, store.codes(game, 0, game.version))
    assert list(final.winners) == game.winners


def test_a_batch_refuses_a_game_that_moved_on_while_it_was_played(
    builtins: list[BotVersion],
) -> None:
    match = services.match_create(versions=builtins, rules=quick(3), seed=7)
    game = Game.objects.filter(match_game__match=match).first()
    assert game is not None
    stale = Game.objects.get(pk=game.pk)
    submit_default(game)

    def first_legal(state: State) -> int:
        return legal_actions(state)[0]

    with pytest.raises(DomainError) as refused:
        game_services.actions_record(game=stale, choose=first_legal, origin=Event.Origin.BUILTIN)
    assert refused.value.code == "stale_version"
    assert Event.objects.filter(game=game).count() == 2  # the deal and the one action
    assert not Playout.objects.filter(game=game).exists()


def test_a_batch_with_an_illegal_choice_writes_nothing(builtins: list[BotVersion]) -> None:
    match = services.match_create(versions=builtins, rules=quick(3), seed=7)
    game = Game.objects.filter(match_game__match=match).first()
    assert game is not None

    def illegal(state: State) -> int:
        return -1

    with pytest.raises(EngineError):
        game_services.actions_record(game=game, choose=illegal, origin=Event.Origin.BUILTIN)
    game.refresh_from_db()
    assert (game.version, game.status) == (0, Game.Status.ACTIVE)
    assert Event.objects.filter(game=game).count() == 1  # the deal only
    assert not Playout.objects.filter(game=game).exists()


# --- a match's built-in games, written together (games.services.actions_record_all) -----


@pytest.mark.django_db(transaction=True)  # autocommit, as in a worker: no test transaction
def test_a_matchs_games_are_written_together_all_or_none(builtins: list[BotVersion]) -> None:
    """The games are sent in one round trip and run as one transaction: an error in one
    (here the second game's log already holds a playout where its own would go) writes
    none of them, and a rerun of the match starts them all afresh."""
    match = services.match_create(versions=builtins, rules=quick(3), seed=7)
    games = list(Game.objects.filter(match_game__match=match).order_by("match_game__rotation"))
    Playout.objects.create(game=games[1], first_seq=1, codes=[0], origin=Event.Origin.BUILTIN)

    with pytest.raises(IntegrityError):
        runner.run_match(match)

    for game in games:
        game.refresh_from_db()
        assert (game.version, game.status) == (0, Game.Status.ACTIVE)
    assert Playout.objects.filter(game__in=games).count() == 1  # the clashing row alone
    assert not Round.objects.filter(game__in=games).exists()


@pytest.mark.django_db(transaction=True)  # announcements go out on commit
def test_a_game_that_moved_on_is_refused_and_the_others_are_written_and_announced(
    builtins: list[BotVersion], settings: Settings
) -> None:
    match = services.match_create(versions=builtins, rules=quick(3), seed=7)
    games = list(Game.objects.filter(match_game__match=match).order_by("match_game__rotation"))
    stale = [Game.objects.get(pk=g.pk) for g in games]
    submit_default(games[1])  # the second game moves on while the batch is played

    def first_legal(state: State) -> int:
        return legal_actions(state)[0]

    channels = [notify.channel(g.pk) for g in games]
    with listening(settings, *channels) as hear, pytest.raises(DomainError) as refused:
        game_services.actions_record_all([(g, first_legal) for g in stale], origin=Event.Origin.API)

    assert refused.value.code == "stale_version"
    for game in games:
        game.refresh_from_db()
    assert [g.status for g in games] == ["finished", "active", "finished"]
    assert games[1].version == 1  # the one action sent meanwhile, nothing of the batch
    assert not Playout.objects.filter(game=games[1]).exists()
    assert [(channel, line[:3]) for channel, line in hear()] == [
        (notify.channel(g.pk).encode(), (b"update", g.version, "finished"))
        for g in (games[0], games[2])
    ]


def submit_default(game: Game) -> None:
    """The seat to act sends the engine's safe default through the action API's service."""
    game.refresh_from_db()
    state = store.load_state(game)
    seat = Seat.objects.get(game=game, number=state.to_act)
    assert seat.user is not None
    game_services.action_submit(
        game_id=game.pk,
        user=seat.user,
        action=action_to_json(default_action(state), state.rules.edition),
        version=state.version,
    )
