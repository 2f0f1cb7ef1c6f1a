"""Proofs that a shuffle turn did what it says, checked by every peer when the turn reaches the log,
before any card of the shuffle is dealt: a turn that puts in a point that is no card, a card twice, or
a card swapped for another, is refused at its turn and its seat named (not found at the round's audit,
once the cards were played).

Each proof is a Chaum–Pedersen proof of equal discrete logarithms, made non-interactive with a hash
(Fiat–Shamir): ``prove(x, P, Q, A, B)`` shows that one secret ``x`` takes ``P`` to ``Q`` and ``A`` to
``B`` (``Q = x·P``, ``B = x·A``) and tells nothing of ``x``. A turn publishes a commitment with its deck
(``Turn.commits``) and proves, with the keys it committed to:

- ``lock`` (pass one: every card times one key ``e``, then permuted): its deck key's commitment ``E``,
  and one proof that the deck's sum went to the new deck's sum by the key that takes the base point to
  ``E`` (after a ``strip``, the seat's blind commitment to ``E``: its key on and its blind off). A
  permutation keeps the sum; one card put in for another does not. Its new deck holds no point twice.
- ``key`` (pass two: position ``j`` times ``k[j] / e``): the position keys' commitments ``K[j]``, and a
  proof for each position that the key taking ``E`` to ``K[j]`` took its card to the new one.
- ``strip`` (a reshuffle: position ``j`` times ``b / k_old[j]``): its blind's commitment ``Bl``, and a
  proof for each position that the key taking the old commitment ``K_old[j]`` to ``Bl`` took its card.

What a sum cannot see: several points put in at once whose sum is the sum of those they replace. Such
points are no cards (nobody knows a relation between two cards' points, ``kdm.fair.group``): the first
one revealed reads as no card, and the round's audit names the seat.
"""

from __future__ import annotations

import hashlib

from kdm.fair.group import (
    BASE,
    POINT_BYTES,
    SCALAR_BYTES,
    GroupError,
    lock,
    product,
    random_key,
    scalar_add,
    scalar_of,
    subtract,
)

__all__ = ["PROOF_BYTES", "prove", "proves"]

#: A proof: the challenge and the answer, a scalar each.
PROOF_BYTES = 2 * SCALAR_BYTES
_DOMAIN = b"kdm fair deck proof v1\x00"


def _challenge(context: bytes, *points: bytes) -> bytes:
    return scalar_of(hashlib.sha512(_DOMAIN + context + b"".join(points)).digest())


def prove(secret: bytes, p: bytes, q: bytes, a: bytes = BASE, b: bytes = b"", context: bytes = b"") -> bytes:
    """A proof that ``secret`` takes ``p`` to ``q`` and ``a`` to ``b`` (``b`` defaults to ``secret·a``).
    ``context`` binds it to one turn (a proof is not good for another)."""
    b = b or lock(a, secret)
    while True:
        nonce = random_key()
        challenge = _challenge(context, p, q, a, b, lock(p, nonce), lock(a, nonce))
        if any(challenge):  # else (once in 2^252) a nonce that makes no key: draw again
            return challenge + scalar_add(nonce, product(challenge, secret))


def proves(proof: bytes, p: bytes, q: bytes, a: bytes = BASE, b: bytes = b"", context: bytes = b"") -> bool:
    """Whether ``proof`` shows that one key takes ``p`` to ``q`` and ``a`` to ``b``."""
    if len(proof) != PROOF_BYTES or len(b) != POINT_BYTES:
        return False
    challenge, answer = proof[:SCALAR_BYTES], proof[SCALAR_BYTES:]
    try:
        # The commitments the prover made, rebuilt: answer·p − challenge·q and answer·a − challenge·b.
        first = subtract(lock(p, answer), lock(q, challenge))
        second = subtract(lock(a, answer), lock(b, challenge))
    except GroupError:  # a point that is none, or a scalar that is no key (zero, or not reduced)
        return False
    return _challenge(context, p, q, a, b, first, second) == challenge
