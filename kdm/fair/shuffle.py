"""The two-pass shuffle with a key per deck position, its reveals and its audit (DESIGN §7), as pure
functions of what the players publish: no I/O, no clock, no randomness but the secrets passed in.

Pass one: each player in seat order locks every card of the deck with one key of theirs (the *deck
key*) and permutes the deck. Nobody can read the result, and nobody knows the order. Pass two: each
player in seat order takes their deck key off every position and puts on a key of their own for that
position (*position keys*), publishing a commitment to each. Then the card at position ``j`` is locked
by one key of every player, ``k[0][j] … k[n-1][j]``:

- shown to one player (their deal, a card drawn face down): the others hand that player their keys for
  ``j``, each checked against its commitment; nobody else learns the face;
- passed from A to B: A hands B the keys it holds for ``j``; no one else is involved;
- shown to all: every player publishes their key for ``j``.

At the round's end every player publishes their secrets, and anyone replays the whole shuffle from the
open deck (``audit``): a deck a player published that their secrets do not make (a duplicated card, a
card swapped for another), a key that does not match its commitment, or a face claimed for a position
that is not the face there, names the player who did it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from secrets import randbelow, token_bytes

from kdm.fair.group import (
    GroupError,
    card_point,
    commitment,
    invert,
    is_commitment_of,
    lock,
    product,
    random_key,
    unlock,
)
from kdm.kept import Stream

__all__ = [
    "Cheat",
    "Secrets",
    "audit",
    "deal_secrets",
    "face_of",
    "open_deck",
    "pass_one",
    "pass_two",
    "reveal",
    "unblinding",
]


@dataclass(frozen=True)
class Secrets:
    """One player's secrets for one shuffle: the deck key of pass one, the permutation applied (output
    position ``j`` holds input position ``permutation[j]``), and a key per deck position for pass two."""

    deck_key: bytes
    permutation: tuple[int, ...]
    position_keys: tuple[bytes, ...]

    def commitments(self) -> list[bytes]:
        """What the player publishes with pass two: a commitment to each position key."""
        return [commitment(key) for key in self.position_keys]


@dataclass(frozen=True)
class Cheat:
    """A player caught by the audit, and what they did (one line, for the table's log)."""

    seat: int
    reason: str


def deal_secrets(size: int, draw: Sequence[int] | None = None, stream: Stream | None = None) -> Secrets:
    """Fresh secrets for a deck of ``size`` cards: random keys, and the permutation ``draw`` (a shuffle
    of ``range(size)``; a fresh uniform one when None), from the OS's randomness or, given a seat's kept
    ``stream`` (``kdm.kept``), from it: the same secrets each time for the same stream."""
    below, read = (randbelow, token_bytes) if stream is None else (stream.below, stream.read)
    if draw is None:
        order = list(range(size))
        for i in range(size - 1, 0, -1):  # Fisher-Yates
            j = below(i + 1)
            order[i], order[j] = order[j], order[i]
        draw = order
    if sorted(draw) != list(range(size)):
        raise ValueError("not a permutation of the deck's positions")
    return Secrets(random_key(read), tuple(draw), tuple(random_key(read) for _ in range(size)))


def open_deck(faces: Sequence[str], table: str) -> list[bytes]:
    """The deck before anyone shuffled: each face's point, in the order given."""
    return [card_point(face, table) for face in faces]


def pass_one(deck: Sequence[bytes], secrets: Secrets) -> list[bytes]:
    """A player's turn in pass one: every card locked with the deck key, then permuted."""
    locked = [lock(point, secrets.deck_key) for point in deck]
    return [locked[source] for source in secrets.permutation]


def pass_two(deck: Sequence[bytes], secrets: Secrets) -> list[bytes]:
    """A player's turn in pass two: at each position, the deck key off and the position's key on (in
    one multiplication, by their product)."""
    off = invert(secrets.deck_key)
    return [lock(point, product(off, key)) for point, key in zip(deck, secrets.position_keys, strict=True)]


def shuffle_round(
    faces: Sequence[str], table: str, secrets: Sequence[Secrets]
) -> tuple[list[list[bytes]], list[list[bytes]]]:
    """An honest table's shuffle, every seat's turn in seat order: the decks each published in pass one,
    and in pass two (the last is the deck cards are dealt from)."""
    deck, first, second = open_deck(faces, table), [], []
    for seat_secrets in secrets:
        deck = pass_one(deck, seat_secrets)
        first.append(deck)
    for seat_secrets in secrets:
        deck = pass_two(deck, seat_secrets)
        second.append(deck)
    return first, second


def unblinding(secrets: Secrets, blind: bytes) -> bytes:
    """The key a seat's pass one of a reshuffle puts on: its blind off, its deck key on."""
    return product(invert(blind), secrets.deck_key)


def reveal(point: bytes, keys: Sequence[bytes]) -> bytes:
    """The card's own point, once every player's key for its position is taken off (in one
    multiplication, by the inverse of their product)."""
    if not keys:
        return point
    together = keys[0]
    for key in keys[1:]:
        together = product(together, key)
    return unlock(point, together)


def face_of(point: bytes, faces: Sequence[str], table: str) -> str | None:
    """Which face ``point`` stands for at ``table`` (None: no card of this deck)."""
    return _faces_by_point(tuple(faces), table).get(point)


@lru_cache(maxsize=16)
def _faces_by_point(faces: tuple[str, ...], table: str) -> dict[bytes, str]:
    """Each face's point at ``table`` (hashed once per deck, not at every card read)."""
    return {card_point(face, table): face for face in faces}


def audit(
    faces: Sequence[str],
    table: str,
    first: Sequence[Sequence[bytes]],
    second: Sequence[Sequence[bytes]],
    published: Sequence[Secrets],
    committed: Sequence[Sequence[bytes]],
    claimed: Mapping[int, tuple[int, str]] | None = None,
    start: Sequence[bytes] | None = None,
    blinds: Sequence[bytes] | None = None,
) -> list[Cheat]:
    """Replay a shuffle from its open deck and name whoever cheated, first in seat order.

    ``first[i]`` and ``second[i]`` are the decks seat ``i`` published in passes one and two,
    ``committed[i]`` its commitments, ``published[i]`` its secrets as it published them at the end, and
    ``claimed`` the faces seats claimed for positions (position → (seat, face)). A reshuffle starts from
    ``start`` (the cards it shuffles, each under every seat's blind) instead of the open deck of
    ``faces``, and each seat's pass one takes its blind (``blinds[i]``) off as it puts its deck key on.
    Returns the cheats found (empty: the round was honest)."""
    cheats: list[Cheat] = []
    deck = open_deck(faces, table) if start is None else list(start)
    size = len(deck)
    for seat, (output, secrets) in enumerate(zip(first, published, strict=True)):
        problem = _secrets_problem(secrets, size)
        if problem:
            return [Cheat(seat, problem)]
        locking = secrets if blinds is None else replace(secrets, deck_key=unblinding(secrets, blinds[seat]))
        expected = pass_one(deck, locking)
        if list(output) != expected:
            return [Cheat(seat, _what_differs("pass one", output, expected))]
        deck = expected
    for seat, (output, secrets, commitments) in enumerate(zip(second, published, committed, strict=True)):
        wrong = next(
            (j for j, (key, c) in enumerate(zip(secrets.position_keys, commitments, strict=True))
             if not is_commitment_of(c, key)),
            None,
        )  # fmt: skip
        if wrong is not None:
            return [Cheat(seat, f"its key for position {wrong} does not match its commitment")]
        expected = pass_two(deck, secrets)
        if list(output) != expected:
            return [Cheat(seat, _what_differs("pass two", output, expected))]
        deck = expected
    final_faces = [
        face_of(reveal(point, [s.position_keys[j] for s in published]), faces, table)
        for j, point in enumerate(deck)
    ]
    for position, (seat, face) in sorted((claimed or {}).items()):
        if not 0 <= position < size or final_faces[position] != face:
            cheats.append(Cheat(seat, f"claimed {face} at position {position}, which holds another card"))
    return cheats


def check_key(committed: bytes, key: bytes, seat: int, position: int) -> Cheat | None:
    """A key handed over for a reveal, checked against its commitment: the cheat, if it does not match."""
    if is_commitment_of(committed, key):
        return None
    return Cheat(seat, f"handed a key for position {position} that does not match its commitment")


def _secrets_problem(secrets: Secrets, size: int) -> str:
    if sorted(secrets.permutation) != list(range(size)):
        return "its permutation is not one of the deck's positions"
    if len(secrets.position_keys) != size:
        return "it published the wrong number of position keys"
    try:
        commitment(secrets.deck_key)
        for key in secrets.position_keys:
            commitment(key)
    except GroupError as error:
        return f"it published {error}"
    return ""


def _what_differs(step: str, output: Sequence[bytes], expected: Sequence[bytes]) -> str:
    if len(output) != len(expected):
        return f"its {step} deck has {len(output)} cards, not {len(expected)}"
    if len(set(output)) != len(output):
        return f"its {step} deck holds a card twice"
    position = next(j for j, (a, b) in enumerate(zip(output, expected, strict=True)) if a != b)
    return f"its {step} deck is not what its keys make (first at position {position})"
