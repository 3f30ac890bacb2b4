"""The example webhook bot, run for real, driven by the platform's own webhook client."""

from __future__ import annotations

import json
import time
from random import Random

import httpx
from django.utils import timezone

from bots import verdicts, webhook
from games.engine import RuleSet, apply, new_game
from tests.sdk.conftest import SECRET

DECISION = {"protocol_version": 1, "type": "decision", "decision_id": "1:0", "legal_actions": []}


def _post(url: str, body: bytes, timestamp: str, signature: str) -> httpx.Response:
    headers = {"X-CYA-Timestamp": timestamp, "X-CYA-Signature": signature}
    return httpx.post(url, content=body, headers=headers, timeout=5)


def test_it_answers_the_platforms_handshake(webhook_bot: str) -> None:
    info = webhook.handshake(webhook_bot, SECRET)
    assert info == {"name": "first-pair", "protocol_version": 1}


def test_it_answers_every_decision_of_a_game_legally_preferring_sets(webhook_bot: str) -> None:
    state = new_game(RuleSet.preset("2021", seats=3), seed=4)
    rng = Random(4)
    asked = 0
    while not state.over:
        payload, budget_ms = verdicts.webhook_decision(
            1, state, decision_ms=1000, time_bank_ms=15_000, now=timezone.now()
        )
        answer = webhook.ask(webhook_bot, SECRET, payload, timeout=budget_ms / 1000)
        verdict = verdicts.judge(state, answer)
        assert verdict.fault is None, verdict.detail
        pairs = [a for a in payload["legal_actions"] if a["type"] in ("pair", "pair_discard")]
        assert answer.action == (pairs[0] if pairs else payload["legal_actions"][0])
        asked += 1
        # the bot plays seat 0; a random player takes the other seats' decisions
        if state.to_act != 0:
            legal = payload["legal_actions"]
            verdict = verdicts.judge(state, webhook.Answer(rng.choice(legal), None, "", 0))
        state = apply(state, verdict.action)[0]
    assert asked > 100


def test_a_request_signed_with_another_secret_gets_401_and_a_strike_reason(
    webhook_bot: str,
) -> None:
    state = new_game(RuleSet.preset("2021", seats=4), seed=1)
    payload, _ = verdicts.webhook_decision(
        1, state, decision_ms=1000, time_bank_ms=0, now=timezone.now()
    )
    answer = webhook.ask(webhook_bot, "not-the-bots-secret-at-all", payload, timeout=5)
    assert (answer.fault, answer.detail) == (webhook.HTTP, "HTTP 401")


def test_a_stale_or_future_timestamp_gets_401_even_correctly_signed(webhook_bot: str) -> None:
    body = json.dumps(DECISION).encode()
    # 10 s past the 300 s tolerance: the timestamp is whole seconds (int() drops up to
    # one) and a busy machine may take a while to serve the request; the exact boundary
    # is checked without a clock in test_signatures.py
    for offset in (-310, 310, -3600):
        timestamp = str(int(time.time()) + offset)
        response = _post(webhook_bot, body, timestamp, webhook.sign(SECRET, timestamp, body))
        assert response.status_code == 401, offset


def test_a_forged_or_missing_signature_gets_401(webhook_bot: str) -> None:
    body = json.dumps(DECISION).encode()
    timestamp = str(int(time.time()))
    other = webhook.sign(SECRET, timestamp, b'{"type":"decision"}')
    assert _post(webhook_bot, body, timestamp, other).status_code == 401
    assert _post(webhook_bot, body, timestamp, "sha256=" + "0" * 64).status_code == 401
    assert httpx.post(webhook_bot, content=body, timeout=5).status_code == 401


def test_a_signed_body_that_is_no_decision_gets_400(webhook_bot: str) -> None:
    timestamp = str(int(time.time()))
    for body in (b"not json", b'{"type": "handshake"}', b"[]"):
        response = _post(webhook_bot, body, timestamp, webhook.sign(SECRET, timestamp, body))
        assert response.status_code == 400, body
