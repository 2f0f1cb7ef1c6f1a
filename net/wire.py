"""The wire codec: the only place that turns a message into bytes and bytes back into a message.

Every message is a msgpack map, the envelope ``{"v", "table", "from", "kind", "body"}``. Decoding is the
trust boundary of a peer, so it is strict and total: anything but a well-formed envelope of a known kind,
for this table and this protocol version, from the node the transport says sent it, is a `WireError`
carrying a one-line reason for the drop log. Nothing else escapes `Codec.decode`, whatever the bytes.

msgpack only, with ``raw=False`` and string map keys, no ext types (the built-in timestamp type included)
and never pickle: a message can only ever become None, bools, numbers, strings, bytes, lists and maps.
What goes into a body beyond that is the business of the kind's validator, registered by whoever owns
that kind; this module knows no kinds of its own and moves opaque bodies.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

import msgpack

__all__ = [
    "CHECK_ENCODED",
    "CHECK_ENCODED_ENV",
    "MAX_MESSAGE_BYTES",
    "PROTOCOL_VERSION",
    "Codec",
    "Envelope",
    "Validator",
    "WireError",
    "check_fields",
]

PROTOCOL_VERSION = 4  # 3: signed votes and election certificates in raft messages; 4: the clock rides them
MAX_MESSAGE_BYTES = 64 * 1024
#: Whether `Codec.encode` decodes what it encoded before returning it, so that a bug in a sender shows
#: up where it is made, with a traceback, and not as a drop logged on every other peer. It costs a
#: decode per message sent, so it is for the test suite (``tests/conftest.py`` sets ``KDM_CHECK_ENCODED=1``,
#: which the processes it starts inherit), not for a table: every receiver checks every message anyway.
CHECK_ENCODED_ENV = "KDM_CHECK_ENCODED"
CHECK_ENCODED = os.environ.get(CHECK_ENCODED_ENV) == "1"

Validator = Callable[[dict[str, Any]], Any]
"""Checks one kind's body; raises ValueError with a one-line reason when the body is not acceptable.
What it returns (what it parsed the body into, or None) is the envelope's ``parsed``: a body is parsed
once, where it is checked."""

_ENVELOPE_FIELDS: dict[str, type] = {"v": int, "table": str, "from": str, "kind": str, "body": dict}
# Reasons quote values a stranger chose; cut them short so one bad message cannot flood the log.
_QUOTE_LIMIT = 40

log = logging.getLogger("kdm.net")


class WireError(ValueError):
    """A message that cannot be encoded, or a received one that must be dropped; `reason` is one line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Envelope:
    """One decoded message: checked against the table, the sender's transport identity and its kind."""

    table: str
    sender: str
    kind: str
    body: dict[str, Any]
    version: int = PROTOCOL_VERSION
    #: What the kind's validator made of the body (None for most kinds).
    parsed: Any = None


class Codec:
    """Encodes and decodes the messages of one table; `kinds` maps each accepted kind to its validator."""

    def __init__(self, table: str, kinds: Mapping[str, Validator] | None = None) -> None:
        if not isinstance(table, str) or not table:
            raise ValueError("a table id must be a non-empty string")
        self.table = table
        self._validators: dict[str, Validator] = {}
        for kind, validator in (kinds or {}).items():
            self.register(kind, validator)

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset(self._validators)

    def register(self, kind: str, validator: Validator) -> None:
        """Accept messages of `kind` whose body passes `validator`. A kind has one owner: registered once."""
        if not isinstance(kind, str) or not kind:
            raise ValueError("a message kind must be a non-empty string")
        if kind in self._validators:
            raise ValueError(f"message kind {kind!r} is already registered")
        self._validators[kind] = validator

    def encode(self, sender: str, kind: str, body: dict[str, Any]) -> bytes:
        """The bytes of one message, or WireError if they cannot be encoded or are of an unknown kind;
        with ``CHECK_ENCODED``, also if peers would drop them (a bad body, too big): they are decoded
        again before they are returned."""
        if kind not in self._validators:
            raise WireError(f"unknown kind {_quote(kind)}")
        envelope = {"v": PROTOCOL_VERSION, "table": self.table, "from": sender, "kind": kind, "body": body}
        try:
            data: bytes = msgpack.packb(envelope, use_bin_type=True)
        except (TypeError, ValueError, OverflowError) as error:
            raise WireError(f"{kind} body cannot be encoded: {_one_line(error)}") from error
        if CHECK_ENCODED:
            self.decode(data, claimed_sender=sender)
        return data

    def decode(self, data: bytes | bytearray | memoryview, claimed_sender: str | None = None) -> Envelope:
        """The envelope in `data`, or WireError(reason) if it must be dropped.

        `claimed_sender` is the identity the transport saw the bytes arrive from; the envelope's ``from``
        must match it, so a peer cannot speak in another's name without also taking its connection.
        """
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise WireError(f"expected bytes, got {type(data).__name__}")
        size = len(data)
        if size > MAX_MESSAGE_BYTES:
            raise WireError(f"message of {size} bytes is over the {MAX_MESSAGE_BYTES} byte limit")
        message = _unpack(data)
        well_formed = (  # the common case, checked at a glance; anything else gets its reason below
            type(message) is dict
            and message.keys() == _ENVELOPE_KEYS
            and type(message["v"]) is int
            and type(message["table"]) is str
            and type(message["from"]) is str
            and type(message["kind"]) is str
            and type(message["body"]) is dict
        )
        if not well_formed:
            _check_envelope(message)
        version: int = message["v"]
        if version != PROTOCOL_VERSION:
            raise WireError(f"protocol version {_quote(version)}, this peer speaks {PROTOCOL_VERSION}")
        table: str = message["table"]
        sender: str = message["from"]
        kind: str = message["kind"]
        body: dict[Any, Any] = message["body"]
        if table != self.table:
            raise WireError(f"message for table {_quote(table)}, this peer is at table {_quote(self.table)}")
        if claimed_sender is not None and sender != claimed_sender:
            raise WireError(f"message from {_quote(claimed_sender)} claims to be from {_quote(sender)}")
        validator = self._validators.get(kind)
        if validator is None:
            raise WireError(f"unknown kind {_quote(kind)}")
        for key in body:
            if not isinstance(key, str):
                raise WireError(f"{kind} body has {_a(_type_name(key))} key, not a str")
        try:
            parsed = validator(body)
        except ValueError as error:
            raise WireError(f"bad {kind} body: {_one_line(error)}") from error
        except Exception as error:
            # A validator is meant to raise ValueError, but it runs on bytes from strangers: a slip in one
            # (a KeyError, a TypeError) must drop the message, not stop the receive loop.
            raise WireError(f"bad {kind} body: {type(error).__name__}: {_one_line(error)}") from error
        return Envelope(table=table, sender=sender, kind=kind, body=body, version=version, parsed=parsed)

    def decode_or_drop(
        self, data: bytes | bytearray | memoryview, claimed_sender: str | None = None
    ) -> Envelope | None:
        """The envelope in `data`, or None after logging why it was dropped: what a receive loop calls."""
        try:
            return self.decode(data, claimed_sender)
        except WireError as error:
            log.warning("dropped a message from %s: %s", claimed_sender or "an unknown peer", error.reason)
            return None


_ENVELOPE_KEYS = _ENVELOPE_FIELDS.keys()


def _check_envelope(message: Any) -> None:
    """Raise WireError with the reason ``message`` is not a well-formed envelope (one it finds first)."""
    if not isinstance(message, dict):
        raise WireError(f"message is {_a(_type_name(message))}, not a map")
    # The version comes first: a newer peer may have changed everything else in the envelope.
    if "v" not in message:
        raise WireError("missing envelope field 'v'")
    version = message["v"]
    if not _has_type(version, int):
        raise WireError(f"envelope field 'v' is {_a(_type_name(version))}, not an int")
    if version != PROTOCOL_VERSION:
        raise WireError(f"protocol version {_quote(version)}, this peer speaks {PROTOCOL_VERSION}")
    for name in message:
        if name not in _ENVELOPE_FIELDS:
            raise WireError(f"unexpected envelope field {_quote(name)}")
    for name, expected in _ENVELOPE_FIELDS.items():
        if name not in message:
            raise WireError(f"missing envelope field {name!r}")
        if not _has_type(message[name], expected):
            found, wanted = _type_name(message[name]), _TYPE_NAMES.get(expected, expected.__name__)
            raise WireError(f"envelope field {name!r} is {_a(found)}, not {_a(wanted)}")


def check_fields(
    body: Mapping[str, Any],
    required: Mapping[str, type | tuple[type, ...]],
    optional: Mapping[str, type | tuple[type, ...]] | None = None,
) -> None:
    """Raise ValueError unless `body` has every `required` field, only known fields, each of its type.

    Types are checked with isinstance, except that a bool does not pass for an int or a float unless
    bool is listed: msgpack keeps them apart and so do we.
    """
    optional = optional or {}
    for name in body:
        if name not in required and name not in optional:
            raise ValueError(f"unexpected field {_quote(name)}")
    for name, expected in required.items():
        if name not in body:
            raise ValueError(f"missing field {name!r}")
        _check_field_type(name, body[name], expected)
    for name, expected in optional.items():
        if name in body:
            _check_field_type(name, body[name], expected)


def _check_field_type(name: str, value: Any, expected: type | tuple[type, ...]) -> None:
    if not _has_type(value, expected):
        types = expected if isinstance(expected, tuple) else (expected,)
        wanted = " or ".join(_TYPE_NAMES.get(kind, kind.__name__) for kind in types)
        raise ValueError(f"field {name!r} is {_a(_type_name(value))}, not {_a(wanted)}")


def _has_type(value: Any, expected: type | tuple[type, ...]) -> bool:
    types = expected if isinstance(expected, tuple) else (expected,)
    if isinstance(value, bool) and bool not in types:
        return False
    return isinstance(value, types)


def _unpack(data: bytes | bytearray | memoryview) -> Any:
    try:
        return msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            use_list=True,
            ext_hook=_refuse_ext,
            list_hook=_refuse_timestamps_in_list,
            object_hook=_refuse_timestamps_in_map,
        )
    except WireError:
        raise
    except Exception as error:
        # msgpack signals bad input with several exception types (ValueError and its subclasses,
        # UnicodeDecodeError, StackError, TypeError on unhashable keys...); all of them mean the same.
        detail = _one_line(error) or type(error).__name__
        raise WireError(f"not msgpack: {detail}") from error


def _refuse_ext(code: int, data: bytes) -> NoReturn:
    raise WireError(f"msgpack ext type {code} is not allowed")


# msgpack decodes its timestamp extension (type -1) itself, without calling ext_hook, so it is caught
# here instead: every value that is not the top-level one sits in a list or a map.
def _refuse_timestamps_in_list(items: list[Any]) -> list[Any]:
    for item in items:
        if isinstance(item, msgpack.Timestamp):
            _refuse_ext(-1, b"")
    return items


def _refuse_timestamps_in_map(items: dict[str, Any]) -> dict[str, Any]:
    for item in items.values():
        if isinstance(item, msgpack.Timestamp):
            _refuse_ext(-1, b"")
    return items


# Types named as msgpack names them, since the reasons describe what arrived on the wire.
_TYPE_NAMES: dict[type, str] = {dict: "map", type(None): "nil"}


def _type_name(value: Any) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _a(noun: str) -> str:
    return f"an {noun}" if noun[:1] in ("a", "e", "i", "o", "u") else f"a {noun}"


def _quote(value: Any) -> str:
    text = repr(value)
    if len(text) > _QUOTE_LIMIT:
        text = text[: _QUOTE_LIMIT - 3] + "..."
    return text


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= 200 else text[:197] + "..."
