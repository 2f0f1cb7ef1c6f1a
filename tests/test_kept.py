"""What a seat's player keeps (``kdm.kept``): the same secrets from the same key, table and label, and
no two alike otherwise; a process started again finds the nonce of its seat's commitment."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from kdm.fair.shuffle import deal_secrets
from kdm.host.table import Agent
from kdm.identity import Identity
from kdm.kept import Kept, nonce_label
from kdm.record import commitment


def test_the_same_root_and_label_give_the_same_bytes_and_any_other_gives_others() -> None:
    kept, other = Kept(b"\x01" * 32), Kept(b"\x02" * 32)
    assert kept.secret("box") == Kept(b"\x01" * 32).secret("box")
    assert len({kept.secret("box"), kept.secret("nonce join 0"), other.secret("box")}) == 3
    stream = kept.stream("fair deck 0 lock 2 ab")
    assert stream.read(40) + stream.read(100) == kept.secret("fair deck 0 lock 2 ab", 140)


def test_a_kept_stream_draws_below_its_bound_evenly() -> None:
    stream = Kept(b"\x03" * 32).stream("draws")
    counts = Counter(stream.below(6) for _ in range(6000))
    assert set(counts) == set(range(6)) and all(900 < count < 1100 for count in counts.values())
    with pytest.raises(ValueError):
        stream.below(0)


def test_a_shuffles_secrets_are_made_again_from_the_same_stream_only() -> None:
    kept = Kept(b"\x04" * 32)
    first, again = (deal_secrets(52, stream=kept.stream("fair deck 3 lock 1 cd")) for _ in range(2))
    assert first == again and sorted(first.permutation) == list(range(52))
    other = deal_secrets(52, stream=kept.stream("fair deck 3 lock 1 ce"))  # taken on another deck
    assert other.deck_key != first.deck_key and other.permutation != first.permutation
    assert deal_secrets(52) != deal_secrets(52)  # without a stream: the OS's randomness


def test_a_players_key_keeps_one_root_per_table_from_one_run_to_the_next(tmp_path: Path) -> None:
    key = Identity.load_or_create(tmp_path)
    assert Identity.load_or_create(tmp_path).table_secret("t1") == key.table_secret("t1")
    assert len({key.table_secret("t1"), key.table_secret("t2"), Identity.ephemeral().table_secret("t1")}) == 3


def test_a_process_started_again_finds_the_nonce_of_its_seats_commitment() -> None:
    """The seat joined at shuffle 0 and revealed at shuffles 0 to 4, committing each time to the next;
    the process started again knows none of those nonces but finds the one the record holds now."""
    kept = Kept(b"\x05" * 32)
    before = Agent("n1", "Ana")
    before.keep(kept)
    sealed = before.fresh_commitment(nonce_label("join", 0))
    for shuffle in range(5):
        sealed = before.fresh_commitment(nonce_label("next", shuffle))
    after = Agent("n1", "Ana")
    after.keep(kept)
    assert after.box.public_key == before.box.public_key
    nonce = after.nonce_for(sealed, 5)
    assert nonce is not None and commitment(nonce) == sealed
    assert after.nonce_for(commitment(b"\x00" * 32), 5) is None
    assert Agent("n1", "Ana").nonce_for(sealed, 5) is None  # kept nothing: a nonce it cannot know
