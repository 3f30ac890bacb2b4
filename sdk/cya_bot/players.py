"""The bots ``cya-bot`` plays: your ``decide`` function, or your webhook server's URL.

A bot is named on the command line as

- ``path/to/bot.py`` or ``path/to/bot.py:function``: the file's ``decide`` (or the named
  function), the one you hand to ``BotServer``; the file runs as a module, not as
  ``__main__``, so its ``if __name__ == "__main__":`` block (which starts the server)
  stays idle;
- ``package.module:function``: the same, imported from ``sys.path``;
- ``http://...`` or ``https://...``: a running webhook bot in any language, sent each
  decision signed with ``secret`` as the platform signs it.

Each becomes a ``Decide``: decision object in, ``decide``'s return value out (an action,
or ``{"action": ..., "debug": ...}``).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from .webhook import PROTOCOL_VERSION, Decide, Decision, sign


class BotError(Exception):
    """A bot that cannot be loaded or reached: the message says why."""


def load(spec: str, *, secret: str | None = None) -> Decide:
    """The bot named by ``spec`` (see the module's docstring); BotError says what is wrong."""
    if spec.startswith(("http://", "https://")):
        if not secret:
            raise BotError(f"{spec} is a webhook bot: give its secret (--secret or CYA_SECRET)")
        return Remote(spec, secret)
    target, _, function = spec.partition(":")
    if target.endswith(".py") or Path(target).is_file():
        module = _from_file(Path(target))
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as error:
            raise BotError(f"cannot import {target!r}: {error}") from None
    decide = getattr(module, function or "decide", None)
    if not callable(decide):
        raise BotError(f"{target} has no function {function or 'decide'!r}")
    return decide  # type: ignore[no-any-return]


def _from_file(path: Path) -> Any:
    if not path.is_file():
        raise BotError(f"no such file: {path}")
    folder = str(path.resolve().parent)
    if folder not in sys.path:  # the bot's own helper modules sit beside it
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(f"cya_bot_user_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise BotError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Remote:
    """A running webhook bot: each decision POSTed, signed, as the platform sends it."""

    def __init__(self, url: str, secret: str, timeout: float = 30.0) -> None:
        self.url = url
        self.secret = secret
        self.client = httpx.Client(timeout=timeout)

    def handshake(self) -> dict[str, Any]:
        """The bot's answer to the platform's handshake (``GET``)."""
        timestamp = str(int(time.time()))
        headers = {
            "X-CYA-Timestamp": timestamp,
            "X-CYA-Signature": sign(self.secret, timestamp, b""),
        }
        info = self._json(self.client.get(self.url, headers=headers))
        if info.get("protocol_version") != PROTOCOL_VERSION:
            raise BotError(f"{self.url} answers protocol {info.get('protocol_version')!r}")
        return info

    def __call__(self, decision: Decision) -> dict[str, Any]:
        body = json.dumps(decision, separators=(",", ":")).encode()
        timestamp = str(int(time.time()))
        headers = {
            "Content-Type": "application/json",
            "X-CYA-Timestamp": timestamp,
            "X-CYA-Signature": sign(self.secret, timestamp, body),
            "X-CYA-Decision": str(decision.get("decision_id")),
        }
        return self._json(self.client.post(self.url, content=body, headers=headers))

    def _json(self, response: httpx.Response) -> dict[str, Any]:
        if response.status_code != 200:
            raise BotError(f"{self.url} answered HTTP {response.status_code}")
        try:
            data = response.json()
        except ValueError:
            raise BotError(f"{self.url} answered something other than JSON") from None
        if not isinstance(data, dict):
            raise BotError(f"{self.url} answered {type(data).__name__}, not an object")
        return data
