"""Fair dealing's arithmetic and shuffle (``kdm.fair``, DESIGN §7, issue 14): keys commute, a card is
read only with every player's key for its position, and the audit names a shuffle that duplicates a
card, a wrong key and a false face claimed."""

from __future__ import annotations

from dataclasses import replace

import pytest
from nacl import bindings

from kdm.cards import full_deck
from kdm.fair.group import (
    GroupError,
    card_point,
    commitment,
    invert,
    is_commitment_of,
    lock,
    random_key,
    unlock,
    valid_point,
)
from kdm.fair.keyring import KeyRing
from kdm.fair.shuffle import (
    Cheat,
    Secrets,
    audit,
    check_key,
    deal_secrets,
    face_of,
    reveal,
    shuffle_round,
)

TABLE = "10.0.0.1:41000~table"
FACES = full_deck()[:16]


def test_keys_commute_and_come_off_in_any_order() -> None:
    point = card_point("QH", TABLE)
    a, b = random_key(), random_key()
    assert valid_point(point) and point != card_point("QS", TABLE) != card_point("QH", "another table")
    both = lock(lock(point, a), b)
    assert both == lock(lock(point, b), a) != point
    assert unlock(unlock(both, a), b) == point
    assert lock(point, invert(a)) == unlock(point, a)
    assert is_commitment_of(commitment(a), a) and not is_commitment_of(commitment(a), b)


@pytest.mark.parametrize(
    "bad",
    [b"", bytes(32), b"\xff" * 32, b"\x01" * 31],
    ids=["empty", "zero", "above the order", "short"],
)
def test_what_is_not_a_key_or_a_point_is_refused(bad: bytes) -> None:
    point = card_point("KS", TABLE)
    with pytest.raises(GroupError):
        lock(point, bad)
    assert not valid_point(bad)
    identity = (1).to_bytes(32, "little")  # the neutral element: of small order, never a card
    assert not valid_point(identity)
    with pytest.raises(GroupError, match="not a point"):
        lock(identity, random_key())


def test_a_point_on_the_curve_outside_the_cards_group_is_refused() -> None:
    """A card plus a point of order 2 is on the curve but outside the prime-order group: a peer that
    passes one (to learn something from what becomes of it) is refused at the first multiplication."""
    order_two = bytes([0xEC] + [0xFF] * 30 + [0x7F])
    outside = bindings.crypto_core_ed25519_add(card_point("KS", TABLE), order_two)
    assert not valid_point(outside)
    with pytest.raises(GroupError, match="not a point"):
        lock(outside, random_key())


def shuffled(
    players: int, faces: list[str] = FACES
) -> tuple[list[Secrets], list[list[bytes]], list[list[bytes]]]:
    """Every seat's secrets, and the decks each published in passes one and two (an honest table)."""
    table_secrets = [deal_secrets(len(faces)) for _ in range(players)]
    first, second = shuffle_round(faces, TABLE, table_secrets)
    return table_secrets, first, second


def test_a_card_is_read_with_every_players_key_for_its_position_and_not_without() -> None:
    table_secrets, first, second = shuffled(4)
    deck = second[-1]
    read = [
        face_of(reveal(point, [s.position_keys[j] for s in table_secrets]), FACES, TABLE)
        for j, point in enumerate(deck)
    ]
    assert sorted(read) == sorted(FACES)  # the deck holds every card once
    assert read != FACES  # and it was shuffled (16 cards: the chance it was not is 1 in 16!)
    # Without one player's key, a position reads as no card: the holder of the others' keys learns nothing.
    missing_one = reveal(deck[0], [s.position_keys[0] for s in table_secrets[1:]])
    assert face_of(missing_one, FACES, TABLE) is None
    # The decks published along the way are no card either: nobody can read the order.
    assert all(face_of(point, FACES, TABLE) is None for deck in first + second for point in deck)


def test_an_honest_round_passes_the_audit() -> None:
    table_secrets, first, second = shuffled(3)
    committed = [s.commitments() for s in table_secrets]
    deck = second[-1]
    face = face_of(reveal(deck[5], [s.position_keys[5] for s in table_secrets]), FACES, TABLE)
    assert face is not None
    assert audit(FACES, TABLE, first, second, table_secrets, committed, {5: (1, face)}) == []


def test_the_audit_names_a_shuffle_that_duplicates_a_card() -> None:
    table_secrets, first, second = shuffled(3)
    committed = [s.commitments() for s in table_secrets]
    forged = list(first[1])
    forged[3] = forged[4]  # seat 1 keeps a card it likes twice, dropping another
    assert audit(FACES, TABLE, [first[0], forged, first[2]], second, table_secrets, committed) == [
        Cheat(1, "its pass one deck holds a card twice")
    ]


def test_the_audit_and_the_reveal_name_a_wrong_key() -> None:
    table_secrets, first, second = shuffled(3)
    committed = [s.commitments() for s in table_secrets]
    handed = random_key()  # seat 2 hands another key than the one it committed to for position 7
    assert check_key(committed[2][7], handed, seat=2, position=7) == Cheat(
        2, "handed a key for position 7 that does not match its commitment"
    )
    assert check_key(committed[2][7], table_secrets[2].position_keys[7], seat=2, position=7) is None
    keys = list(table_secrets[2].position_keys)
    keys[7] = handed
    lied = [*table_secrets[:2], replace(table_secrets[2], position_keys=tuple(keys))]
    assert audit(FACES, TABLE, first, second, lied, committed) == [
        Cheat(2, "its key for position 7 does not match its commitment")
    ]


def test_the_audit_names_a_false_face_claimed() -> None:
    table_secrets, first, second = shuffled(4)
    committed = [s.commitments() for s in table_secrets]
    deck = second[-1]
    true_face = face_of(reveal(deck[2], [s.position_keys[2] for s in table_secrets]), FACES, TABLE)
    false_face = next(face for face in FACES if face != true_face)
    assert audit(FACES, TABLE, first, second, table_secrets, committed, {2: (3, false_face)}) == [
        Cheat(3, f"claimed {false_face} at position 2, which holds another card")
    ]


def test_the_audit_names_secrets_that_do_not_make_the_published_deck() -> None:
    table_secrets, first, second = shuffled(3)
    committed = [s.commitments() for s in table_secrets]
    other = replace(table_secrets[0], permutation=tuple(reversed(table_secrets[0].permutation)))
    assert audit(FACES, TABLE, first, second, [other, *table_secrets[1:]], committed) == [
        Cheat(0, "its pass one deck is not what its keys make (first at position 0)")
    ]
    broken = replace(table_secrets[1], permutation=(0,) * len(FACES))
    assert audit(FACES, TABLE, first, second, [table_secrets[0], broken, table_secrets[2]], committed) == [
        Cheat(1, "its permutation is not one of the deck's positions")
    ]


def test_a_lie_about_a_passed_card_is_caught_by_the_receiver_and_names_the_passer() -> None:
    """A private pass A→B: A hands B every key it holds for the card's position, and B reads it alone.
    A that hands the keys of another position (to pass a card it does not hold) is named by B, who
    checks each key against its commitment before using it."""
    table_secrets, _first, second = shuffled(4)
    committed = [s.commitments() for s in table_secrets]
    deck, position, other = second[-1], 6, 9
    # Seat 1 was dealt position 6: it holds every seat's key for it (theirs handed over at the deal).
    held = [s.position_keys[position] for s in table_secrets]
    passed_face = face_of(reveal(deck[position], held), FACES, TABLE)
    checks = [
        check_key(committed[owner][position], key, seat=1, position=position)
        for owner, key in enumerate(held)
    ]
    assert checks == [None] * 4 and passed_face is not None  # an honest pass: seat 3 reads the card
    lied = [s.position_keys[other] for s in table_secrets]  # the keys of a card seat 1 never held
    caught = [
        check_key(committed[owner][position], key, seat=1, position=position)
        for owner, key in enumerate(lied)
    ]
    assert caught == [Cheat(1, "handed a key for position 6 that does not match its commitment")] * 4


# --- one seat's keys (kdm.fair.keyring) ------------------------------------------------------------------


def rings(players: int = 4) -> list[KeyRing]:
    """Each seat's key ring after an honest shuffle."""
    table_secrets, _first, second = shuffled(players)
    committed = [s.commitments() for s in table_secrets]
    return [KeyRing(seat, FACES, TABLE, s, second[-1], committed) for seat, s in enumerate(table_secrets)]


def deal(table: list[KeyRing]) -> None:
    """Seat ``s`` is dealt positions 4s to 4s+3: every other seat hands it its key for each."""
    for seat, ring in enumerate(table):
        for position in range(4 * seat, 4 * seat + 4):
            for other in table:
                if other.seat != seat:
                    assert ring.receive(position, {other.seat: other.own_key(position)}, other.seat) is None


def test_a_seat_reads_its_dealt_cards_and_nothing_else() -> None:
    table = rings()
    deal(table)
    read = [sorted(ring.read) for ring in table]
    assert read == [list(range(4 * seat, 4 * seat + 4)) for seat in range(4)]
    assert sorted(face for ring in table for face in ring.read.values()) == sorted(FACES)
    assert all(ring.face(15) is None for ring in table[:3])  # seat 3's card, unread by the others


def test_a_private_pass_needs_no_one_else_and_a_public_reveal_shows_everyone() -> None:
    table = rings()
    deal(table)
    passed = table[1].face(5)
    assert passed is not None and table[2].face(5) is None
    assert table[2].receive(5, table[1].handoff(5), sender=1) is None  # seat 1 passes position 5 to seat 2
    assert table[2].face(5) == passed
    for ring in table:  # position 12 shown to the table: every seat publishes its key for it
        for other in table:
            assert ring.receive(12, {other.seat: other.own_key(12)}, other.seat) is None
    assert {ring.face(12) for ring in table} == {table[3].face(12)} != {None}


def test_a_ring_refuses_and_names_a_false_key_and_keeps_none_of_the_handoff() -> None:
    table = rings()
    deal(table)
    handed = table[1].handoff(6)
    handed[0] = table[0].own_key(7)  # seat 0's key, but for another position
    assert table[2].receive(6, handed, sender=1) == Cheat(
        1, "handed a key for position 6 that does not match its commitment"
    )
    assert table[2].face(6) is None and 6 not in table[2].held
    assert table[2].receive(99, {}, sender=3) == Cheat(
        3, "handed keys for position 99, which the deck does not have"
    )
