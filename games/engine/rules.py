"""RuleSet: one frozen value holding every rule option, with the RULES.md defaults.

Every option of RULES.md section 2 is a named field; the defaults follow the 2021
official guide (EN21). ``PRESETS`` bundles the three editions (RULES.md section 3).
The engine never reads a RuleSet field on the hot path: ``table.compile_rules`` turns it
into a ``Table`` of plain attributes once, cached per RuleSet. (Never compiled by
``make engine``: mypyc's classes would refuse a wrongly typed option with a TypeError
before the validation below could say which option is wrong.)
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from typing import Any

from .advanced import Advanced
from .cards import EDITIONS, Edition
from .errors import InvalidRules

FIRST_PLAYER = ("rotate", "lowest_total_starts", "random_each_round")  # RULES #4
DISCARD_PAIR_WILD = ("both", "hand_wild_only", "none")  # RULES #6
AUTO_YIELD = ("empty_hand_only", "no_legal_card")  # RULES #17
BOTTOM_PROTECTION = ("position", "first_formed")  # RULES #12
ENDINGS = ("classic", "quick", "highest_after_n", "first_to_n_round_wins")  # RULES #24
TIE_POLICY = ("extra_round", "shared_win")  # RULES #23
DEFAULT_ENDING_ROUNDS = {"highest_after_n": 3, "first_to_n_round_wins": 2}  # RULES #24
DRAFT_PILES, DRAFT_PILE_SIZE = 3, 10  # EN21 2- and 3-player set-up


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every rule option of a game; invalid values or combinations raise InvalidRules."""

    edition: str = "2021"  # RULES #2, section 1
    seats: int = 4  # RULES #5
    max_players: int = 6  # RULES #5: 6, up to 8 for casual tables
    hand_size: int | None = None  # RULES #1: None derives it from edition, seats, hand_six
    draft_piles: bool | None = None  # RULES #34: None = on for 2-3 seats in 2021/de2023
    initial_discard_flip: bool = True  # RULES #3
    first_player: str = "rotate"  # RULES #4
    discard_pair_wild: str = "both"  # RULES #6
    hide_tucked_wilds: bool = True  # RULES #9
    bottom_protection: str = "position"  # RULES #12
    auto_yield: str = "empty_hand_only"  # RULES #17
    swap_may_take_bottom_set: bool = True  # RULES #30
    draft_challenge_requires_own_set: bool = False  # RULES #35
    ending: str = "classic"  # RULES #24
    ending_rounds: int | None = None  # RULES #24: N of highest_after_n (3) / first_to_n (2)
    target: int = 1_000_000  # RULES #22
    target_inclusive: bool = True  # RULES #22
    tie_policy: str = "extra_round"  # RULES #23
    advanced: Advanced = field(default_factory=Advanced)

    def __post_init__(self) -> None:
        _validate(self)

    @property
    def edition_data(self) -> Edition:
        """The card catalogue of this edition."""
        return EDITIONS[self.edition]

    @property
    def effective_hand_size(self) -> int:
        """The hand size in play (RULES #1, 2.8.12)."""
        if self.hand_size is not None:
            return self.hand_size
        if self.advanced.hand_six:
            return 6
        if self.edition == "2011":
            return 5 if self.seats <= 3 else 4
        return 6 if self.seats == 2 else 5

    @property
    def uses_draft_piles(self) -> bool:
        """Whether the 2- and 3-player draft piles are in play (RULES #34)."""
        if self.draft_piles is not None:
            return self.draft_piles
        return self.seats <= 3 and self.edition != "2011"

    @property
    def effective_ending_rounds(self) -> int:
        """N for the highest-after-N and first-to-N-wins endings (RULES #24)."""
        return self.ending_rounds or DEFAULT_ENDING_ROUNDS.get(self.ending, 1)

    def deck(self) -> tuple[int, ...]:
        """The unshuffled deck this rule set plays with (RULES #2, 2.8.12)."""
        return self.edition_data.deck(
            penny_jar=self.advanced.penny_jar,
            swap=self.advanced.has_swap,
            move=self.advanced.has_move,
            two_players=self.seats == 2,
        )

    def with_options(self, **options: Any) -> RuleSet:
        """A copy with some top-level options (or ``advanced`` as a dict) replaced."""
        if isinstance(options.get("advanced"), dict):
            options["advanced"] = replace(self.advanced, **options["advanced"])
        return replace(self, **options)

    def to_json(self) -> dict[str, Any]:
        """Every option, as JSON-ready data."""
        # Every state snapshot holds its rules: this runs at every action, and
        # dataclasses.asdict (a deep copy) cost more than the rest of the snapshot.
        out = {name: getattr(self, name) for name in _OPTIONS}
        out["advanced"] = {name: getattr(self.advanced, name) for name in _ADVANCED_OPTIONS}
        return out

    @classmethod
    def from_json(cls, data: Any) -> RuleSet:
        """Parse ``to_json`` output (or a partial dict over the defaults); strict about keys.

        Memoised by value (a game's rules are read back at every state load): only input
        that parses is remembered, so invalid input is refused every time.
        """
        try:
            key = _json_key(data)
            hash(key)
        except TypeError:  # not a dict of plain values: the full parse says what is wrong
            return cls._parse(data)
        return _parse_cached(key)

    @classmethod
    def _parse(cls, data: Any) -> RuleSet:
        if not isinstance(data, dict):
            raise InvalidRules("rules must be a JSON object", field="rules")
        known = {f.name for f in fields(cls)}
        _reject_unknown(data, known, prefix="")
        options = dict(data)
        advanced = options.pop("advanced", {})
        if not isinstance(advanced, dict):
            raise InvalidRules("advanced must be a JSON object", field="advanced")
        _reject_unknown(advanced, {f.name for f in fields(Advanced)}, prefix="advanced.")
        try:
            adv = Advanced(**advanced)
            return cls(**options, advanced=adv)
        except TypeError as exc:  # pragma: no cover - keys were checked above
            raise InvalidRules(str(exc), field="rules") from exc

    @classmethod
    def preset(cls, name: str, **options: Any) -> RuleSet:
        """A named preset (RULES.md section 3), optionally with options replaced."""
        try:
            base = PRESETS[name]
        except KeyError:
            raise InvalidRules(
                f"unknown preset {name!r}; choose one of {sorted(PRESETS)}", field="preset"
            ) from None
        return base.with_options(**options) if options else base


_OPTIONS = tuple(f.name for f in fields(RuleSet) if f.name != "advanced")
_ADVANCED_OPTIONS = tuple(f.name for f in fields(Advanced))
_JsonKey = tuple[tuple[str, type, Any], ...]


def _json_key(data: Any) -> _JsonKey:
    """``from_json`` input as a hashable value. Each value's type is part of it, so that
    input equal but not identical to a valid one (``True`` for ``1``) is parsed, not
    taken from the cache. TypeError for anything but a dict."""
    if not isinstance(data, dict):
        raise TypeError("not a dict")
    return tuple(
        (name, dict, _json_key(value)) if isinstance(value, dict) else (name, type(value), value)
        for name, value in data.items()
    )


def _from_key(key: _JsonKey) -> dict[str, Any]:
    return {name: _from_key(value) if kind is dict else value for name, kind, value in key}


@lru_cache(maxsize=1024)
def _parse_cached(key: _JsonKey) -> RuleSet:
    return RuleSet._parse(_from_key(key))


def _reject_unknown(data: dict[str, Any], known: set[str], *, prefix: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise InvalidRules(f"unknown option {prefix}{unknown[0]}", field=prefix + unknown[0])


def _check_type(rules: RuleSet, name: str, kind: type | tuple[type, ...], value: Any) -> None:
    if isinstance(value, bool) and kind is int:
        raise InvalidRules(f"{name} must be an integer", field=name)
    if not isinstance(value, kind):
        raise InvalidRules(f"{name} has the wrong type", field=name)


def _check_choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise InvalidRules(f"{name} must be one of {', '.join(choices)}", field=name)


def _validate(r: RuleSet) -> None:
    _validate_types(r)
    if r.edition not in EDITIONS:
        raise InvalidRules(f"edition must be one of {', '.join(EDITIONS)}", field="edition")
    _check_choice("first_player", r.first_player, FIRST_PLAYER)
    _check_choice("discard_pair_wild", r.discard_pair_wild, DISCARD_PAIR_WILD)
    _check_choice("auto_yield", r.auto_yield, AUTO_YIELD)
    _check_choice("bottom_protection", r.bottom_protection, BOTTOM_PROTECTION)
    _check_choice("ending", r.ending, ENDINGS)
    _check_choice("tie_policy", r.tie_policy, TIE_POLICY)
    if not 6 <= r.max_players <= 8:
        raise InvalidRules("max_players must be between 6 and 8 (RULES #5)", field="max_players")
    if not 2 <= r.seats <= r.max_players:
        raise InvalidRules(f"seats must be between 2 and {r.max_players}", field="seats")
    if r.draft_piles and r.seats > 3:
        raise InvalidRules("draft piles are for 2 or 3 seats (RULES #34)", field="draft_piles")
    adv = r.advanced
    if r.edition == "2011" and (adv.penny_jar or adv.has_swap or adv.has_move):
        bad = "advanced." + next(
            name for name in ("penny_jar", "action_cards", "swap", "move") if getattr(adv, name)
        )
        raise InvalidRules(
            "the 2011 edition has no Penny Jar, Swap or Move cards (RULES 1.1)", field=bad
        )
    if adv.penny_jar_weight not in (1, 2):
        raise InvalidRules(
            "advanced.penny_jar_weight must be 1 or 2", field="advanced.penny_jar_weight"
        )
    if r.ending_rounds is not None and not 1 <= r.ending_rounds <= 20:
        raise InvalidRules("ending_rounds must be between 1 and 20", field="ending_rounds")
    if r.ending_rounds is not None and r.ending not in DEFAULT_ENDING_ROUNDS:
        raise InvalidRules(
            "ending_rounds applies only to highest_after_n and first_to_n_round_wins",
            field="ending_rounds",
        )
    if not 1_000 <= r.target <= 100_000_000:
        raise InvalidRules("target must be between $1,000 and $100,000,000", field="target")
    _validate_deal(r)


def _validate_types(r: RuleSet) -> None:
    for name, kind in (
        ("edition", str),
        ("seats", int),
        ("max_players", int),
        ("first_player", str),
        ("discard_pair_wild", str),
        ("auto_yield", str),
        ("bottom_protection", str),
        ("ending", str),
        ("target", int),
        ("tie_policy", str),
        ("initial_discard_flip", bool),
        ("hide_tucked_wilds", bool),
        ("swap_may_take_bottom_set", bool),
        ("draft_challenge_requires_own_set", bool),
        ("target_inclusive", bool),
    ):
        _check_type(r, name, kind, getattr(r, name))
    for name in ("hand_size", "ending_rounds"):
        if getattr(r, name) is not None:
            _check_type(r, name, int, getattr(r, name))
    if r.draft_piles is not None:
        _check_type(r, "draft_piles", bool, r.draft_piles)
    if not isinstance(r.advanced, Advanced):
        raise InvalidRules("advanced has the wrong type", field="advanced")
    for f in fields(Advanced):
        kind = int if f.name == "penny_jar_weight" else bool
        _check_type(r, f"advanced.{f.name}", kind, getattr(r.advanced, f.name))


def _validate_deal(r: RuleSet) -> None:
    if r.hand_size is not None and not 1 <= r.hand_size <= 10:
        raise InvalidRules("hand_size must be between 1 and 10", field="hand_size")
    needed = r.seats * r.effective_hand_size + (
        DRAFT_PILES * DRAFT_PILE_SIZE if r.uses_draft_piles else 0
    )
    needed += 1 if r.initial_discard_flip else 0
    if needed > len(r.deck()):
        raise InvalidRules(
            f"the deal needs {needed} cards but the deck has {len(r.deck())}", field="hand_size"
        )


PRESETS: dict[str, RuleSet] = {
    "2021": RuleSet(),
    "2011": RuleSet(edition="2011"),
    "de2023": RuleSet(edition="de2023", advanced=Advanced(no_rechallenge_after_loss=False)),
}
