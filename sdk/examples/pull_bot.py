"""An API-client bot: waits for its turns, forms a set when it can, else acts first-legal.

CYA_URL=http://127.0.0.1:8000 CYA_TOKEN=<the bot's token> python sdk/examples/pull_bot.py
"""

import os
from typing import Any

from cya_bot import PullClient


def decide(decision: dict[str, Any]) -> dict[str, Any]:
    legal: list[dict[str, Any]] = decision["legal_actions"]
    return next((a for a in legal if a["type"] in ("pair", "pair_discard")), legal[0])


if __name__ == "__main__":
    PullClient(os.environ["CYA_URL"], os.environ["CYA_TOKEN"], decide).run()
