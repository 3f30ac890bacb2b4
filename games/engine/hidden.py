"""What a seat cannot see: the one place the engine decides it.

Hidden from a seat (RULES #9, 2.8.5, 2.8.11): other seats' hands (their sizes show), the
deck's order and the seed, every draft-pile card under its face-up top, a top that is face
down (a pile a draft used, until it is flipped: ``face_down``), and a tucked card of another
seat's set that it has never seen (``sees_tucked``). Everything else is public.

``observe`` (the JSON the API, the pages and webhook bots get), ``view.SeatView`` (what a
built-in strategy gets) and ``worlds.Worlds`` (the search player's sampler) all ask here,
so no two of them can disagree about a card.
"""

from __future__ import annotations

from .state import AssetSet, State


def face_down(s: State) -> tuple[int, ...]:
    """Draft piles whose top is face down: used by a draft, not flipped yet (RULES 2.8.5).

    A pile a draft takes from stays face down while the drafted set is challenged (its
    piles are the challenge's), and until the flips after the set lands.
    """
    ch = s.challenge
    return s.flips + ch.piles if ch is not None else s.flips


def sees_tucked(aset: AssetSet, owner: int, seat: int | None) -> bool:
    """Whether ``seat`` (None: a spectator) sees the tucked card of ``owner``'s set.

    RULES #9, 2.8.11: the owner sees its whole stack, and so does every seat that once held
    the set; nobody else does. A set with nothing tucked hides nothing.
    """
    return aset[2] < 0 or seat == owner or (seat is not None and bool(aset[3] >> seat & 1))


def hidden_in_pile(s: State, down: tuple[int, ...], p: int) -> int:
    """How many of draft pile ``p``'s cards (from the bottom) nobody may see."""
    size = len(s.piles[p])
    return size if p in down else max(0, size - 1)
