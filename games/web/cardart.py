"""The card pictures: one SVG sprite of ``<symbol>`` elements per edition, drawn here.

Each card of an edition gets a symbol named after its key (``#piano``): a disc tinted by
the card's tier with a line picture on it, plus ``#back`` for a face-down card. The line
pictures are Tabler Icons (MIT), vendored unchanged in ``games/web/icons/``; the tints,
the wild cards' rays and the back are drawn for this project. Never the publisher's art.

The sprites are static files (``games/static/games/cards/<edition>.svg``), written by
running this module; a test fails while a committed one differs from what it draws. A
card's name and value are HTML text beside its picture (games/templates/games/_card.html),
so they are read aloud, translated and selectable.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from games.engine.cards import EDITIONS, Card, Edition

ICONS = Path(__file__).resolve().parent / "icons"
STATIC = Path(__file__).resolve().parent.parent / "static" / "games" / "cards"
VERSION = "Tabler Icons 3.51.0"

# A picture per card key, every edition's keys (the German deck names its own cards).
PICTURES = {
    "baseball_cards": "ball-baseball",
    "baseballkarten": "ball-baseball",
    "cash_under_the_mattress": "bed",
    "matratzengeld": "bed",
    "stamp_collection": "email-stamp",
    "piggy_bank": "pig-money",
    "sparschwein": "pig-money",
    "stocks": "chart-line",
    "aktien": "chart-line",
    "bank_account": "building-bank",
    "bankkonto": "building-bank",
    "coin_collection": "coins",
    "muenzsammlung": "coins",
    "jewels": "diamond",
    "juwelen": "diamond",
    "classic_auto": "car",
    "oldtimer": "car",
    "home": "home",
    "eigenheim": "home",
    "comic_books": "books",
    "piano": "piano",
    "toy_train": "train",
    "scooter": "scooter",
    "sport_plane": "plane",
    "motorboot": "speedboat",
    "cabin": "building-cottage",
    "silver": "medal-2",
    "silber": "medal-2",
    "gold": "crown",
    "penny_jar": "tip-jar",
    "muenzenglas": "tip-jar",
    "swap": "arrows-exchange",
    "tauschen": "arrows-exchange",
    "move": "arrows-up-down",
    "verschieben": "arrows-up-down",
}

# The disc behind the picture, by tier: the same tier has the same colour in every edition.
TINTS = {
    1_000: "#e7c4a5",  # the Penny Jar: copper
    5_000: "#cfe8cf",
    10_000: "#cfe0f5",
    15_000: "#e2d4f0",
    20_000: "#f6d7c3",
    25_000: "#d9dee4",  # Silver
    50_000: "#f6dc7d",  # Gold
    0: "#d5d9e0",  # Swap and Move
}
INK = "#1d2430"
PATH = re.compile(r"<path\b[^>]*?\bd=\"([^\"]+)\"[^>]*/>")


def tier(card: Card) -> str:
    """A card's tier as a CSS class: ``t5`` ($5,000) ... ``t20``; the wilds ``silver``,
    ``gold`` and ``jar`` (the Penny Jar); ``action`` (Swap, Move)."""
    if card.kind == "action":
        return "action"
    if card.kind == "wild":
        return {25_000: "wild silver", 50_000: "wild gold"}.get(card.value, "wild jar")
    return f"t{card.value // 1000}"


def icon_paths(name: str) -> list[str]:
    """The drawing of one vendored icon: its path data, without the empty frame."""
    text = (ICONS / f"{name}.svg").read_text()
    return [d for d in PATH.findall(text) if d != "M0 0h24v24H0z"]


def _symbol(card: Card) -> str:
    paths = "".join(f'<path d="{d}"/>' for d in icon_paths(PICTURES[card.key]))
    rays = ""
    if card.kind == "wild" and card.value >= 25_000:  # wild cards shine: they pair with any
        rays = (
            '<path d="M12 .6v2.2M12 21.2v2.2M.6 12h2.2M21.2 12h2.2M3.9 3.9l1.6 1.6'
            'M18.5 18.5l1.6 1.6M3.9 20.1l1.6-1.6M18.5 5.5l1.6-1.6" stroke="#b08a1e"/>'
        )
    return (
        f'<symbol id="{card.key}" viewBox="0 0 24 24">'
        f'<circle cx="12" cy="12" r="10.2" fill="{TINTS[card.value]}"/>{rays}'
        f'<g transform="translate(4.8 4.8) scale(.6)" fill="none" stroke="{INK}" '
        f'stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round">{paths}</g>'
        "</symbol>"
    )


BACK = (
    '<symbol id="back" viewBox="0 0 24 24">'
    '<circle cx="12" cy="12" r="10.2" fill="#fdf6e3" stroke="#9a7b2f" stroke-width="1.2"/>'
    '<path d="M15 8.6c-.6-1-1.7-1.6-3-1.6-1.7 0-3 .9-3 2.3 0 3.2 6 1.8 6 5 0 1.4-1.3 2.3-3 2.3'
    '-1.3 0-2.4-.6-3-1.6M12 5.5v13" fill="none" stroke="#9a7b2f" stroke-width="1.6" '
    'stroke-linecap="round"/></symbol>'
)


def sprite(edition: Edition) -> str:
    """The edition's sprite: a symbol for each card in its box, and the back."""
    notice = (ICONS / "LICENSE").read_text().strip().replace("--", "- -")
    symbols = "\n".join(_symbol(c) for c in edition.cards if c.count)
    lock = "".join(f'<path d="{d}"/>' for d in icon_paths("lock"))
    extras = (  # not cards: the mark of a protected bottom set (RULES #11)
        f'<symbol id="lock" viewBox="0 0 24 24"><g fill="none" stroke="currentColor" '
        f'stroke-width="2" stroke-linecap="round" stroke-linejoin="round">{lock}</g></symbol>'
    )
    return (
        '<svg xmlns="http://www.w3.org/2000/svg">\n'
        f"<!-- Cover Your Assets, {edition.name}: card pictures drawn for this project "
        f"(games/web/cardart.py). Line pictures: {VERSION}, https://tabler.io/icons\n"
        f"{notice}\n-->\n{symbols}\n{BACK}\n{extras}\n</svg>\n"
    )


def main() -> None:
    """Write every edition's sprite into the static files."""
    STATIC.mkdir(parents=True, exist_ok=True)
    for key, edition in EDITIONS.items():
        path = STATIC / f"{key}.svg"
        path.write_text(sprite(edition))
        sys.stdout.write(f"{path}\n")


if __name__ == "__main__":
    main()
