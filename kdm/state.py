"""The replicated table state: public data only, with a stable digest.

Everything here is known to every peer. A card is a *token* (an int); where a token lies is public, its
face is public only once an event revealed it (``faces``). What a seat privately knows lives outside, in
its ``Knowledge`` (``kdm.deck``). Rule plugins keep their own public data in ``rules[plugin_name]``.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, field
from typing import Any

import msgpack

#: Field metadata of what a digest leaves out (scratch that is not part of the table).
TRANSIENT = {"transient": True}


@dataclass
class TableState:
    """The whole public state of one table.

    ``hands[seat]`` lists the tokens a seat holds. ``zones`` holds every other pile of cards by name
    (``"pile"``, ``"kilos/2"``...); the top of a zone is its last item. ``scores`` is per seat, in the
    game's own unit (kilos here, points for team games).
    """

    players: int
    options: dict[str, Any]
    phase: str = "setup"
    round: int = 0
    seq: int = 0
    next_token: int = 0
    hands: list[list[int]] = field(default_factory=list)
    zones: dict[str, list[int]] = field(default_factory=dict)
    faces: dict[int, str] = field(default_factory=dict)
    scores: list[int] = field(default_factory=list)
    turn: int | None = None
    rules: dict[str, Any] = field(default_factory=dict)
    #: The seats a person plays (not a bot), as the record seated them when the game started: a game
    #: paces itself for people when there is one (its pauses are table timers, agreed in the log).
    #: Empty at a bots-only table, which plays at bots' speed.
    people: tuple[int, ...] = ()
    #: Scratch for what the views of every seat share (the core's under "", a plugin's public part under
    #: its name), built once per event rather than once per seat: emptied whenever an event is applied,
    #: never digested.
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False, metadata=TRANSIENT)

    def __post_init__(self) -> None:
        if not self.hands:
            self.hands = [[] for _ in range(self.players)]
        if not self.scores:
            self.scores = [0] * self.players

    def new_tokens(self, count: int) -> list[int]:
        """``count`` fresh token numbers, never used before at this table."""
        first = self.next_token
        self.next_token += count
        return list(range(first, first + count))

    def digest(self) -> str:
        """A hash of the canonical encoding: equal on every peer that applied the same log."""
        return hashlib.sha256(canonical_bytes(self)).hexdigest()


def canonical(value: Any) -> Any:
    """``value`` as plain msgpack data with a single encoding: dicts as key-sorted pairs."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [type(value).__name__] + [
            [f.name, canonical(getattr(value, f.name))]
            for f in dataclasses.fields(value)
            if not f.metadata.get("transient")
        ]
    if isinstance(value, dict):
        return [[canonical(k), canonical(v)] for k, v in sorted(value.items(), key=_sort_key)]
    if isinstance(value, list | tuple):
        return [canonical(item) for item in value]
    if isinstance(value, set | frozenset):
        return sorted((canonical(item) for item in value), key=repr)
    return value


def _sort_key(item: tuple[Any, Any]) -> tuple[str, str]:
    return (type(item[0]).__name__, repr(item[0]))


def canonical_bytes(value: Any) -> bytes:
    """The canonical msgpack bytes of ``value``."""
    packed: bytes = msgpack.packb(canonical(value), use_bin_type=True)
    return packed
