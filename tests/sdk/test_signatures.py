"""The SDK and the platform sign alike, and the SDK refuses forged or stale requests."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from bots import webhook as platform
from cya_bot import webhook as sdk
from tests.sdk.conftest import SDK

SECRET = "a-secret-of-sixteen-or-more"
BODY = b'{"type":"decision","decision_id":"1:0"}'


def test_the_sdk_signs_exactly_as_the_platform_does() -> None:
    timestamp = str(int(time.time()))
    assert sdk.sign(SECRET, timestamp, BODY) == platform.sign(SECRET, timestamp, BODY)
    assert platform.verify(SECRET, timestamp, BODY, sdk.sign(SECRET, timestamp, BODY))


def test_the_sdk_accepts_the_platforms_fresh_signature() -> None:
    timestamp = str(int(time.time()))
    assert sdk.verify(SECRET, timestamp, BODY, platform.sign(SECRET, timestamp, BODY))


def test_the_sdk_refuses_another_secret_a_changed_body_or_no_signature() -> None:
    timestamp = str(int(time.time()))
    signature = platform.sign(SECRET, timestamp, BODY)
    assert not sdk.verify("another-secret-entirely", timestamp, BODY, signature)
    assert not sdk.verify(SECRET, timestamp, BODY + b" ", signature)
    assert not sdk.verify(SECRET, timestamp, BODY, "")
    assert not sdk.verify(SECRET, "", BODY, signature)
    assert not sdk.verify(SECRET, "soon", BODY, signature)


def test_the_sdk_refuses_timestamps_over_five_minutes_old_or_ahead() -> None:
    now = 1_777_663_805.0
    for sent, fresh in (
        (now - 301, False),
        (now - 299, True),
        (now + 299, True),
        (now + 301, False),
    ):
        timestamp = str(int(sent))
        signature = platform.sign(SECRET, timestamp, BODY)
        assert sdk.verify(SECRET, timestamp, BODY, signature, now=now) is fresh, sent - now


def test_the_sdk_imports_neither_django_nor_the_platform() -> None:
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import cya_bot, cya_bot.webhook, "
        "cya_bot.client; print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-c", code, str(SDK)], capture_output=True, text=True, check=True
    ).stdout
    loaded = set(json.loads(out))
    ours = {"django", "rest_framework", "celery", "accounts", "games", "bots", "tournaments"}
    assert loaded & ours == set()
    assert {"cya_bot", "httpx"} <= loaded
