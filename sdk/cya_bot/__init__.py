"""cya-bot: write a Cover Your Assets bot for the platform in plain Python.

- ``BotServer`` (a webhook bot): the platform POSTs each decision to your server.
- ``PullClient`` (an API-client bot): your bot calls the platform and waits for its turns.

Both call your ``decide(decision) -> action``: ``decision`` is the decision object of
docs/bot-protocol.md, and ``action`` one of ``decision["legal_actions"]``. The package
depends on httpx and the standard library only.

The ``cya-bot`` command (``cya_bot.cli``) plays the same ``decide`` locally against the
built-ins, or replays a finished platform game through it; it loads the platform's pure
engine and built-in strategies, which the distribution ships. Importing ``cya_bot``
itself loads neither.
"""

from .client import ApiError, PullClient
from .webhook import PROTOCOL_VERSION, BotServer, sign, verify

__version__ = "1.0.0"

__all__ = ["PROTOCOL_VERSION", "ApiError", "BotServer", "PullClient", "sign", "verify"]
