"""The table's log entries (``kdm.entries``): typed records, one codec, the wire format kept, and every
malformed map refused with what is wrong."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from kdm.entries import (
    ENTRY_TYPES,
    Act,
    Chat,
    Create,
    DeckPart,
    Done,
    Entry,
    EntryId,
    Join,
    Reveal,
    Start,
    Takeover,
    Vouch,
    decode,
    encode,
    from_wire,
    to_wire,
)

AUTHOR = EntryId("10.0.0.2:41000~ab", 7)
EXAMPLES: list[Entry] = [
    Create(AUTHOR, name="kitchen", players=4, options={"rounds": 3}, plugins={"kilo": "0.1.0"}, listed=False),
    Join(AUTHOR, commit=bytes(32), name="ana", bot=True, box_key=bytes(32), player=bytes(32), claim=b"sig"),
    Start(AUTHOR),
    Reveal(AUTHOR, shuffle=2, nonce=b"nonce", next_commit=bytes(32)),
    Act(AUTHOR, event={"kind": "pass", "seat": 1, "token": 4}),
    Act(AUTHOR, event={"kind": "show_hand", "seat": 1, "tokens": [4], "cards": ["Q♥"]}, keys=bytes(37)),
    Create(AUTHOR, name="kitchen", players=4, options={}, plugins={}, deck="fair"),
    DeckPart(AUTHOR, seat=1, step="key", shuffle=2, deck=bytes(64), commits=bytes(64)),
    Takeover(EntryId("10.0.0.2:41000~ab#3", 1), seat=3, commit=bytes(32), box_key=bytes(32)),
    Done(AUTHOR),
    Chat(AUTHOR, seat=2, text="bien joué"),
    Vouch(
        AUTHOR,
        press="10.0.0.3:41000~cd",
        counter=9,
        digest=bytes(16),
        seen_us=12_345_678,
        applied=40,
        shown_us=12_000_000,
    ),
]


@pytest.mark.parametrize("entry", EXAMPLES, ids=lambda entry: entry.TYPE)
def test_every_entry_survives_the_wire(entry: Entry) -> None:
    assert decode(encode(entry)) == entry


def test_every_type_has_an_example() -> None:
    assert {entry.TYPE for entry in EXAMPLES} == set(ENTRY_TYPES)


def test_fields_added_later_are_left_off_the_wire_at_their_default() -> None:
    # An older log's entries encode to the bytes they were signed as.
    assert "deck" not in to_wire(EXAMPLES[0]) and "keys" not in to_wire(EXAMPLES[4])
    assert to_wire(EXAMPLES[5])["keys"] == bytes(37) and to_wire(EXAMPLES[6])["deck"] == "fair"


def test_the_wire_format_is_the_log_s_own() -> None:
    # Logs written before entries had types must still replay: the names on the wire stay.
    assert to_wire(EXAMPLES[3]) == {
        "t": "reveal", "id": ["10.0.0.2:41000~ab", 7], "k": 2, "nonce": b"nonce", "next": bytes(32),
    }  # fmt: skip
    assert from_wire({"t": "join", "id": ["n", 1], "commit": bytes(32)}) == Join(EntryId("n", 1), bytes(32))


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ([1, 2], "not a map"),
        ({"t": "leave", "id": ["n", 1]}, "unknown type 'leave'"),
        ({"t": "start", "id": ["n"]}, "id must be [node, counter]"),
        ({"t": "start", "id": [1, 1]}, "id must be [node, counter]"),
        ({"t": "join", "id": ["n", 1]}, "join entry without commit"),
        ({"t": "join", "id": ["n", 1], "commit": b"short"}, "commit must be 32 bytes"),
        (
            {"t": "join", "id": ["n", 1], "commit": bytes(32), "box_key": bytes(5)},
            "box_key must be 0 or 32 bytes",
        ),
        ({"t": "join", "id": ["n", 1], "commit": bytes(32), "name": 5}, "name must be str"),
        ({"t": "takeover", "id": ["n", 1], "seat": True, "commit": bytes(32)}, "seat must be int"),
        ({"t": "reveal", "id": ["n", 1], "k": "0", "nonce": b"", "next": bytes(32)}, "k must be int"),
        ({"t": "event", "id": ["n", 1], "event": [1]}, "event must be a map"),
        (
            {"t": "create", "id": ["n", 1], "name": "t", "players": 4, "options": {}, "plugins": {"a": 1}},
            "plugins must map names to versions",
        ),
    ],
)
def test_a_malformed_entry_says_what_is_wrong(data: Any, reason: str) -> None:
    with pytest.raises(ValueError, match=reason.replace("[", r"\[").replace("]", r"\]")):
        from_wire(data)


def test_bytes_that_are_not_msgpack_are_refused() -> None:
    with pytest.raises(ValueError, match="not msgpack"):
        decode(b"\xc1")
    assert decode(msgpack.packb({"t": "done", "id": ["n", 3]})) == Done(EntryId("n", 3))
