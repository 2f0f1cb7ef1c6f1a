"""The group fair dealing computes in: the prime-order group of edwards25519, through PyNaCl (libsodium).

A card is a point: the hash of its face and the table's id mapped onto the curve (``card_point``), so
that nobody knows a relation between two cards. A key is a nonzero scalar modulo the group's order.
Locking a card is multiplying its point by a key (``lock``); since multiplication by scalars commutes,
the players' keys can be put on and taken off in any order, which is what lets each of them shuffle a
deck the others cannot read (commutative encryption, DESIGN §7). A key is committed to as its multiple
of the base point (``commitment``): whoever is later handed the key checks it against that.

Every point that comes from another peer is checked (on the curve, in the prime-order subgroup, not of
small order: ``valid_point``, which libsodium's scalar multiplication also checks before it multiplies)
before it is used: a peer that sends anything else is caught there, not in a computation that would
quietly go wrong. Scalar multiplication by libsodium refuses to yield the identity, which a valid point
and a nonzero key never give.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable

from nacl import bindings
from nacl.exceptions import RuntimeError as NaclRuntimeError

__all__ = [
    "BASE",
    "POINT_BYTES",
    "SCALAR_BYTES",
    "GroupError",
    "add",
    "card_point",
    "commitment",
    "invert",
    "is_commitment_of",
    "lock",
    "product",
    "random_key",
    "scalar_add",
    "scalar_of",
    "subtract",
    "sum_of",
    "unlock",
    "valid_point",
]

POINT_BYTES = bindings.crypto_core_ed25519_BYTES
SCALAR_BYTES = bindings.crypto_core_ed25519_SCALARBYTES
#: What a card's point hashes besides its face: a card is a different point at every table.
CARD_DOMAIN = b"kdm fair deck v1\x00"


class GroupError(ValueError):
    """A point or a key that is not one: the peer that sent it is named by whoever catches it."""


#: The group's generator: a key's commitment is its multiple of it.
BASE: bytes = bindings.crypto_scalarmult_ed25519_base_noclamp((1).to_bytes(SCALAR_BYTES, "little"))


def card_point(face: str, table: str) -> bytes:
    """The point that stands for ``face`` at ``table`` (hash to the curve: no one knows its logarithm,
    nor any relation between two cards' points)."""
    digest = hashlib.sha512(CARD_DOMAIN + table.encode() + b"\x00" + face.encode()).digest()
    point: bytes = bindings.crypto_core_ed25519_from_uniform(digest[:32])
    return point


def random_key(draw: Callable[[int], bytes] = secrets.token_bytes) -> bytes:
    """A fresh secret key: a uniform nonzero scalar (64 random bytes reduced modulo the group's order),
    its bytes from ``draw`` (the OS's randomness, or a seat's kept stream: ``kdm.kept``)."""
    while True:
        key: bytes = bindings.crypto_core_ed25519_scalar_reduce(draw(64))
        if any(key):
            return key


def invert(key: bytes) -> bytes:
    """The key that takes ``key`` off again (its inverse modulo the group's order)."""
    _check_key(key)
    inverse: bytes = bindings.crypto_core_ed25519_scalar_invert(key)
    return inverse


def product(key: bytes, other: bytes) -> bytes:
    """The key that does what ``key`` then ``other`` do (their product modulo the group's order): one
    scalar multiplication of a card instead of two."""
    _check_key(key)
    _check_key(other)
    both: bytes = bindings.crypto_core_ed25519_scalar_mul(key, other)
    return both


def lock(point: bytes, key: bytes) -> bytes:
    """``point`` with ``key`` put on (scalar multiplication; keys commute)."""
    _check_key(key)
    if not isinstance(point, bytes) or len(point) != POINT_BYTES:
        raise GroupError("not a point of the group")
    try:
        # libsodium checks the point itself (as ``valid_point`` does) before it multiplies: a third of
        # the cost of checking it first, here, where every card of every pass goes through.
        locked: bytes = bindings.crypto_scalarmult_ed25519_noclamp(key, point)
    except NaclRuntimeError:
        raise GroupError("not a point of the group, or a key that sends it to the identity") from None
    return locked


def unlock(point: bytes, key: bytes) -> bytes:
    """``point`` with ``key`` taken off."""
    return lock(point, invert(key))


def commitment(key: bytes) -> bytes:
    """What a player publishes for ``key`` before using it: its multiple of the base point, which
    reveals nothing of the key and binds the player to it."""
    _check_key(key)
    committed: bytes = bindings.crypto_scalarmult_ed25519_base_noclamp(key)
    return committed


def is_commitment_of(committed: bytes, key: bytes) -> bool:
    """Whether ``key`` is the key ``committed`` was published for."""
    try:
        return secrets.compare_digest(commitment(key), committed)
    except GroupError:
        return False


def add(point: bytes, other: bytes) -> bytes:
    """The sum of two points (the group's operation: ``lock`` distributes over it)."""
    return _of_points(bindings.crypto_core_ed25519_add, point, other)


def subtract(point: bytes, other: bytes) -> bytes:
    """``point`` minus ``other``."""
    return _of_points(bindings.crypto_core_ed25519_sub, point, other)


def _of_points(operation: Callable[[bytes, bytes], bytes], point: bytes, other: bytes) -> bytes:
    try:
        return operation(point, other)
    except (NaclRuntimeError, TypeError, ValueError):
        raise GroupError("not a point of the group") from None


def sum_of(points: list[bytes]) -> bytes:
    """The sum of a deck's points: a deck locked with one key and permuted sums to its sum locked with
    that key (``kdm.fair.proofs``)."""
    if not points:
        raise GroupError("an empty deck has no sum")
    total = points[0]
    for point in points[1:]:
        total = add(total, point)
    return total


def scalar_add(key: bytes, other: bytes) -> bytes:
    """``key`` + ``other`` modulo the group's order (not a key: it may be zero)."""
    both: bytes = bindings.crypto_core_ed25519_scalar_add(key, other)
    return both


def scalar_of(digest: bytes) -> bytes:
    """A 64-byte hash as a scalar (reduced modulo the group's order; zero once in 2^252)."""
    scalar: bytes = bindings.crypto_core_ed25519_scalar_reduce(digest)
    return scalar


def valid_point(point: bytes) -> bool:
    """Whether ``point`` is a point of the prime-order group, not of small order (bytes of the right
    length, on the curve, in the main subgroup)."""
    return (
        isinstance(point, bytes)
        and len(point) == POINT_BYTES
        and bool(bindings.crypto_core_ed25519_is_valid_point(point))
    )


def _check_key(key: bytes) -> None:
    if not isinstance(key, bytes) or len(key) != SCALAR_BYTES or not any(key):
        raise GroupError("not a key: 32 bytes, a nonzero scalar")
    if bindings.crypto_core_ed25519_scalar_reduce(key + bytes(32)) != key:
        raise GroupError("not a key: a scalar below the group's order")
