"""BotServer in process: what ``decide`` receives, what it may return, and its failures."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from bots import verdicts, webhook
from cya_bot import BotServer
from games.engine import RuleSet, apply, legal_actions, new_game

SECRET = "bot-server-secret-0123456789"
SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "schemas"

Decide = Callable[[dict[str, Any]], Any]


@pytest.fixture
def serve() -> Iterator[Callable[[Decide], BotServer]]:
    """Start a BotServer on a free port of 127.0.0.1 with a given ``decide``."""
    servers: list[BotServer] = []

    def start(decide: Decide) -> BotServer:
        server = BotServer(decide, secret=SECRET, port=0, name="probe").start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def _decision_validator() -> Draft202012Validator:
    schemas = [json.loads(p.read_text()) for p in SCHEMAS.glob("*.schema.json")]
    registry: Registry[Any] = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in schemas
    )
    decision = next(s for s in schemas if s["title"] == "Decision request")
    return Draft202012Validator({"$ref": decision["$id"]}, registry=registry)


def _ask(url: str, seed: int = 3, seats: int = 3) -> tuple[webhook.Answer, dict[str, Any]]:
    state = new_game(RuleSet.preset("2021", seats=seats), seed=seed)
    payload, _ = verdicts.webhook_decision(
        9, state, decision_ms=1000, time_bank_ms=15_000, now=timezone.now()
    )
    return webhook.ask(url, SECRET, payload, timeout=5), payload


def test_decide_gets_the_platforms_exact_body_which_matches_the_schema(
    serve: Callable[[Decide], BotServer],
) -> None:
    received: list[dict[str, Any]] = []

    def decide(decision: dict[str, Any]) -> Any:
        received.append(decision)
        return decision["legal_actions"][-1]

    server = serve(decide)
    state = new_game(RuleSet.preset("2021", seats=3, advanced={"penny_jar": True}), seed=8)
    validator = _decision_validator()
    for _ in range(30):  # the platform's real POST bodies, over the wire
        payload, _ = verdicts.webhook_decision(
            5, state, decision_ms=800, time_bank_ms=900, now=timezone.now()
        )
        answer = webhook.ask(server.url, SECRET, payload, timeout=5)
        body = received[-1]
        assert body == json.loads(
            webhook._dumps({"protocol_version": 1, "type": "decision", **payload})
        )
        assert list(validator.iter_errors(body)) == []
        assert answer.action == payload["legal_actions"][-1]
        state = apply(state, verdicts.judge(state, answer).action)[0]
    assert {b["decision_ms"] for b in received} == {800}


def test_decide_may_answer_with_a_debug_note_which_is_cut_to_one_kib(
    serve: Callable[[Decide], BotServer],
) -> None:
    server = serve(lambda d: {"action": d["legal_actions"][0], "debug": "é" * 600})
    answer, payload = _ask(server.url)
    assert answer.fault is None
    assert answer.action == payload["legal_actions"][0]
    assert answer.debug == "é" * 512  # 1,024 bytes of UTF-8, never half a character


def test_a_note_under_its_older_name_is_sent_as_the_debug_note(
    serve: Callable[[Decide], BotServer],
) -> None:
    server = serve(lambda d: {"action": d["legal_actions"][0], "note": "why"})
    answer, _ = _ask(server.url)
    assert answer.debug == "why"


def test_a_failing_decide_is_a_500_for_the_platform(
    serve: Callable[[Decide], BotServer], caplog: pytest.LogCaptureFixture
) -> None:
    def decide(decision: dict[str, Any]) -> Any:
        raise RuntimeError("bug in the bot")

    server = serve(decide)
    answer, _ = _ask(server.url)
    assert (answer.fault, answer.detail) == (webhook.HTTP, "HTTP 500")
    assert "decide failed" in caplog.text


def test_a_decide_returning_neither_an_action_nor_an_answer_is_a_500(
    serve: Callable[[Decide], BotServer], caplog: pytest.LogCaptureFixture
) -> None:
    server = serve(lambda d: {"move": "up"})
    answer, _ = _ask(server.url)
    assert (answer.fault, answer.detail) == (webhook.HTTP, "HTTP 500")


def test_it_answers_concurrent_decisions_of_several_games(
    serve: Callable[[Decide], BotServer],
) -> None:
    gate = threading.Barrier(4, timeout=5)

    def decide(decision: dict[str, Any]) -> Any:
        gate.wait()  # all four requests are in decide at once
        return decision["legal_actions"][0]

    server = serve(decide)
    answers: list[webhook.Answer] = []

    def ask(seed: int) -> None:
        answers.append(_ask(server.url, seed=seed)[0])
        webhook.close()  # this thread's connections end with it

    threads = [threading.Thread(target=ask, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [a.fault for a in answers] == [None] * 4


def test_the_secret_comes_from_cya_secret_or_is_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CYA_SECRET", raising=False)
    with pytest.raises(ValueError, match="secret"):
        BotServer(lambda d: d["legal_actions"][0], port=0)
    monkeypatch.setenv("CYA_SECRET", SECRET)
    server = BotServer(lambda d: d["legal_actions"][0], port=0)
    try:
        assert server.secret == SECRET
        assert server.url.startswith("http://127.0.0.1:")
    finally:
        server.stop()


def test_every_legal_action_it_returns_is_accepted_by_the_engine(
    serve: Callable[[Decide], BotServer],
) -> None:
    server = serve(lambda d: d["legal_actions"][len(d["legal_actions"]) // 2])
    state = new_game(RuleSet.preset("2021", seats=2), seed=2)
    for _ in range(20):
        payload, _ = verdicts.webhook_decision(
            1, state, decision_ms=1000, time_bank_ms=0, now=timezone.now()
        )
        verdict = verdicts.judge(state, webhook.ask(server.url, SECRET, payload, timeout=5))
        assert verdict.fault is None
        assert verdict.action in legal_actions(state)
        state = apply(state, verdict.action)[0]
