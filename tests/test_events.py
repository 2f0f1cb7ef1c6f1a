"""The event codec: the seeded events and the base game's round-trip through msgpack; a malformed one is
refused with a reason."""

from __future__ import annotations

import msgpack
import pytest

from kdm.events import SEEDED_EVENTS, Deal, EventCodec, Shuffle, StartGame
from kdm.plugins.kilo.events import EVENTS, Announce, Close, Draw, Feint, Pass, Resume, ShowHand, Slap

SAMPLES = [
    StartGame(seed=b"\x00" * 32),
    Deal(seed=b"seed"),
    Shuffle(seed=b"again"),
    Announce(seat=1, card="QH"),
    Pass(seat=2, token=17),
    Slap(seat=0, t_sync=1234.5),
    Slap(seat=3, t_sync=1300.0, trigger=41, rt=212.25),
    Slap(seat=2, t_sync=1400.0, trigger=41, round=3),
    Feint(seat=1, t_sync=99.0),
    Close(),
    ShowHand(seat=0, tokens=(1, 2, 3, 4), cards=("KH", "KS", "KD", "KC")),
    Draw(seat=2, token=9, card="7H"),
    Resume(),
]


def codec() -> EventCodec:
    """The codec of a base-game table: the seeded events, and the base game's."""
    return EventCodec([*SEEDED_EVENTS, *EVENTS])


def test_every_event_of_a_base_game_table_has_a_sample() -> None:
    assert {type(e) for e in SAMPLES} == {*SEEDED_EVENTS, *EVENTS}


def test_the_core_knows_no_game_event() -> None:
    with pytest.raises(ValueError, match="unknown event kind 'pass'"):
        EventCodec().decode({"kind": "pass", "seat": 1, "token": 2})


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: e.kind)
def test_round_trip_through_msgpack(event: object) -> None:
    table = codec()
    wire = msgpack.packb(table.encode(event), use_bin_type=True)  # type: ignore[arg-type]
    assert table.decode(msgpack.unpackb(wire, raw=False)) == event


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ({"kind": "explode"}, "unknown event kind 'explode'"),
        ({"seat": 1}, "unknown event kind None"),
        ({"kind": "pass", "seat": 1}, "missing field 'token'"),
        ({"kind": "pass", "seat": 1, "token": 2, "extra": 0}, "unknown fields ['extra']"),
        ({"kind": "pass", "seat": "1", "token": 2}, "field 'seat' has the wrong type"),
        ({"kind": "pass", "seat": True, "token": 2}, "field 'seat' has the wrong type"),
        ({"kind": "slap", "seat": 1, "t_sync": "soon"}, "field 't_sync' has the wrong type"),
        ({"kind": "show_hand", "seat": 1, "tokens": 5, "cards": []}, "field 'tokens' must be a list"),
        ({"kind": "show_hand", "seat": 1, "tokens": [1], "cards": [7]}, "field 'cards' has the wrong type"),
        ({"kind": "deal", "seed": "text"}, "field 'seed' has the wrong type"),
    ],
)
def test_malformed_events_are_refused_with_a_reason(data: dict[str, object], reason: str) -> None:
    with pytest.raises(ValueError) as error:
        codec().decode(data)
    assert reason in str(error.value)


def test_two_classes_cannot_claim_one_kind() -> None:
    from dataclasses import dataclass
    from typing import ClassVar

    from kdm.events import Event

    @dataclass(frozen=True)
    class Impostor(Event):
        kind: ClassVar[str] = "pass"

    with pytest.raises(ValueError, match="two event classes claim kind 'pass'"):
        codec().register(Impostor)
