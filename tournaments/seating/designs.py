"""Exact designs: the affine planes AG(2, q), where every pair meets exactly once."""

from __future__ import annotations

from .history import History

_GF4_MUL = ((0, 0, 0, 0), (0, 1, 2, 3), (0, 2, 3, 1), (0, 3, 1, 2))  # GF(4) = {0, 1, a, a+1}


def _field(q: int) -> tuple[list[list[int]], list[list[int]]] | None:
    """Addition and multiplication tables of GF(q) for q in 2, 3, 4, 5."""
    if q in (2, 3, 5):
        return (
            [[(a + b) % q for b in range(q)] for a in range(q)],
            [[(a * b) % q for b in range(q)] for a in range(q)],
        )
    if q == 4:
        return [[a ^ b for b in range(4)] for a in range(4)], [list(r) for r in _GF4_MUL]
    return None


def affine_rounds(q: int) -> list[list[list[int]]] | None:
    """The q + 1 parallel classes of AG(2, q): q² points, lines of q; every pair once."""
    tables = _field(q)
    if tables is None:
        return None
    add, mul = tables
    classes = []
    for slope in range(q):  # lines y = slope * x + c
        classes.append([[x * q + add[mul[slope][x]][c] for x in range(q)] for c in range(q)])
    classes.append([[x * q + y for y in range(q)] for x in range(q)])  # lines x = c
    return classes


def exact_design(
    n: int, sizes: list[int], rounds: int, history: History
) -> list[list[list[int]]] | None:
    """The rounds of AG(2, q) when the field is q² entrants at tables of q with no
    history and at most q + 1 rounds; None otherwise."""
    if history.meetings or len(set(sizes)) != 1:
        return None
    q = sizes[0]
    if q * q != n or rounds > q + 1:
        return None
    return affine_rounds(q)
