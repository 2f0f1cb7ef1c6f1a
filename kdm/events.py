"""What an event is, the events every table knows, and their plain-data form for the log.

Events are frozen dataclasses with a ``kind``; their fields are msgpack-friendly (ints, floats, str,
bytes, tuples of those). The core knows only the seeded events (a game's start, a deal, a reshuffle,
from seeds the table agreed), and defines two that games share and register themselves: ``ShowHand``
here and a reaction window's ``Close`` (``kdm.window``); a game brings its own (the base game's are
in ``kdm.plugins.kilo.events``, a spoon grab or a Kem's call in their plugins) through
``kdm_event_types``, and they go through the same codec.

Times are milliseconds. ``t_sync`` is a press time on the table's agreed clock; ``rt`` is the time from the
moment the ``trigger`` event (by its sequence number) was shown on the player's screen to the press, on the
player's own clock (DESIGN 5.6). The engine never reads a clock: times arrive inside events.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Union

#: A field's metadata key: the field is set by the table's record on apply, never carried on the wire
#: (the codec leaves it out, and refuses a map that names it).
OFF_LOG = "off_log"


@dataclass(frozen=True)
class Event:
    """Base of all events. ``kind`` names the event on the wire."""

    kind: ClassVar[str] = ""


@dataclass(frozen=True)
class Vouched:
    """What the table's other voters vouch for of one press (DESIGN 5.6), from the stamps they committed
    before it was applied (``kdm.vouching``): its effective time is no earlier than ``not_before`` on the
    agreed clock, and, as a reaction to its trigger, no quicker than ``least_rt`` (None: they cannot
    tell, as when none of them saw the trigger applied); and it reached each of them only once they had
    applied every event before ``after``, so it comes after every press among those."""

    not_before: float
    least_rt: float | None = None
    after: int = 0


@dataclass(frozen=True)
class TimedEvent(Event):
    """An event whose order against others of its window is decided by effective time. ``vouched`` is
    never a player's to say: the record sets it on apply, at a table whose voters stamp presses."""

    seat: int
    t_sync: float = 0.0
    trigger: int | None = None
    rt: float | None = None
    vouched: Vouched | None = field(default=None, compare=False, repr=False, metadata={OFF_LOG: True})


@dataclass(frozen=True)
class StartGame(Event):
    """Forms the pile, once per game, from an agreed seed."""

    kind: ClassVar[str] = "start_game"
    seed: bytes


@dataclass(frozen=True)
class Deal(Event):
    """Starts a round: shuffles the dealt cards with an agreed seed and deals them."""

    kind: ClassVar[str] = "deal"
    seed: bytes


@dataclass(frozen=True)
class Shuffle(Event):
    """Reshuffles the zone the table is waiting on (the pile after a flush with ``flush_to=shuffle``)."""

    kind: ClassVar[str] = "shuffle"
    seed: bytes


#: The events every table knows: the seeded ones the record applies once every seat has revealed its
#: nonce (DESIGN 5.5). A game brings its own through ``kdm_event_types``.
@dataclass(frozen=True)
class ShowHand(Event):
    """``seat`` turns its hand face up: ``cards[i]`` is the face of ``tokens[i]`` (a game asks it when its
    rules want a hand seen; the deck checks the faces against what it dealt, ``kdm_claimed_faces``)."""

    kind: ClassVar[str] = "show_hand"
    seat: int
    tokens: tuple[int, ...]
    cards: tuple[str, ...]


@dataclass(frozen=True)
class Withheld(Event):
    """The table charges ``seat``, whose laptop held a fair deck's round up past the table's timeout (its
    turn in a shuffle, or a key, withheld): the record applies it when it takes the seat over for that,
    once the round is voided (DESIGN 7; RULES 1.4 for the base game). A game charges what its rules say
    by handling it (``kdm_apply``); a game that does not charges nothing. No player proposes it."""

    kind: ClassVar[str] = "withheld"
    seat: int


SEEDED_EVENTS: tuple[type[StartGame | Deal | Shuffle], ...] = (StartGame, Deal, Shuffle)
#: The same, by the kind of duty each one fulfils.
SEEDED_BY_KIND: dict[str, type[StartGame | Deal | Shuffle]] = {kind.kind: kind for kind in SEEDED_EVENTS}


class EventCodec:
    """Turns events into plain dicts and back, checking kinds and field types."""

    def __init__(self, event_types: Iterable[type[Event]] = SEEDED_EVENTS) -> None:
        self._types: dict[str, type[Event]] = {}
        self._fields: dict[str, dict[str, Any]] = {}
        for event_type in event_types:
            self.register(event_type)

    def register(self, event_type: type[Event]) -> None:
        """Adds an event class; a second class with the same kind is an error."""
        kind = event_type.kind
        if not kind:
            raise ValueError(f"{event_type.__name__} has no kind")
        if self._types.get(kind, event_type) is not event_type:
            raise ValueError(f"two event classes claim kind {kind!r}")
        self._types[kind] = event_type
        hints = typing.get_type_hints(event_type)
        self._fields[kind] = {
            f.name: hints[f.name] for f in dataclasses.fields(event_type) if not f.metadata.get(OFF_LOG)
        }

    @property
    def kinds(self) -> list[str]:
        return sorted(self._types)

    def type_of(self, kind: str) -> type[Event]:
        """The event type registered for ``kind`` (KeyError for a kind this codec does not know)."""
        return self._types[kind]

    def encode(self, event: Event) -> dict[str, Any]:
        """The event as a plain dict with its ``kind``."""
        data: dict[str, Any] = {"kind": event.kind}
        for name in self._fields[event.kind]:
            value = getattr(event, name)
            data[name] = list(value) if isinstance(value, tuple) else value
        return data

    def decode(self, data: Mapping[str, Any]) -> Event:
        """The event a plain dict describes; ``ValueError`` saying what is wrong otherwise."""
        kind = data.get("kind")
        if not isinstance(kind, str) or kind not in self._types:
            raise ValueError(f"unknown event kind {kind!r}")
        fields = self._fields[kind]
        unknown = set(data) - set(fields) - {"kind"}
        if unknown:
            raise ValueError(f"{kind}: unknown fields {sorted(unknown)}")
        values: dict[str, Any] = {}
        for name, hint in fields.items():
            if name not in data:
                field = next(f for f in dataclasses.fields(self._types[kind]) if f.name == name)
                if field.default is dataclasses.MISSING:
                    raise ValueError(f"{kind}: missing field {name!r}")
                continue
            values[name] = _checked(kind, name, data[name], hint)
        return self._types[kind](**values)


def _checked(kind: str, name: str, value: Any, hint: Any) -> Any:
    """``value`` converted to ``hint`` (lists to tuples), or ``ValueError``."""
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        for option in typing.get_args(hint):
            try:
                return _checked(kind, name, value, option)
            except ValueError:
                continue
        raise ValueError(f"{kind}: field {name!r} has the wrong type")
    if origin is tuple:
        (item_hint, _ellipsis) = typing.get_args(hint)
        if not isinstance(value, list | tuple):
            raise ValueError(f"{kind}: field {name!r} must be a list")
        return tuple(_checked(kind, name, item, item_hint) for item in value)
    if hint is type(None):
        if value is None:
            return None
    elif hint is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    elif isinstance(value, hint) and not (hint is int and isinstance(value, bool)):
        return value
    raise ValueError(f"{kind}: field {name!r} has the wrong type")
