"""Playing the card table in a browser test as a person does: tap cards and places until
a move's button shows, then tap it (games/static/games/compose.js lights what can go
together). Also what every test of the table checks at each step: nothing scrolls
sideways, and the page shows no card its viewer may not see."""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

from playwright.sync_api import Locator, Page, expect

from games import selectors
from games.models import Game

FITS = "document.documentElement.scrollWidth <= window.innerWidth"
LIVE = 10_000  # ms for a change to reach another page through the stream
CARD_MOVE = '#board form.move:not([hidden]):not([data-hand=""]) button'
LIT = (
    '#board .card-button:enabled[aria-pressed="false"], '
    '#board [data-token]:enabled[aria-pressed="false"]'
)
ANY_MOVE = "#board form.move:not([hidden]) button"


def compose(page: Page, rng: random.Random, prefer: str = "") -> Locator:
    """Tap lit cards and places (at random) until a move made of cards shows: its button
    (``prefer``, a pattern of words, picks among several); a move of no card (Yield, End
    your turn) when nothing lights up."""
    for _ in range(10):
        made = page.locator(CARD_MOVE)
        if made.count():
            labels = made.all_inner_texts()
            wanted = [i for i, label in enumerate(labels) if prefer and re.search(prefer, label)]
            return made.nth(wanted[0] if wanted else rng.randrange(len(labels)))
        lit = page.locator(LIT)
        if not lit.count():
            break
        lit.nth(rng.randrange(lit.count())).click()
    return page.locator(ANY_MOVE).first


def tap_a_move(page: Page, rng: random.Random, prefer: str = "") -> str:
    """Compose a move by tapping cards (``compose``) and tap it; its words."""
    button = compose(page, rng, prefer)
    label = button.inner_text()
    button.click()
    return label


def shown_cards(page: Page) -> dict[str, Any]:
    """The card keys the page shows, by where: the hand, and everything else."""
    found: dict[str, Any] = page.evaluate(
        """() => ({
          hand: [...document.querySelectorAll('#hand [data-card]')].map(e => e.dataset.card),
          symbols: [...document.querySelectorAll('#board use')]
            .filter(u => !u.closest('#hand'))
            .map(u => u.getAttribute('href').split('#')[1]),
          version: Number(document.getElementById('board').dataset.version),
        })"""
    )
    return found


def check_nothing_hidden_shows(page: Page, game: Game, seat: int | None) -> None:
    """The page's hand is its seat's own at the version shown, and every other card
    picture on it is one the seat's observation shows in public (a stack's card, the
    discard's top, a draft pile's top, a challenge's cards): never another hand."""
    shown = shown_cards(page)
    view = selectors.replay_view(game, seat, shown["version"])
    assert shown["hand"] == (view["hand"] if seat is not None else [])
    pictures = Counter(s for s in shown["symbols"] if s not in ("back", "lock"))
    assert not pictures - public_cards(view), (pictures - public_cards(view), shown["version"])


def public_cards(view: dict[str, Any]) -> Counter[str]:
    """The cards an observation shows in public, by key, as many times as it shows them:
    each set's asset and its seen cards, the discard's top, the draft piles' tops, a
    challenge's cards. A page may draw these and the viewer's own hand, nothing else."""
    public: Counter[str] = Counter()
    for stack in view["stacks"]:
        for aset in stack:
            public[aset["kind"]] += 1
            public.update(c for c in aset["cards"] if c)
    if view["discard"]:
        public[view["discard"][-1]] += 1
    public.update(p["top"] for p in view["draft_piles"] if p["top"])
    challenge = view["challenge"] or {}
    public.update(challenge.get("played") or [])
    public.update(challenge.get("drafted") or [])
    if challenge:
        public[challenge["kind"]] += 1
    return public


def wait_for_version(page: Page, version: int) -> None:
    expect(page.locator("#board")).to_have_attribute("data-version", str(version), timeout=LIVE)


def fits(page: Page) -> bool:
    return bool(page.evaluate(FITS))
