"""The card pictures (games.web.cardart): each edition's sprite is the one the generator
draws, holds a symbol for every card in that edition's box and a back, carries the
vendored icons' licence, and is light."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from games.engine.cards import EDITIONS
from games.web import cardart


@pytest.mark.parametrize("edition", sorted(EDITIONS))
def test_the_committed_sprite_is_what_the_generator_draws(edition: str) -> None:
    committed = (cardart.STATIC / f"{edition}.svg").read_text()

    assert committed == cardart.sprite(EDITIONS[edition]), (
        "run `.venv/bin/python -m games.web.cardart` and commit the sprites"
    )


@pytest.mark.parametrize("edition", sorted(EDITIONS))
def test_every_card_of_the_edition_has_its_own_picture_and_the_back_is_there(
    edition: str,
) -> None:
    sprite = (cardart.STATIC / f"{edition}.svg").read_text()
    symbols = re.findall(r'<symbol id="([a-z_]+)"', sprite)
    in_box = [c.key for c in EDITIONS[edition].cards if c.count]

    assert sorted(symbols) == sorted([*in_box, "back", "lock"])
    for key in in_box:
        assert cardart.icon_paths(cardart.PICTURES[key]), key
    assert "MIT License" in sprite
    assert "Tabler Icons" in sprite
    assert len(gzip.compress(sprite.encode())) < 4_000


def test_wild_cards_and_tiers_look_different() -> None:
    tiers = {c.key: cardart.tier(c) for c in EDITIONS["2021"].cards if c.count}

    assert tiers["gold"] != tiers["silver"]
    assert "wild" in tiers["gold"]
    assert "wild" in tiers["silver"]
    assert {tiers["comic_books"], tiers["jewels"], tiers["scooter"], tiers["cabin"]} == {
        "t5",
        "t10",
        "t15",
        "t20",
    }
    assert tiers["swap"] == "action"


def test_the_vendored_icons_keep_their_licence_and_name_their_package() -> None:
    icons = Path(cardart.ICONS)

    assert "Permission is hereby granted" in (icons / "LICENSE").read_text()
    assert "@tabler/icons@3.51.0" in (icons / "README.md").read_text()
    for name in set(cardart.PICTURES.values()) | {"lock"}:
        assert (icons / f"{name}.svg").exists(), name
