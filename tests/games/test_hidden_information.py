"""No game endpoint or page shows what its caller may not know: other hands, the deck,
the seed, a tucked card it never saw. After the end, the replay shows everything.

One seeded three-seat game is played once for the whole module, through the HTTP API,
preferring pairs so that stacks fill with tucked cards. Along the way every game
endpoint, and the game page and its board, is called by every kind of caller (each
seat, a staff member without a seat, an anonymous client) and every response is kept.
The tests then hold each response against the engine's state at that moment, rebuilt
from the seed and the log.
"""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from random import Random
from typing import Any

import pytest
from django.conf import settings
from django.db import transaction
from django.test import Client, override_settings
from pytest_django import DjangoDbBlocker
from rest_framework.test import APIClient

from accounts.models import User
from games import services
from games.engine import (
    RuleSet,
    State,
    action_from_json,
    action_to_json,
    legal_actions,
    new_game,
    observe,
)
from games.engine import resign as engine_resign
from games.engine.actions import RESIGN, action_type
from games.models import Event, Game
from games.store import replay_one
from tests.cardtable import public_cards
from tests.clients import authenticate
from tests.factories import UserFactory
from tests.games.conftest import game_url

# Each test reads the recorded trace; the mark makes the session create the test database.
pytestmark = pytest.mark.django_db

SEED = 7_384_165_290_173_645_221  # 19 digits: a number no response shows by chance
RULES = RuleSet.preset("2021", seats=3, ending="quick")
SWEEP_EVERY = 3  # versions between sweeps of every endpoint by every viewer
RESIGNS_AT = 30  # seat 2 resigns once the game reaches this version
Viewer = int | str  # a seat number, "staff" (signed in, no seat) or "anonymous"


@dataclass
class Seen:
    """One response: which version of the game it saw, who asked, and what came back."""

    version: int
    viewer: Viewer
    what: str
    status: int
    body: Any
    text: str

    @property
    def seat(self) -> int | None:
        """The viewer's seat, or None (the engine's spectator)."""
        return self.viewer if isinstance(self.viewer, int) else None


@dataclass
class Trace:
    game_id: int
    seen: list[Seen] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    states: list[State] = field(default_factory=list)
    replay: Any = None
    replay_views: dict[tuple[int, int | None], Any] = field(default_factory=dict)
    schema: Any = None

    def during_play(self) -> Iterator[Seen]:
        """Responses given while the game was being played."""
        return (s for s in self.seen if not self.states[s.version].over)


class Recorder:
    """Calls endpoints as the trace's viewers and keeps every response."""

    def __init__(
        self, trace: Trace, clients: dict[Viewer, APIClient], pages: dict[Viewer, Client]
    ) -> None:
        self.trace, self.clients, self.pages = trace, clients, pages

    def page(self, viewer: Viewer, version: int, path: str) -> Seen:
        """A page (its HTML as ``text``, ``body`` None), as the viewer's browser gets it."""
        response = self.pages[viewer].get(f"/games/{self.trace.game_id}/{path}")
        seen = Seen(
            version, viewer, f"page:{path}", response.status_code, None, response.content.decode()
        )
        assert seen.status == 200, seen
        self.trace.seen.append(seen)
        return seen

    def get(self, viewer: Viewer, version: int, what: str, query: Any = None) -> Seen:
        path = game_url(self.trace.game_id, what) if what != "list" else "/api/v1/games/"
        return self._keep(viewer, version, what, self.clients[viewer].get(path, query))

    def post(self, viewer: Viewer, version: int, what: str, data: Any = None) -> Seen:
        response = self.clients[viewer].post(
            game_url(self.trace.game_id, what), data, format="json"
        )
        return self._keep(viewer, version, what, response)

    def _keep(self, viewer: Viewer, version: int, what: str, response: Any) -> Seen:
        text = response.content.decode()
        seen = Seen(version, viewer, what, response.status_code, json.loads(text), text)
        assert seen.status < 500, seen
        self.trace.seen.append(seen)
        return seen

    def sweep(self, version: int, *, anonymous: bool) -> None:
        """Every read endpoint, as every viewer."""
        viewers: list[Viewer] = [0, 1, 2, "staff"]
        if anonymous:
            viewers.append("anonymous")
        for viewer in viewers:
            self.get(viewer, version, "")
            self.get(viewer, version, "observation")
            self.get(viewer, version, "events", {"after": max(-1, version - 8)})
            self.get(viewer, version, "wait", {"after": version, "timeout": 0})
            if viewer != "anonymous":
                self.get(viewer, version, "decision")
            self.page(viewer, version, "board/")
            if anonymous:
                self.page(viewer, version, "")
        self.get(0, version, "list")


def choose(legal: list[dict[str, Any]], rng: Random) -> dict[str, Any]:
    """Pairs first (each tucks a card), then often a pair with the discard, else anything."""
    pairs = [a for a in legal if a["type"] == "pair"]
    if pairs:
        return pairs[0]
    with_discard = [a for a in legal if a["type"] == "pair_discard"]
    if with_discard and rng.random() < 0.7:
        return with_discard[0]
    return rng.choice(legal)


def play(recorder: Recorder, staff_client: APIClient) -> None:
    trace = recorder.trace
    started = recorder.post("staff", 0, "start", {"seed": SEED})
    assert started.status == 200
    rng = Random(5)
    version, to_act, resigned = 0, started.body["to_act"], False
    recorder.get(0, 0, "replay")
    recorder.get("anonymous", 0, "replay/view", {"step": 0})
    while to_act is not None:
        if version % SWEEP_EVERY == 0:
            recorder.sweep(version, anonymous=version % (2 * SWEEP_EVERY) == 0)
        if version >= RESIGNS_AT and not resigned:
            resigned = True
            entry = recorder.post(2, version + 1, "resign")
            assert entry.status == 200, entry.body
            version = entry.body["seq"]
            to_act = Game.objects.get(pk=trace.game_id).to_act
            continue
        decision = recorder.get(to_act, version, "decision").body["decision"]
        action = choose(decision["legal_actions"], rng)
        result = recorder.post(
            to_act, version + 1, "actions", {"action": action, "version": version}
        )
        assert result.status == 201, result.body
        version, to_act = result.body["game"]["version"], result.body["game"]["to_act"]
    recorder.sweep(version, anonymous=True)


def read_back(trace: Trace, recorder: Recorder, staff_client: APIClient) -> None:
    rows = Event.objects.filter(game_id=trace.game_id).order_by("seq")
    trace.log = [
        {
            "seq": e.seq,
            "seat": e.seat,
            "action": e.action,
            "code": e.action_code,
            "origin": e.origin,
            "events": e.public_events,
        }
        for e in rows
    ]
    state = new_game(RULES, SEED)
    trace.states = [state]
    for entry in trace.log[1:]:
        state = replay_one(state, entry["code"])
        trace.states.append(state)
    trace.replay = recorder.get("anonymous", len(trace.states) - 1, "replay")
    observed = {(s.version, s.seat) for s in trace.seen if s.what == "observation"}
    for step, seat in sorted(observed, key=lambda k: (k[0], -1 if k[1] is None else k[1])):
        query = {"step": step} if seat is None else {"step": step, "seat": seat}
        response = staff_client.get(game_url(trace.game_id, "replay/view"), query)
        assert response.status_code == 200, response.json()
        trace.replay_views[(step, seat)] = response.json()
    trace.schema = APIClient().get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()


@pytest.fixture(scope="module")
def trace(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Trace:
    """The whole game and every response, recorded in a transaction that is rolled back."""
    caches = {
        name: {**config, "KEY_PREFIX": f"hidden-{uuid.uuid4().hex}"}
        for name, config in settings.CACHES.items()
    }
    with django_db_blocker.unblock(), override_settings(CACHES=caches), transaction.atomic():
        players = [UserFactory.create(username=f"hidden{n}") for n in range(3)]
        staff = UserFactory.create(username="hiddenstaff", is_staff=True)
        game = services.game_create(by=players[0], rules=RULES)
        for player in players[1:]:
            services.game_join(game=game, user=player)
        clients: dict[Viewer, APIClient] = {"anonymous": APIClient()}
        pages: dict[Viewer, Client] = {"anonymous": Client()}
        signed_in: list[tuple[Viewer, User]] = [*enumerate(players), ("staff", staff)]
        for viewer, user in signed_in:
            clients[viewer] = APIClient()
            authenticate(clients[viewer], user)
            pages[viewer] = Client()
            pages[viewer].force_login(user)
        recorder = Recorder(Trace(game.pk), clients, pages)
        play(recorder, clients["staff"])
        read_back(recorder.trace, recorder, clients["staff"])
        transaction.set_rollback(True)
    return recorder.trace


# --- what the engine hides, at a version, from a viewer -------------------------------


def keys(state: State, cards: tuple[int, ...]) -> list[str]:
    return [state.table.keys[c] for c in cards]


def hidden_hands(state: State, seat: int | None) -> list[list[str]]:
    """Other seats' hands (sorted card keys), of at least three cards."""
    return [
        sorted(keys(state, hand.cards))
        for n, hand in enumerate(state.hands)
        if n != seat and hand.size >= 3
    ]


def hidden_tucks(state: State, seat: int | None) -> list[tuple[int, int, int]]:
    """(owner, set index, card index) of every tucked card ``seat`` has not seen."""
    bit = 0 if seat is None else 1 << seat
    return [
        (owner, index, aset.tucked)
        for owner, stack in enumerate(state.stacks)
        for index, aset in enumerate(stack)
        if aset.tucked >= 0 and owner != seat and not aset.knowers & bit
    ]


def walk(value: Any) -> Iterator[Any]:
    """Every dict and list inside a JSON value, the value itself included."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from walk(item)
    elif isinstance(value, list):
        yield value
        for item in value:
            yield from walk(item)


def card_lists(body: Any) -> Iterator[list[str]]:
    for node in walk(body):
        if isinstance(node, list) and node and all(isinstance(x, str) for x in node):
            yield node


def observations_in(seen: Seen) -> Iterator[dict[str, Any]]:
    """Every seat's-eye view inside a response (an observation, or a decision's)."""
    for node in walk(seen.body):
        if isinstance(node, dict) and "hand_counts" in node and "stacks" in node:
            yield node


def states_of(trace: Trace, seen: Seen) -> list[State]:
    """The states a response may reveal something of: after, and for actions also before."""
    after = trace.states[seen.version]
    if seen.what in ("actions", "resign"):
        return [trace.states[seen.version - 1], after]
    return [after]


# --- the game is a fair test -----------------------------------------------------------


def test_the_game_reaches_positions_with_hidden_hands_and_tucked_cards(trace: Trace) -> None:
    swept = {s.version for s in trace.seen if s.what == "observation"}
    tucked = [v for v in swept if all(hidden_tucks(trace.states[v], seat) for seat in (0, 1, 2))]

    assert trace.states[-1].over
    assert len(swept) >= 10
    assert len(tucked) >= 3
    assert any(entry["origin"] == "resign" for entry in trace.log)
    assert {s.what for s in trace.seen} >= {
        "",
        "list",
        "observation",
        "decision",
        "events",
        "wait",
        "actions",
        "resign",
        "start",
        "replay",
        "replay/view",
    }


# --- during play ------------------------------------------------------------------------


def test_observations_are_exactly_what_the_engine_lets_each_caller_see(trace: Trace) -> None:
    for seen in trace.seen:
        if seen.what == "observation":
            assert seen.body == observe(trace.states[seen.version], seen.seat), seen


def test_a_decision_shows_only_the_callers_own_legal_actions_and_view(trace: Trace) -> None:
    for seen in trace.seen:
        decision = seen.body.get("decision") if isinstance(seen.body, dict) else None
        if seen.what not in ("decision", "actions") or decision is None:
            continue
        state = trace.states[decision["version"]]
        assert decision["seat"] == seen.seat == state.to_act, seen
        assert decision["observation"] == observe(state, seen.seat)
        assert decision["legal_actions"] == [
            action_to_json(a, "2021") for a in legal_actions(state)
        ]


def test_no_response_during_play_shows_another_seats_hand(trace: Trace) -> None:
    for seen in trace.during_play():
        for state in states_of(trace, seen):
            secret = hidden_hands(state, seen.seat)
            for cards in card_lists(seen.body):
                assert sorted(cards) not in secret, (seen.viewer, seen.what, cards)
        for view in observations_in(seen):
            state = trace.states[view["version"]]
            own = [] if seen.seat is None else keys(state, state.hands[seen.seat].cards)
            assert view["hand"] == own, seen
        for node in walk(seen.body):
            assert not (isinstance(node, dict) and "hands" in node), seen


HAND = re.compile(r'<ul class="hand" id="hand"[^>]*>(.*?)</ul>', re.S)
CARD = re.compile(r'data-card="([a-z_]+)"')
PICTURE = re.compile(r'<use href="[^"]*#([a-z_]+)"></use>')


def test_no_page_during_play_draws_another_seats_hand_or_a_card_it_may_not_see(
    trace: Trace,
) -> None:
    """The game page and its board: the hand drawn is the viewer's own, and every other
    card picture is one the viewer's observation shows in public."""
    pages = 0
    for seen in trace.during_play():
        if not seen.what.startswith("page:"):
            continue
        state = trace.states[seen.version]
        view = observe(state, seen.seat)
        hand = HAND.search(seen.text)
        drawn = CARD.findall(hand.group(1)) if hand else []
        assert drawn == view["hand"], (seen.viewer, seen.version)
        elsewhere = HAND.sub("", seen.text)
        assert CARD.findall(elsewhere) == [], seen.viewer
        pictures = Counter(p for p in PICTURE.findall(elsewhere) if p not in ("back", "lock"))
        assert not pictures - public_cards(view), (seen.viewer, seen.version)
        pages += 1
    assert pages > 100


def test_no_response_during_play_shows_the_deck_order(trace: Trace) -> None:
    for seen in trace.during_play():
        for state in states_of(trace, seen):
            deck = keys(state, state.deck_left)
            runs = {tuple(deck[i : i + 5]) for i in range(len(deck) - 4)}
            for cards in card_lists(seen.body):
                for i in range(len(cards) - 4):
                    assert tuple(cards[i : i + 5]) not in runs, (seen.viewer, seen.what, cards)
        for node in walk(seen.body):
            assert not (isinstance(node, dict) and "deck" in node), seen


def test_no_response_during_play_shows_the_seed(trace: Trace) -> None:
    for seen in trace.during_play():
        assert str(SEED) not in seen.text, seen
        for node in walk(seen.body):
            if isinstance(node, dict) and "seed" in node:
                assert node["seed"] is None, seen


def test_no_response_shows_a_tucked_card_its_caller_never_saw(trace: Trace) -> None:
    checked = 0
    for seen in trace.during_play():
        for view in observations_in(seen):
            state = trace.states[view["version"]]
            for owner, index, card in hidden_tucks(state, seen.seat):
                assert view["stacks"][owner][index]["cards"][card] is None, seen
                checked += 1
    assert checked > 100


def test_a_caller_sees_the_tucked_cards_of_its_own_sets(trace: Trace) -> None:
    own = 0
    for seen in trace.seen:
        if seen.what != "observation" or seen.seat is None:
            continue
        state = trace.states[seen.version]
        for index, aset in enumerate(state.stacks[seen.seat]):
            if aset.tucked >= 0:
                cards = seen.body["stacks"][seen.seat][index]["cards"]
                assert cards == keys(state, aset.cards)
                own += 1
    assert own > 0


def test_public_events_never_carry_the_action_of_a_pair(trace: Trace) -> None:
    pairs = [e for e in trace.log if e["action"] and e["action"]["type"] == "pair"]
    assert pairs
    for entry in pairs:
        for event in entry["events"]:
            assert event != entry["action"]
            if event["type"] == "pair":
                assert event["cards"][1] is None  # RULES #9: the second card is tucked
                assert event["cards"] != entry["action"]["cards"]
    for seen in trace.seen:
        if seen.what == "events" and seen.status == 200:
            for row in seen.body:
                assert set(row) == {"seq", "seat", "events"}


def test_a_pair_with_the_discard_hides_the_hand_card_it_tucks(trace: Trace) -> None:
    tucked = 0
    for entry in trace.log:
        if not entry["action"] or entry["action"]["type"] != "pair_discard":
            continue
        event = next(e for e in entry["events"] if e["type"] == "pair_discard")
        if event["cards"][1] is None:
            tucked += 1
        else:  # a wild taken from the discard: the hand asset shows, and defines the set
            assert event["cards"][0] == entry["action"]["card"]
    assert tucked > 0


def test_the_replay_is_refused_until_the_game_ends(trace: Trace) -> None:
    refused = [s for s in trace.seen if s.what in ("replay", "replay/view") and s.version == 0]

    assert len(refused) == 2
    for seen in refused:
        assert seen.status == 409
        assert seen.body["code"] == "replay_not_available"


# --- after the end ----------------------------------------------------------------------


def test_after_the_end_the_game_shows_its_seed(trace: Trace) -> None:
    last = len(trace.states) - 1
    details = [s for s in trace.seen if s.what == "" and s.version == last]

    assert details
    assert all(s.body["seed"] == SEED and s.body["status"] == "finished" for s in details)


def test_after_the_end_the_replay_serves_the_seed_and_every_action(trace: Trace) -> None:
    assert trace.replay.status == 200
    body = trace.replay.body
    assert body["seed"] == SEED
    assert RuleSet.from_json(body["rules"]) == RULES
    assert body["log"] == [
        {k: e[k] for k in ("seq", "seat", "action", "origin", "events")} for e in trace.log
    ]
    state = new_game(RULES, SEED)
    for entry in body["log"][1:]:
        action = entry["action"]
        if action["type"] == "resign":
            state = engine_resign(state, action["seat"])[0]
        else:
            code = action_from_json(action, "2021")
            assert action_type(code) != RESIGN
            state = replay_one(state, code)
    assert state == trace.states[-1]
    assert state.over


def test_replay_views_reproduce_what_each_seat_saw(trace: Trace) -> None:
    observed = [s for s in trace.seen if s.what == "observation"]

    assert {s.seat for s in observed} == {0, 1, 2, None}
    for seen in observed:
        assert trace.replay_views[(seen.version, seen.seat)] == seen.body, seen


# --- coverage -----------------------------------------------------------------------------

# Endpoints with nothing hidden to show: before the deal (create, join, leave) there are no
# hands or deck yet, and abort ends the game (its seed is then public). A fork is made from
# an ended game and opens a table not yet dealt; a fork's own play is checked in
# tests/games/test_fork.py.
BEFORE_OR_AFTER_PLAY = {
    ("post", "/api/v1/games/"),
    ("post", "/api/v1/games/{id}/fork/"),
    ("post", "/api/v1/games/{id}/join/"),
    ("post", "/api/v1/games/{id}/leave/"),
    ("post", "/api/v1/games/{id}/abort/"),
}
# The stream needs a live server: its leak checks are in tests/games/test_stream.py
# (test_anyone_signed_in_may_follow_a_game_and_only_a_seat_hears_its_hand).
STREAMED = {("get", "/api/v1/games/{id}/stream/")}


def test_every_documented_games_endpoint_is_covered(trace: Trace) -> None:
    covered = {
        ("post" if s.what in ("start", "actions", "resign") else "get", s.what) for s in trace.seen
    }
    for path, item in trace.schema["paths"].items():
        if not path.startswith("/api/v1/games/"):
            continue
        for method in item:
            if (method, path) in BEFORE_OR_AFTER_PLAY | STREAMED:
                continue
            what = path.removeprefix("/api/v1/games/").removeprefix("{id}/").strip("/")
            what = "list" if path == "/api/v1/games/" else what
            assert (method, what) in covered, (method, path)
