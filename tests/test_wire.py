"""The wire codec: round trips, every reason a message is dropped, and fuzzing of the trust boundary."""

from __future__ import annotations

import contextlib
import logging
import os
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kdm.net import wire
from kdm.net.wire import (
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    Codec,
    Envelope,
    WireError,
    check_fields,
)


def check_ping(body: dict[str, Any]) -> None:
    check_fields(body, {"n": int}, optional={"note": str})


def check_blob(body: dict[str, Any]) -> None:
    check_fields(body, {"data": bytes})


def check_careless(body: dict[str, Any]) -> None:
    # A validator with a slip in it: it indexes before checking.
    if body["n"] < 0:
        raise ValueError("n must not be negative")


def accept_anything(body: dict[str, Any]) -> None:
    pass


def make_codec(table: str = "kitchen") -> Codec:
    return Codec(
        table,
        {"ping": check_ping, "blob": check_blob, "careless": check_careless, "any": accept_anything},
    )


def envelope(**changes: Any) -> dict[str, Any]:
    """A valid raw envelope from 'alice', with fields replaced (or removed, with the value `REMOVE`)."""
    fields: dict[str, Any] = {
        "v": PROTOCOL_VERSION,
        "table": "kitchen",
        "from": "alice",
        "kind": "ping",
        "body": {"n": 1},
    }
    fields.update(changes)
    return {name: value for name, value in fields.items() if value is not REMOVE}


REMOVE = object()


def packed(value: Any) -> bytes:
    data: bytes = msgpack.packb(value, use_bin_type=True)
    return data


def reason_for(data: bytes, claimed_sender: str | None = None) -> str:
    with pytest.raises(WireError) as caught:
        make_codec().decode(data, claimed_sender)
    assert caught.value.reason == str(caught.value)
    assert "\n" not in caught.value.reason
    return caught.value.reason


# --- round trips ------------------------------------------------------------------------------------------


def test_round_trip_gives_back_the_envelope() -> None:
    codec = make_codec()
    data = codec.encode("alice", "ping", {"n": 3, "note": "salut"})
    assert codec.decode(data, claimed_sender="alice") == Envelope(
        table="kitchen", sender="alice", kind="ping", body={"n": 3, "note": "salut"}, version=PROTOCOL_VERSION
    )


def test_round_trip_keeps_bytes_str_and_nesting_apart() -> None:
    codec = make_codec()
    body = {"a": b"\x00\xff", "b": "é♠", "c": [1, [2.5, None, True]], "d": {"e": {"f": -(2**63)}}}
    assert codec.decode(codec.encode("alice", "any", body)).body == body


def test_decode_accepts_any_bytes_like() -> None:
    codec = make_codec()
    data = codec.encode("alice", "ping", {"n": 1})
    assert codec.decode(bytearray(data)) == codec.decode(memoryview(data)) == codec.decode(data)


def test_wire_error_is_a_value_error_with_a_reason() -> None:
    error = WireError("too big")
    assert isinstance(error, ValueError)
    assert error.reason == "too big"


# --- every reason a received message is dropped -------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\xc1", "not msgpack"),
        (b"", "not msgpack"),
        (b"\x85\xa1v", "not msgpack"),
        (packed(envelope()) + b"\x00", "not msgpack"),
        (b"\x81\x01\x02", "not msgpack: int is not allowed for map key"),
        (b"\xa2\xff\xfe", "not msgpack"),
        (b"\x91" * 60_000, "not msgpack"),
        (b"\xdd\xff\xff\xff\xff", "not msgpack"),
        (packed([1, 2]), "message is a list, not a map"),
        (packed("hello"), "message is a str, not a map"),
        (packed(None), "message is a nil, not a map"),
    ],
    ids=[
        "reserved-byte",
        "empty",
        "truncated",
        "trailing-bytes",
        "int-map-key",
        "bad-utf8",
        "too-deep",
        "huge-array-claim",
        "list",
        "str",
        "nil",
    ],
)
def test_what_is_not_an_envelope_is_dropped(data: bytes, reason: str) -> None:
    assert reason_for(data).startswith(reason)


@pytest.mark.parametrize("field", ["v", "table", "from", "kind", "body"])
def test_a_missing_envelope_field_is_dropped(field: str) -> None:
    assert reason_for(packed(envelope(**{field: REMOVE}))) == f"missing envelope field {field!r}"


def test_an_extra_envelope_field_is_dropped() -> None:
    assert reason_for(packed(envelope(sig=b"x"))) == "unexpected envelope field 'sig'"
    assert reason_for(packed({**envelope(), b"raw": 1})) == "unexpected envelope field b'raw'"


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("v", "1", "envelope field 'v' is a str, not an int"),
        ("v", True, "envelope field 'v' is a bool, not an int"),
        ("v", 1.0, "envelope field 'v' is a float, not an int"),
        ("table", 5, "envelope field 'table' is an int, not a str"),
        ("from", None, "envelope field 'from' is a nil, not a str"),
        ("kind", b"ping", "envelope field 'kind' is a bytes, not a str"),
        ("body", [1], "envelope field 'body' is a list, not a map"),
    ],
)
def test_a_wrong_typed_envelope_field_is_dropped(field: str, value: Any, reason: str) -> None:
    assert reason_for(packed(envelope(**{field: value}))) == reason


def test_another_protocol_version_is_dropped_whatever_else_it_holds() -> None:
    newer, older = PROTOCOL_VERSION + 1, PROTOCOL_VERSION - 1
    assert (
        reason_for(packed(envelope(v=newer)))
        == f"protocol version {newer}, this peer speaks {PROTOCOL_VERSION}"
    )
    assert (
        reason_for(packed(envelope(v=older)))
        == f"protocol version {older}, this peer speaks {PROTOCOL_VERSION}"
    )
    # A newer peer may have changed the envelope too: the reason is still the version.
    assert reason_for(packed({"v": newer, "something": "new"})) == (
        f"protocol version {newer}, this peer speaks {PROTOCOL_VERSION}"
    )


def test_another_table_is_dropped() -> None:
    assert (
        reason_for(packed(envelope(table="garage")))
        == "message for table 'garage', this peer is at table 'kitchen'"
    )


def test_an_unknown_kind_is_dropped() -> None:
    assert reason_for(packed(envelope(kind="pong"))) == "unknown kind 'pong'"


def test_a_sender_that_is_not_the_connection_is_dropped() -> None:
    reason = reason_for(packed(envelope()), claimed_sender="bob")
    assert reason == "message from 'bob' claims to be from 'alice'"
    assert make_codec().decode(packed(envelope()), claimed_sender="alice").sender == "alice"


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({}, "bad ping body: missing field 'n'"),
        ({"n": "1"}, "bad ping body: field 'n' is a str, not an int"),
        ({"n": True}, "bad ping body: field 'n' is a bool, not an int"),
        ({"n": 1, "note": 2}, "bad ping body: field 'note' is an int, not a str"),
        ({"n": 1, "extra": 2}, "bad ping body: unexpected field 'extra'"),
        ({b"n": 1}, "ping body has a bytes key, not a str"),
    ],
)
def test_a_body_that_fails_its_validator_is_dropped(body: dict[Any, Any], reason: str) -> None:
    assert reason_for(packed(envelope(body=body))) == reason


def test_a_careless_validator_cannot_raise_through_decode() -> None:
    assert reason_for(packed(envelope(kind="careless", body={}))) == "bad careless body: KeyError: 'n'"
    assert reason_for(packed(envelope(kind="careless", body={"n": "x"}))).startswith(
        "bad careless body: TypeError"
    )
    assert reason_for(packed(envelope(kind="careless", body={"n": -1}))) == (
        "bad careless body: n must not be negative"
    )


def test_ext_types_are_dropped_even_deep_inside() -> None:
    ext = msgpack.ExtType(5, b"payload")
    assert reason_for(packed(envelope(kind="any", body={"x": ext}))) == "msgpack ext type 5 is not allowed"
    assert reason_for(packed(ext)) == "msgpack ext type 5 is not allowed"


def test_the_timestamp_ext_type_is_dropped_too() -> None:
    # msgpack decodes type -1 itself without asking ext_hook: it must not slip through.
    stamp = msgpack.Timestamp(1, 0)
    for body in ({"x": stamp}, {"x": [[stamp]]}, {"x": {"y": stamp}}):
        assert reason_for(packed(envelope(kind="any", body=body))) == "msgpack ext type -1 is not allowed"
    assert reason_for(packed(stamp)) == "message is a Timestamp, not a map"


def test_reasons_quote_values_briefly() -> None:
    reason = reason_for(packed(envelope(kind="k" * 10_000)))
    assert len(reason) < 80


def test_decode_refuses_what_is_not_bytes() -> None:
    with pytest.raises(WireError, match="expected bytes, got str"):
        make_codec().decode("hello")  # type: ignore[arg-type]


def test_decode_or_drop_logs_the_reason(caplog: pytest.LogCaptureFixture) -> None:
    codec = make_codec()
    with caplog.at_level(logging.WARNING, logger="kdm.net"):
        assert codec.decode_or_drop(packed(envelope(v=1)), claimed_sender="alice") is None
    assert (
        f"dropped a message from alice: protocol version 1, this peer speaks {PROTOCOL_VERSION}"
        in caplog.text
    )
    assert codec.decode_or_drop(packed(envelope()), claimed_sender="alice") is not None


# --- the size cap ------------------------------------------------------------------------------------------


def blob_of_size(codec: Codec, size: int) -> dict[str, Any]:
    """A blob body whose encoded message is exactly `size` bytes (for sizes where bin16 applies)."""
    overhead = len(codec.encode("alice", "blob", {"data": b"x" * 1000})) - 1000
    return {"data": b"x" * (size - overhead)}


def test_a_message_of_exactly_the_cap_passes() -> None:
    codec = make_codec()
    data = codec.encode("alice", "blob", blob_of_size(codec, MAX_MESSAGE_BYTES))
    assert len(data) == MAX_MESSAGE_BYTES
    assert codec.decode(data).kind == "blob"


def test_a_message_over_the_cap_is_refused_both_ways() -> None:
    codec = make_codec()
    with pytest.raises(WireError, match="message of 65537 bytes is over the 65536 byte limit"):
        codec.encode("alice", "blob", blob_of_size(codec, MAX_MESSAGE_BYTES + 1))
    too_big = packed(envelope(kind="blob", body={"data": b"x" * MAX_MESSAGE_BYTES}))
    assert reason_for(too_big) == f"message of {len(too_big)} bytes is over the 65536 byte limit"
    # The size is checked before anything is parsed.
    assert reason_for(b"\xc1" * (MAX_MESSAGE_BYTES + 1)).startswith("message of 65537 bytes")


# --- encoding ----------------------------------------------------------------------------------------------


def test_encode_refuses_what_peers_would_drop() -> None:
    codec = make_codec()
    with pytest.raises(WireError, match="unknown kind 'pong'"):
        codec.encode("alice", "pong", {})
    with pytest.raises(WireError, match="bad ping body: missing field 'n'"):
        codec.encode("alice", "ping", {})
    with pytest.raises(WireError, match="any body cannot be encoded"):
        codec.encode("alice", "any", {"x": {1, 2}})
    with pytest.raises(WireError, match="any body cannot be encoded"):
        codec.encode("alice", "any", {"x": 2**64})
    with pytest.raises(WireError, match="not msgpack: int is not allowed for map key"):
        codec.encode("alice", "any", {"x": {1: 2}})
    with pytest.raises(WireError, match="envelope field 'from' is an int"):
        codec.encode(7, "ping", {"n": 1})  # type: ignore[arg-type]


def test_a_table_trusts_its_own_senders_and_the_suite_checks_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """At a table, what a peer encodes is not decoded again (a decode per message sent, for a check every
    receiver makes anyway); the suite turns the check on, in its processes too, so a sender's bug fails
    where it is made."""
    assert wire.CHECK_ENCODED and os.environ[wire.CHECK_ENCODED_ENV] == "1"
    codec = make_codec()
    monkeypatch.setattr(wire, "CHECK_ENCODED", False)
    data = codec.encode("alice", "ping", {})  # a bad body: every receiver drops it
    assert reason_for(data) == "bad ping body: missing field 'n'"
    with pytest.raises(WireError, match="unknown kind 'pong'"):
        codec.encode("alice", "pong", {})


def test_kinds_are_registered_once() -> None:
    codec = Codec("kitchen")
    codec.register("ping", check_ping)
    assert codec.kinds == frozenset({"ping"})
    with pytest.raises(ValueError, match="already registered"):
        codec.register("ping", check_ping)
    with pytest.raises(ValueError, match="non-empty"):
        codec.register("", check_ping)
    with pytest.raises(ValueError, match="non-empty"):
        Codec("")


# --- check_fields ------------------------------------------------------------------------------------------


def test_check_fields() -> None:
    check_fields({"a": 1, "b": "x"}, {"a": int}, optional={"b": str, "c": bytes})
    check_fields({"a": 1.5}, {"a": (int, float)})
    check_fields({"a": True}, {"a": (bool, int)})
    with pytest.raises(ValueError, match="missing field 'a'"):
        check_fields({}, {"a": int})
    with pytest.raises(ValueError, match="unexpected field 'z'"):
        check_fields({"a": 1, "z": 0}, {"a": int})
    with pytest.raises(ValueError, match="field 'a' is a bool, not an int or float"):
        check_fields({"a": False}, {"a": (int, float)})
    with pytest.raises(ValueError, match="field 'c' is a str, not a bytes"):
        check_fields({"a": 1, "c": "x"}, {"a": int}, optional={"c": bytes})


# --- fuzzing the trust boundary ----------------------------------------------------------------------------

plain_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.binary(max_size=20),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=30,
)
any_values = st.recursive(
    plain_values,
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(
            st.text(max_size=8) | st.binary(max_size=8) | st.integers(0, 9), children, max_size=5
        )
    ),
    max_leaves=30,
)
bodies = st.dictionaries(st.sampled_from(["n", "note", "data", "x"]), any_values, max_size=3) | any_values
kinds = st.sampled_from(["ping", "blob", "careless", "any", "pong", b"ping"])
# Envelopes with any header, and envelopes with a good header, so that the fuzzing reaches every check.
near_envelopes = st.fixed_dictionaries(
    {
        "v": st.sampled_from([PROTOCOL_VERSION, 1, 3, 0, True, "2"]),
        "table": st.sampled_from(["kitchen", "garage", 3]),
        "from": st.sampled_from(["alice", "bob", None]),
        "kind": kinds,
        "body": bodies,
    },
    optional={"extra": any_values},
)
good_headers = st.fixed_dictionaries(
    {
        "v": st.just(PROTOCOL_VERSION),
        "table": st.just("kitchen"),
        "from": st.just("alice"),
        "kind": kinds,
        "body": bodies,
    }
)


@settings(max_examples=500)
@given(st.binary(max_size=300))
def test_random_bytes_only_ever_raise_wire_error(data: bytes) -> None:
    with contextlib.suppress(WireError):
        make_codec().decode(data, claimed_sender="alice")


@settings(max_examples=200)
@given(any_values | near_envelopes | good_headers)
def test_random_msgpack_values_only_ever_raise_wire_error(value: Any) -> None:
    with contextlib.suppress(WireError):
        make_codec().decode(packed(value), claimed_sender="alice")


@settings(max_examples=100)
@given(st.dictionaries(st.text(max_size=8), plain_values, max_size=5))
def test_any_plain_body_round_trips(body: dict[str, Any]) -> None:
    codec = make_codec()
    assert codec.decode(codec.encode("alice", "any", body), claimed_sender="alice").body == body
