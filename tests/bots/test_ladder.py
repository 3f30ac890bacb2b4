"""The ladder: choosing tables (bots.matchmaking, pure) and starting matches (bots.ladder).

``pick_table``'s promises are checked with hypothesis; the scheduler runs against the
database with the ladder settings of each test, and its matches are really played (the
built-in strategies, in memory) so games per version move as they do in production.
"""

from __future__ import annotations

from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pytest_django import Settings

from accounts.models import User
from bots import ladder, runner, services
from bots.matchmaking import Candidate, pick_table
from bots.models import Bot, BotVersion, Match, MatchEntry
from bots.validation import BUILTIN_OPPONENTS, SEATABLE_BUILTINS, builtin_versions, opponents
from cya_site.errors import DomainError
from games.engine import RuleSet
from tests.bots.bot_servers import builtin_version
from tests.factories import UserFactory

# --- pick_table ---------------------------------------------------------------------------


@st.composite
def pools(draw: st.DrawFn) -> list[Candidate]:
    """Ready versions: unique ids, a few owners (some with several versions), some of them
    the platform's built-ins (each its own owner, as ``services.owner_key`` counts them)."""
    n = draw(st.integers(1, 14))
    owners = draw(st.lists(st.integers(-4, 7), min_size=n, max_size=n))
    return [
        Candidate(
            id=i + 1,
            owner=owner,
            mu=draw(st.floats(0, 50)),
            games=draw(st.integers(0, 40)),
            entrant=owner >= 0,
        )
        for i, owner in enumerate(owners)
    ]


tables = st.tuples(pools(), st.integers(2, 6), st.integers(0, 2**32), st.floats(0, 1))


@given(tables)
def test_a_table_seats_distinct_versions_of_distinct_owners_or_is_none(
    args: tuple[list[Candidate], int, int, float],
) -> None:
    candidates, size, seed, exploration = args
    ids = pick_table(candidates, size, Random(seed), exploration)
    owners = {c.owner for c in candidates}
    if len(owners) < size or not any(c.entrant for c in candidates):
        assert ids is None
        return
    assert ids is not None
    by_id = {c.id: c for c in candidates}
    assert len(ids) == size == len(set(ids))
    assert len({by_id[i].owner for i in ids}) == size  # no owner twice at a table


@given(tables)
def test_a_table_starts_from_the_entrant_with_the_fewest_games(
    args: tuple[list[Candidate], int, int, float],
) -> None:
    """Built-ins fill seats beside entrants; a table of built-ins alone never starts."""
    candidates, size, seed, exploration = args
    ids = pick_table(candidates, size, Random(seed), exploration)
    if ids is not None:
        entrants = [c for c in candidates if c.entrant]
        fewest = min(c.games for c in entrants)
        assert fewest in {c.games for c in entrants if c.id in ids}


def nearest_partner_share(exploration: float, trials: int = 2000) -> float:
    """How often a two-seat table pairs the anchor with the version nearest its rating.

    The anchor (fewest games) is rated 25; one version is rated 25.5 and nine more 40.
    Without exploration the nearest is always chosen; with it, a random eligible version
    is chosen instead with probability ``exploration`` (the nearest one in 10 of those).
    """
    anchor = Candidate(id=1, owner=1, mu=25.0, games=0)
    near = Candidate(id=2, owner=2, mu=25.5, games=3)
    far = [Candidate(id=i, owner=i, mu=40.0, games=3) for i in range(3, 12)]
    rng = Random(1234)
    hits = 0
    for _ in range(trials):
        ids = pick_table([anchor, near, *far], 2, rng, exploration)
        assert ids is not None
        assert 1 in ids
        hits += 2 in ids
    return hits / trials


@pytest.mark.parametrize("exploration", [0.0, 0.2, 0.5, 1.0])
def test_exploration_replaces_the_nearest_rating_by_a_random_one_at_its_rate(
    exploration: float,
) -> None:
    expected = (1 - exploration) + exploration / 10
    trials = 2000
    spread = 5 * (expected * (1 - expected) / trials) ** 0.5  # five standard deviations
    assert abs(nearest_partner_share(exploration, trials) - expected) <= spread + 1e-9


def test_a_version_far_ahead_in_games_waits_while_versions_behind_can_fill_the_seat() -> None:
    anchor = Candidate(id=1, owner=1, mu=25.0, games=0)
    ahead = Candidate(id=2, owner=2, mu=25.0, games=30)  # the nearest rating, but far ahead
    behind = [Candidate(id=i, owner=i, mu=40.0, games=2) for i in (3, 4)]
    for seed in range(50):
        ids = pick_table([anchor, ahead, *behind], 2, Random(seed), exploration=0.5)
        assert ids is not None
        assert 2 not in ids


# --- the scheduler ------------------------------------------------------------------------


@pytest.fixture
def ladder_settings(settings: Settings) -> Settings:
    """Two tables of three seats, short time controls, the usual exploration."""
    settings.LADDER_TABLES = 2
    settings.LADDER_SEATS = [3]
    settings.LADDER_DECISION_MS = 300
    settings.LADDER_TIME_BANK_MS = 700
    settings.LADDER_EXPLORATION = 0.2
    return settings


@pytest.fixture
def owners(alice: User, bob: User, carol: User) -> list[User]:
    """Seven owners: the cast and four more players."""
    extra = [UserFactory.create(username=f"owner{i}") for i in range(4)]
    return [alice, bob, carol, *extra]


@pytest.fixture
def ready(owners: list[User]) -> list[BotVersion]:
    """One ready built-in version per owner, rated from 15 to 33."""
    versions = []
    for i, owner in enumerate(owners):
        version = builtin_version(owner, f"{owner.username}-bot", ("greedy", "random")[i % 2])
        version.mu = 15.0 + 3 * i
        version.save(update_fields=["mu"])
        versions.append(version)
    return versions


def entries_of(match: Match) -> list[BotVersion]:
    return [e.version for e in MatchEntry.objects.filter(match=match).select_related("version")]


def test_schedule_starts_ladder_tables_matches_of_ladder_seats_seats(
    ladder_settings: Settings, ready: list[BotVersion]
) -> None:
    matches = ladder.schedule()

    assert len(matches) == 2
    seated: list[int] = []
    for match in matches:
        versions = entries_of(match)
        assert len(versions) == 3
        assert len({v.bot.owner_id for v in versions}) == 3
        assert match.kind == Match.Kind.LADDER
        assert match.status == Match.Status.SCHEDULED
        assert match.duplicate is True
        assert match.match_games.count() == 3  # one game per rotation
        assert (match.decision_ms, match.time_bank_ms) == (300, 700)
        seated += [v.pk for v in versions]
    assert len(seated) == len(set(seated))  # nobody at two tables


def test_schedule_tops_up_to_ladder_tables_and_no_further(
    ladder_settings: Settings, ready: list[BotVersion]
) -> None:
    first = ladder.schedule()
    assert ladder.schedule() == []
    Match.objects.filter(pk=first[0].pk).update(status=Match.Status.RUNNING)
    assert ladder.schedule() == []
    runner.run_match(first[1])
    assert len(ladder.schedule()) == 1
    busy = (Match.Status.SCHEDULED, Match.Status.RUNNING)
    assert Match.objects.filter(kind=Match.Kind.LADDER, status__in=busy).count() == 2


def test_schedule_never_seats_a_version_already_in_a_running_match(
    ladder_settings: Settings, ready: list[BotVersion]
) -> None:
    ladder_settings.LADDER_TABLES = 3
    running = services.match_create(versions=ready[:3])
    Match.objects.filter(pk=running.pk).update(status=Match.Status.RUNNING)

    matches = ladder.schedule()

    assert len(matches) == 1  # four versions are free: one table of three
    assert not {v.pk for v in entries_of(matches[0])} & {v.pk for v in ready[:3]}


def test_schedule_starts_nothing_without_enough_owners_for_a_table(
    ladder_settings: Settings, alice: User, bob: User
) -> None:
    builtin_version(alice, "alices-bot", "greedy")
    builtin_version(bob, "bobs-bot", "random")
    second = builtin_version(bob, "bobs-other-bot", "greedy")
    assert ladder.schedule() == []
    assert not Match.objects.exists()
    assert second.bot.owner == bob


def test_schedule_skips_versions_not_ready_and_bots_switched_off(
    ladder_settings: Settings, ready: list[BotVersion]
) -> None:
    BotVersion.objects.filter(pk=ready[0].pk).update(status=BotVersion.Status.PENDING)
    BotVersion.objects.filter(pk=ready[1].pk).update(status=BotVersion.Status.FAILED)
    Bot.objects.filter(pk=ready[2].bot_id).update(is_active=False)
    BotVersion.objects.filter(pk=ready[3].pk).update(status=BotVersion.Status.RETIRED)

    matches = ladder.schedule()

    assert len(matches) == 1  # three versions remain: one table
    assert {v.pk for v in entries_of(matches[0])} == {v.pk for v in ready[4:]}


def test_the_platforms_built_ins_share_a_table_beside_an_entrant(
    db: None, ladder_settings: Settings, alice: User
) -> None:
    builtins = builtin_versions(SEATABLE_BUILTINS)
    assert {v.bot.owner.username for v in builtins} == {services.PLATFORM_USERNAME}
    assert ladder.schedule() == []  # built-ins alone play nobody's table
    entrant = builtin_version(alice, "alices-bot", "greedy")

    matches = ladder.schedule()

    assert len(matches) == 1
    seated = {v.pk for v in entries_of(matches[0])}
    assert entrant.pk in seated
    assert len(seated - {entrant.pk}) == 2
    assert seated - {entrant.pk} <= {v.pk for v in builtins}


def test_validating_a_bot_readies_every_built_in_the_search_player_too(db: None) -> None:
    """So the ladder seats ``ismcts`` beside entrants from the first validated bot on."""
    assert [v.strategy for v in opponents()] == list(BUILTIN_OPPONENTS)
    ready = BotVersion.objects.filter(
        bot__owner__username=services.PLATFORM_USERNAME, status=BotVersion.Status.READY
    )
    assert sorted(v.strategy for v in ready) == sorted(SEATABLE_BUILTINS)
    assert "ismcts" in SEATABLE_BUILTINS


def test_two_versions_of_one_owner_never_share_a_ladder_table(alice: User, bob: User) -> None:
    first = builtin_version(alice, "alices-first", "greedy")
    second = builtin_version(alice, "alices-second", "random")
    third = builtin_version(bob, "bobs-bot", "random")
    with pytest.raises(DomainError) as refused:
        services.match_create(versions=[first, second, third])
    assert (refused.value.code, refused.value.message) == (
        "same_owner",
        "Two versions of one owner never share a ladder table.",
    )
    assert not Match.objects.exists()


def test_a_match_whose_rules_seat_another_number_is_refused(db: None) -> None:
    with pytest.raises(DomainError) as refused:
        services.match_create(
            versions=builtin_versions()[:2], rules=RuleSet.preset("2021", seats=3)
        )

    assert (refused.value.code, refused.value.message, refused.value.http_status) == (
        "invalid_rules",
        "The rules seat 3, the match has 2.",
        422,
    )
    assert not Match.objects.exists()


def test_a_platform_baseline_is_its_own_owner_whatever_its_id(db: None) -> None:
    # an entrant whose owner's user id is the baseline's version id still sits beside it
    same_id = 2_000_000_001
    owner = UserFactory.create(username="dora", id=same_id)
    entrant = builtin_version(owner, "doras-bot", "greedy")
    bot = services.bot_create(owner=services.platform_user(), name="base", kind=Bot.Kind.BUILTIN)
    baseline = BotVersion.objects.create(
        pk=same_id, bot=bot, number=1, strategy="shark", status=BotVersion.Status.READY
    )

    assert services.owner_key(baseline) != services.owner_key(entrant)
    match = services.match_create(versions=[entrant, baseline])
    assert match.entries.count() == 2


ROUNDS = 12


def test_schedule_keeps_games_per_version_equal_over_many_rounds(
    ladder_settings: Settings, ready: list[BotVersion]
) -> None:
    # seven versions, two tables of three: one version sits out each round
    for _ in range(ROUNDS):
        matches = ladder.schedule()
        assert len(matches) == 2
        for match in matches:
            runner.run_match(match)

    games = sorted(
        BotVersion.objects.filter(pk__in=[v.pk for v in ready]).values_list(
            "games_played", flat=True
        )
    )
    assert sum(games) == ROUNDS * 2 * 3 * 3  # rounds x tables x seats x games
    assert games[-1] - games[0] <= 2 * 3  # never more than two tables' games apart
