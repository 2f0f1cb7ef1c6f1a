"""The fair deck's messages between processes, and their one codec: what a deck hands to the log, to
the next seat of a shuffle, to a seat, and to the whole table for an audit, as typed records
(``FairDeck.work``'s outputs) and as the bytes that travel.

Direct messages go straight to the process of a seat, never through the log (``Node.send_direct``):
``turn_message`` (a turn in a shuffle, public: the log gets it too) and ``sealed_message`` (keys for
cards a seat may read, or secrets for an audit, sealed to the seat's key by the sender's process).
``read_turn`` and ``read_sealed`` read them back and refuse what is not such a message, with the
reason, so that the peer only routes bytes. ``pack_keys``/``unpack_keys`` are the keys' own records,
in actions and messages alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgpack

from kdm.fair.group import POINT_BYTES

__all__ = [
    "KEYS",
    "KEY_RECORD",
    "OPEN",
    "TURN",
    "Finding",
    "Reseal",
    "SealedMessage",
    "ToLog",
    "ToNext",
    "ToSeat",
    "ToTable",
    "keys_payload",
    "pack_keys",
    "read_payload",
    "read_sealed",
    "read_turn",
    "sealed_message",
    "secrets_payload",
    "turn_message",
    "unpack_keys",
]

#: One handed key on the wire: token (4 bytes), owner seat (1), key (32).
KEY_RECORD = 4 + 1 + POINT_BYTES

#: The direct messages' tags: a turn handed to the next seat, keys for a seat, secrets for an audit.
TURN, KEYS, OPEN = "part", "keys", "open"


@dataclass(frozen=True)
class ToLog:
    """A part seat ``seat`` owes the log (the fields of a ``kdm.entries.DeckPart``)."""

    seat: int
    fields: dict[str, Any]


@dataclass(frozen=True)
class ToSeat:
    """Keys seat ``sender`` hands seat ``to``, straight to its process: token → owner seat → key."""

    sender: int
    to: int
    keys: dict[int, dict[int, bytes]]


@dataclass(frozen=True)
class ToNext:
    """Seat ``sender``'s turn in a shuffle, handed straight to the process of seat ``to``, whose turn
    comes next: it takes its own on it at once, without waiting for the log (which gets both)."""

    sender: int
    to: int
    shuffle: int
    step: str
    deck: bytes
    after: bytes


@dataclass(frozen=True)
class Reseal:
    """Keys seat ``sender`` was asked for in the log (its seat ``to`` says they never came): to seal to
    that seat and put in the log (``sealed``), so the table sees they were given. token → key."""

    sender: int
    to: int
    keys: dict[int, bytes]


@dataclass(frozen=True)
class ToTable:
    """Seat ``sender``'s secrets for the audit of shuffle ``shuffle``, for every other seat's process
    (sealed to each, never in the log: the log alone shows no face the table was not shown)."""

    sender: int
    shuffle: int
    keys: bytes
    order: bytes


@dataclass(frozen=True)
class Finding:
    """A cheat the deck caught (``seat`` did ``reason``), for the log and the screen."""

    seat: int
    reason: str


def pack_keys(keys: Mapping[int, Mapping[int, bytes]]) -> bytes:
    """Keys by token and owner as bytes (``KEY_RECORD`` each), for an action or a direct message."""
    return b"".join(
        token.to_bytes(4, "big") + owner.to_bytes(1, "big") + key
        for token, owners in sorted(keys.items())
        for owner, key in sorted(owners.items())
    )


def unpack_keys(data: bytes) -> dict[int, dict[int, bytes]]:
    """The keys ``pack_keys`` packed; ``ValueError`` for bytes that are not such records."""
    if not isinstance(data, bytes) or len(data) % KEY_RECORD:
        raise ValueError(f"keys come in records of {KEY_RECORD} bytes")
    keys: dict[int, dict[int, bytes]] = {}
    for start in range(0, len(data), KEY_RECORD):
        record = data[start : start + KEY_RECORD]
        keys.setdefault(int.from_bytes(record[:4], "big"), {})[record[4]] = record[5:]
    return keys


@dataclass(frozen=True)
class SealedMessage:
    """A sealed direct message as it came: ``kind`` (``KEYS`` or ``OPEN``), from seat ``sender`` to
    seat ``to``, and the box to open with the two seats' keys."""

    kind: str
    sender: int
    to: int
    box: bytes


def turn_message(turn: ToNext) -> bytes:
    """The bytes of a turn handed to the next seat's process."""
    body = {"t": TURN, "sender": turn.sender, "to": turn.to, "shuffle": turn.shuffle, "step": turn.step,
            "deck": turn.deck, "after": turn.after}  # fmt: skip
    packed: bytes = msgpack.packb(body, use_bin_type=True)
    return packed


def sealed_message(kind: str, sender: int, to: int, box: bytes) -> bytes:
    """The bytes of keys (``KEYS``) or secrets (``OPEN``) sealed from seat ``sender`` to seat ``to``."""
    packed: bytes = msgpack.packb({"t": kind, "sender": sender, "to": to, "box": box}, use_bin_type=True)
    return packed


def keys_payload(keys: Mapping[int, Mapping[int, bytes]]) -> bytes:
    """What a ``KEYS`` message seals: the keys' records."""
    packed: bytes = msgpack.packb({"keys": pack_keys(keys)}, use_bin_type=True)
    return packed


def secrets_payload(secrets: ToTable) -> bytes:
    """What an ``OPEN`` message seals: one seat's secrets for a shuffle's audit."""
    body = {"shuffle": secrets.shuffle, "keys": secrets.keys, "order": secrets.order}
    packed: bytes = msgpack.packb(body, use_bin_type=True)
    return packed


def read_turn(body: Mapping[str, Any], seats: int) -> ToNext:
    """A turn from a direct message's body; ValueError (with the reason) when it is not one."""
    try:
        turn = ToNext(body["sender"], body["to"], body["shuffle"], body["step"], body["deck"], body["after"])
    except KeyError as missing:
        raise ValueError(f"a turn without {missing}") from None
    if not (isinstance(turn.sender, int) and 0 <= turn.sender < seats):
        raise ValueError("no such seat")
    if not (isinstance(turn.shuffle, int) and isinstance(turn.step, str)):
        raise ValueError("a turn of the wrong types")
    if not (isinstance(turn.deck, bytes) and isinstance(turn.after, bytes)):
        raise ValueError("a turn of the wrong types")
    return turn


def read_sealed(body: Mapping[str, Any]) -> SealedMessage:
    """A sealed message from a direct message's body; ValueError when it is not one."""
    kind, sender, to, box = body.get("t"), body.get("sender"), body.get("to"), body.get("box")
    if kind not in (KEYS, OPEN):
        raise ValueError(f"no fair deck's message is {kind!r}")
    if not (isinstance(sender, int) and isinstance(to, int) and sender >= 0 and to >= 0):
        raise ValueError("no such seat")
    if not isinstance(box, bytes):
        raise ValueError("a sealed message's box is bytes")
    return SealedMessage(kind, sender, to, box)


def read_payload(message: SealedMessage, raw: Any) -> ToSeat | ToTable:
    """What an opened ``message`` says (``raw``: its payload, unpacked): keys for a seat, or a seat's
    secrets for an audit; ValueError (or KeyError) when it is not that."""
    if not isinstance(raw, dict):
        raise ValueError("a sealed message holds a map")
    if message.kind == OPEN:
        secrets = ToTable(message.sender, raw["shuffle"], raw["keys"], raw["order"])
        if not (isinstance(secrets.shuffle, int) and isinstance(secrets.keys + secrets.order, bytes)):
            raise ValueError("secrets of the wrong types")
        return secrets
    return ToSeat(message.sender, message.to, unpack_keys(raw["keys"]))
