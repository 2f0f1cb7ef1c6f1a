"""The proofs a shuffle turn carries (``kdm.fair.proofs``): one key takes ``P`` to ``Q``, ``A`` to ``B``."""

from __future__ import annotations

import pytest

from kdm.fair.group import BASE, SCALAR_BYTES, card_point, commitment, lock, random_key
from kdm.fair.proofs import PROOF_BYTES, prove, proves

CONTEXT = b"0:key:1:3"


def statement() -> tuple[bytes, bytes, bytes, bytes, bytes]:
    """A key, a card and the card under it, a committed key and the commitment under it."""
    key, other = random_key(), random_key()
    card, committed = card_point("7H", "table"), commitment(other)
    return key, card, lock(card, key), committed, lock(committed, key)


def test_a_proof_holds_for_its_statement_and_its_context_alone() -> None:
    key, p, q, a, b = statement()
    proof = prove(key, p, q, a, b, CONTEXT)
    assert len(proof) == PROOF_BYTES and proves(proof, p, q, a, b, CONTEXT)
    assert not proves(proof, p, q, a, b, b"0:key:1:4")  # another position's
    assert not proves(proof, p, lock(p, random_key()), a, b, CONTEXT)  # the card under another key
    assert not proves(proof, p, q, a, lock(a, random_key()), CONTEXT)  # another key committed
    assert not proves(proof, card_point("8H", "table"), q, a, b, CONTEXT)  # another card handed


def test_the_base_point_by_default_proves_a_key_committed_to() -> None:
    key = random_key()
    p = card_point("AS", "table")
    proof = prove(key, p, lock(p, key), context=CONTEXT)
    assert proves(proof, p, lock(p, key), BASE, commitment(key), CONTEXT)
    assert not proves(proof, p, lock(p, key), BASE, commitment(random_key()), CONTEXT)


def test_a_proof_made_with_another_key_does_not_hold() -> None:
    _key, p, q, a, b = statement()
    assert not proves(prove(random_key(), p, q, a, b, CONTEXT), p, q, a, b, CONTEXT)


@pytest.mark.parametrize(
    "proof",
    [
        b"",
        bytes(PROOF_BYTES),
        b"\xff" * PROOF_BYTES,
        bytes(PROOF_BYTES - 1),
        bytes(SCALAR_BYTES) + b"\x01" * 32,
    ],
    ids=["empty", "zeros", "not reduced", "short", "zero challenge"],
)
def test_a_proof_that_is_no_proof_holds_nothing(proof: bytes) -> None:
    _key, p, q, a, b = statement()
    assert not proves(proof, p, q, a, b, CONTEXT)


def test_points_that_are_none_hold_nothing() -> None:
    key, p, q, a, b = statement()
    proof = prove(key, p, q, a, b, CONTEXT)
    assert not proves(proof, bytes(32), q, a, b, CONTEXT)
    assert not proves(proof, p, q, a, b"\x01" * 31, CONTEXT)
