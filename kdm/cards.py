"""Card faces, deck composition and the one deterministic shuffle.

A face is a short string written rank then suit: ``"7H"``, ``"10S"``, ``"QD"``, and ``"JOKER"``.
Ranks are ``A 2 3 4 5 6 7 8 9 10 J Q K``, suits ``S H D C``. Faces are plain strings so that they go
over the wire and into digests unchanged; this module is the only place that knows their grammar.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
JOKER = "JOKER"

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RED_SUITS = frozenset({"H", "D"})

T = TypeVar("T")


def face(rank: str, suit: str) -> str:
    """The face of ``rank`` of ``suit``."""
    return rank + suit


def rank_of(card: str) -> str:
    """The rank part of a face (``"10S"`` → ``"10"``); a joker's rank is ``"JOKER"``."""
    return card if card == JOKER else card[:-1]


def suit_of(card: str) -> str | None:
    """The suit part of a face, or None for a joker."""
    return None if card == JOKER else card[-1]


class _ByFace(dict[str, T]):
    """Face → one of its parts, looked up rather than sliced (bots and views read them at every look);
    a face of no deck gets its part the long way, from ``part``."""

    def __init__(self, part: Callable[[str], T]) -> None:
        super().__init__((face, part(face)) for face in full_deck(joker_count=1))
        self._part = part

    def __missing__(self, face: str) -> T:
        return self._part(face)


def is_face(text: str) -> bool:
    """Whether ``text`` is a well-formed face."""
    return text == JOKER or (len(text) >= 2 and text[-1] in SUITS and text[:-1] in RANKS)


def full_deck(joker_count: int = 0) -> list[str]:
    """The 52 faces in rank-major order, plus ``joker_count`` jokers."""
    return [face(r, s) for r in RANKS for s in SUITS] + [JOKER] * joker_count


#: Each face's rank and suit (``rank_of``, ``suit_of``) by lookup.
RANK_OF: dict[str, str] = _ByFace(rank_of)
SUIT_OF: dict[str, str | None] = _ByFace(suit_of)


def faces_of_ranks(ranks: Iterable[str]) -> list[str]:
    """All four suits of each rank, in the order given."""
    return [face(r, s) for r in ranks for s in SUITS]


#: The court cards as French players read them: roi, dame, valet (the ace and the numbers are the same).
FRENCH_RANKS = {"K": "R", "Q": "D", "J": "V"}


def pretty(card: str, lang: str = "en") -> str:
    """A face with its suit symbol, for people reading ``lang``: ``"10♥"``, ``"Q♠"`` (``"D♠"`` in French)."""
    suit = suit_of(card)
    if suit is None:
        return card
    rank = rank_of(card)
    return (FRENCH_RANKS.get(rank, rank) if lang == "fr" else rank) + SUIT_SYMBOLS[suit]


def derive_seed(seed: bytes, *labels: str | int) -> bytes:
    """A 32-byte seed derived from ``seed`` and labels; distinct labels give independent seeds."""
    digest = hashlib.sha256(seed)
    for label in labels:
        digest.update(b"\x00" + str(label).encode())
    return digest.digest()


def shuffled(items: Sequence[T], seed: bytes) -> list[T]:
    """``items`` in an order fixed by ``seed`` alone.

    ``random.Random`` seeded with bytes (version 2 seeding, SHA-512 of the bytes) and its ``shuffle``
    are stable across CPython releases, which every peer's agreement depends on.
    """
    result = list(items)
    random.Random(seed).shuffle(result)
    return result
