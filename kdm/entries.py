"""The table's log entries as typed records, and their one codec.

Consensus orders opaque bytes; a table's entries are these records, each a frozen dataclass with its
author's ``id`` (``EntryId``: node and counter, so that a retried proposal committed twice is applied
once). On the wire an entry is a msgpack map ``{"t": type, "id": [node, counter], **fields}``;
``decode`` checks every field's type and size and raises ``ValueError`` saying what is wrong, so the
record (``kdm.record``) only ever sees well-formed entries and refuses the rest the same way on every
peer. What each entry *means* is the record's business; this module owns their shape.
"""

from __future__ import annotations

import dataclasses
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import msgpack
from nacl.exceptions import BadSignatureError

from kdm.identity import PUBLIC_KEY_BYTES, SIGNATURE_BYTES
from kdm.net.keys import verify_key_of

#: The size of a commitment to a nonce, and of a public key for private notes (Curve25519).
HASH_BYTES = KEY_BYTES = 32


@dataclass(frozen=True)
class EntryId:
    """Who proposed an entry (its node, or ``node#seat`` for a stand-in) and its counter there."""

    node: str
    counter: int


@dataclass(frozen=True)
class Entry:
    """One log entry; ``TYPE`` is its ``t`` on the wire."""

    TYPE: ClassVar[str] = ""
    id: EntryId


@dataclass(frozen=True)
class Create(Entry):
    """The host's table: name, players, options as given, plugins with versions, listed on the LAN."""

    TYPE: ClassVar[str] = "create"
    name: str
    players: int
    options: dict[str, Any]
    plugins: dict[str, str]
    listed: bool = True
    #: The table's deck service: ``open`` (faces from agreed seeds) or ``fair`` (DESIGN 7).
    deck: str = "open"
    #: Whether the table's voters vouch for each other's presses (``kdm.vouching``); a log kept before
    #: they did replays as it was played.
    vouch: bool = False


@dataclass(frozen=True)
class Join(Entry):
    """A node asks for a seat, committing to its first nonce; with a ``player`` key and its signed
    ``claim``, the seat is bound to that key (``kdm.identity``). A bot a player started names that
    player's node as its ``laptop``: it does not vote (``kdm.membership``)."""

    TYPE: ClassVar[str] = "join"
    commit: bytes
    name: str = ""
    bot: bool = False
    box_key: bytes = b""
    player: bytes = b""
    claim: bytes = b""
    laptop: str = ""


@dataclass(frozen=True)
class Start(Entry):
    """The host starts the game."""

    TYPE: ClassVar[str] = "start"


@dataclass(frozen=True)
class Reveal(Entry):
    """A seated node reveals its nonce for shuffle ``shuffle`` and commits to the next one."""

    TYPE: ClassVar[str] = "reveal"
    shuffle: int
    nonce: bytes
    next_commit: bytes


@dataclass(frozen=True)
class Act(Entry):
    """A player's action: an engine event, encoded by the table's event codec."""

    TYPE: ClassVar[str] = "event"
    event: dict[str, Any] = field(default_factory=dict)
    #: With the fair deck, the keys that show the faces the action names (``kdm.fair.messages.pack_keys``).
    keys: bytes = b""


@dataclass(frozen=True)
class Takeover(Entry):
    """A node's process plays ``seat`` with a bot, standing in for a gone player."""

    TYPE: ClassVar[str] = "takeover"
    seat: int
    commit: bytes
    box_key: bytes = b""
    #: Why, when the player is not simply gone (a seat that withheld its keys from a fair deck).
    why: str = ""
    #: At a signed table, the other voters' word that the seat's process is gone (``SILENT``) or withheld
    #: its keys (``WITHHELD``, with ``why``): signer's node id → [log position, signature] of its
    #: ``silence_statement``. The record counts them (``kdm.record``): no one takes a seat alone.
    silence: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DeckPart(Entry):
    """Seat ``seat``'s part in the fair deck (``kdm.fair.table``): a ``step`` of shuffle ``shuffle``
    (``strip``, ``lock`` or ``key``: the deck after its turn, with its commitments and proofs,
    ``kdm.fair.proofs``), its
    keys for cards shown to the table (``show``: ``tokens`` and ``keys``), the keys it asks for
    (``missing``: (token, owner) pairs in ``tokens``), or keys it was asked for (``sealed``: (token,
    asker) pairs, each key sealed to its asker). Points and keys are 32 bytes each, numbers 4,
    concatenated."""

    TYPE: ClassVar[str] = "deck"
    seat: int
    step: str
    shuffle: int = 0
    deck: bytes = b""
    commits: bytes = b""
    keys: bytes = b""
    tokens: bytes = b""
    #: A turn's proofs that it used the deck it was handed and the keys it committed to.
    proof: bytes = b""
    #: A turn's: the hash of the deck it was taken on (``kdm.fair.turns.deck_hash``), so that a turn
    #: taken on a deck handed straight from the seat before counts only if the log holds that deck.
    after: bytes = b""


@dataclass(frozen=True)
class Done(Entry):
    """A node saw the game end."""

    TYPE: ClassVar[str] = "done"


@dataclass(frozen=True)
class Chat(Entry):
    """A line ``seat``'s player says to the whole table: everyone reads it, as the log keeps it."""

    TYPE: ClassVar[str] = "chat"
    seat: int
    text: str


@dataclass(frozen=True)
class Vouch(Entry):
    """A voter's stamps on the press ``press``/``counter`` (an ``Act`` of another seat's, whose encoded
    event has the digest ``digest``): when it first reached this voter (``seen_us``) and, when the press
    names a trigger this voter applied, when it did (``shown_us``, else ``NOT_SHOWN``), in microseconds
    on the table's agreed clock; and how many events this voter had applied when the press reached it
    (``applied``: the table's next sequence number then) (``kdm.vouching``)."""

    TYPE: ClassVar[str] = "vouch"
    press: str
    counter: int
    digest: bytes
    seen_us: int
    applied: int
    shown_us: int = -1


#: A ``Vouch`` whose voter did not apply the press's trigger (or the press names none).
NOT_SHOWN = -1

#: The longest chat line, in characters.
MAX_CHAT = 200

#: What a voter's statement on a seat says (``silence_statement``): its process has not been heard from
#: for the silence limit, or the fair deck has waited that long on its keys.
SILENT, WITHHELD = "silent", "withheld"


def silence_statement(table: str, seat: int, node: str, hand: bytes, position: int, kind: str) -> bytes:
    """The bytes a voter signs to say that ``seat``'s process ``node`` is ``kind`` (``SILENT`` or
    ``WITHHELD``) at ``table``, as it stood once it had applied ``position`` committed entries, the
    seat's commitment then ``hand`` (so that the word cannot be used much later, nor once the player
    is back: their return commits anew; ``kdm.record``)."""
    said: bytes = msgpack.packb([table, seat, node, hand, position, kind], use_bin_type=True)
    return b"kdm silence\x00" + said


def silence_signed_by(
    signer: str, signature: object, table: str, seat: int, node: str, hand: bytes, position: int, kind: str
) -> bool:
    """Whether ``signature`` is ``signer``'s, on its ``silence_statement`` of these."""
    key = verify_key_of(signer)
    if key is None or not isinstance(signature, bytes) or len(signature) != SIGNATURE_BYTES:
        return False
    try:
        key.verify(silence_statement(table, seat, node, hand, position, kind), signature)
    except BadSignatureError:
        return False
    return True


def chat_problem(text: str) -> str:
    """What is wrong with a line people type for the table (empty when nothing is): 1 to ``MAX_CHAT``
    characters, some of them not blank, none a control character (a line cannot move the cursor on
    others' screens). A ``Chat`` entry's, and a game's own spoken lines'."""
    if not text.strip() or len(text) > MAX_CHAT or any(unicodedata.category(c)[0] == "C" for c in text):
        return f"a chat line is 1 to {MAX_CHAT} characters, printable ones"
    return ""


ENTRY_TYPES: dict[str, type[Entry]] = {
    kind.TYPE: kind for kind in (Create, Join, Start, Reveal, Act, Takeover, Done, Chat, DeckPart, Vouch)
}

#: Wire names that differ from the field names (kept as they were before entries had types).
_WIRE_NAMES: dict[tuple[type[Entry], str], str] = {(Reveal, "shuffle"): "k", (Reveal, "next_commit"): "next"}

#: Byte fields with the sizes they may have.
_SIZES: dict[str, tuple[int, ...]] = {
    "commit": (HASH_BYTES,),
    "next_commit": (HASH_BYTES,),
    "box_key": (0, KEY_BYTES),
    "player": (0, PUBLIC_KEY_BYTES),
    "digest": (16,),
}


#: Fields added after logs were kept, left off the wire at their default: an older entry's bytes (and so
#: its signature) stay what they were.
_LATER_FIELDS: frozenset[tuple[type[Entry], str]] = frozenset(
    {
        (Create, "deck"),
        (Act, "keys"),
        (Takeover, "why"),
        (Join, "laptop"),
        (Takeover, "silence"),
        (Create, "vouch"),
    }
)


def _default(spec: dataclasses.Field[Any]) -> Any:
    """A field's default value (made by its factory, for a map)."""
    if spec.default_factory is not dataclasses.MISSING:
        return spec.default_factory()
    return spec.default


def to_wire(entry: Entry) -> dict[str, Any]:
    """``entry`` as the map that goes into the log."""
    fields = {
        _WIRE_NAMES.get((type(entry), f.name), f.name): getattr(entry, f.name)
        for f in dataclasses.fields(entry)
        if f.name != "id"
        and not ((type(entry), f.name) in _LATER_FIELDS and getattr(entry, f.name) == _default(f))
    }
    return {"t": entry.TYPE, "id": [entry.id.node, entry.id.counter], **fields}


def encode(entry: Entry, sign: Callable[[bytes], bytes] | None = None, table: str = "") -> bytes:
    """The bytes of ``entry`` for consensus; signed by ``sign`` (its author's key) for ``table``."""
    wire = to_wire(entry)
    data: bytes = msgpack.packb(wire, use_bin_type=True)
    if sign is None:
        return data
    signed: bytes = msgpack.packb({**wire, "sig": sign(_signed_part(table, data))}, use_bin_type=True)
    return signed


def _signed_part(table: str, data: bytes) -> bytes:
    return b"kdm entry\x00" + table.encode() + b"\x00" + data


def author_node(entry: Entry) -> str:
    """The node that wrote ``entry``: its id's node (a stand-in's ``node#seat`` names its node)."""
    return entry.id.node.partition("#")[0]


def signed_by_author(entry: Entry, signature: object, table: str) -> bool:
    """Whether ``signature`` is the entry's author's, over ``table`` and the entry's canonical bytes."""
    key = verify_key_of(author_node(entry))
    if key is None or not isinstance(signature, bytes) or len(signature) != SIGNATURE_BYTES:
        return False
    try:
        key.verify(_signed_part(table, encode(entry)), signature)
    except BadSignatureError:
        return False
    return True


def from_wire(data: Any) -> Entry:
    """The entry a committed map holds, or ``ValueError`` saying what is wrong with it."""
    if not isinstance(data, dict):
        raise ValueError("not a map")
    kind = ENTRY_TYPES.get(str(data.get("t")))
    if kind is None:
        raise ValueError(f"unknown type {data.get('t')!r}")
    ident = data.get("id")
    if not (
        isinstance(ident, list)
        and len(ident) == 2
        and isinstance(ident[0], str)
        and isinstance(ident[1], int)
    ):
        raise ValueError("id must be [node, counter]")
    values: dict[str, Any] = {"id": EntryId(ident[0], ident[1])}
    hints = {f.name: f for f in dataclasses.fields(kind)}
    for name, spec in hints.items():
        if name == "id":
            continue
        wire = _WIRE_NAMES.get((kind, name), name)
        if wire not in data:
            if spec.default is dataclasses.MISSING and spec.default_factory is dataclasses.MISSING:
                raise ValueError(f"{kind.TYPE} entry without {wire}")
            continue
        values[name] = _checked(name, wire, data[wire], spec.type)
    return kind(**values)


def decode(data: bytes) -> Entry:
    """The entry in committed bytes, or ``ValueError`` (not msgpack, or malformed)."""
    try:
        raw = msgpack.unpackb(data, raw=False, strict_map_key=True)
    except Exception as error:  # msgpack raises several types for bytes that are not msgpack
        raise ValueError(f"not msgpack: {error}") from error
    return from_wire(raw)


_PLAIN: dict[str, type] = {"str": str, "int": int, "bool": bool, "bytes": bytes}


def _checked(name: str, wire: str, value: Any, annotation: Any) -> Any:
    """``value`` for field ``name`` if it has the field's type (and size, for bytes)."""
    expected: type | None = _PLAIN.get(str(annotation))
    if expected is not None:
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise ValueError(f"{wire} must be {annotation!s}")
        sizes = _SIZES.get(name)
        if sizes is not None and isinstance(value, bytes) and len(value) not in sizes:
            allowed = " or ".join(str(size) for size in sizes)
            raise ValueError(f"{wire} must be {allowed} bytes")
        return value
    if not isinstance(value, dict):  # the maps: options, plugins, an encoded event
        raise ValueError(f"{wire} must be a map")
    if name == "plugins" and not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ValueError("plugins must map names to versions")
    return value
