"""A webhook bot: forms a set when it can, else takes the first legal action.

CYA_SECRET=<the version's secret> PORT=9001 python sdk/examples/webhook_bot.py
"""

import os
from typing import Any

from cya_bot import BotServer


def decide(decision: dict[str, Any]) -> dict[str, Any]:
    legal: list[dict[str, Any]] = decision["legal_actions"]
    return next((a for a in legal if a["type"] in ("pair", "pair_discard")), legal[0])


if __name__ == "__main__":
    BotServer(decide, name="first-pair", port=int(os.environ.get("PORT", "9001"))).serve_forever()
