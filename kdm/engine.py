"""The generic rules engine: applies events to a table through the rule plugins.

The engine is pure and deterministic: no clock, no I/O, no randomness but the seeds events carry. It
owns the event loop (sequence numbers, atomic application, what the table awaits, seat views, digests);
what any event *means* belongs to the plugins behind ``Rules``.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

from kdm.effects import Effect
from kdm.errors import KdmError
from kdm.events import SEEDED_BY_KIND, Event, TimedEvent
from kdm.options import OptionWords, TableOption
from kdm.state import TableState

if TYPE_CHECKING:
    from kdm.deck import Knowledge
    from kdm.manager import Rules

__all__ = [
    "MIN_REACTION_OPTION",
    "Duty",
    "Effect",
    "Engine",
    "Handlers",
    "IllegalAction",
    "Owed",
    "SeatView",
    "effective_time",
]


class IllegalAction(KdmError):
    """An event that the rules do not allow now. ``reason`` says why, for the player who sent it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


#: The table option every game that orders reactions declares (``kdm_table_options``) and passes to
#: ``effective_time``: a reaction time is what the reacting process says it was, so without a floor a
#: cheater's forged 1 ms wins every race. No person reacts to what they see in under about 100 ms.
MIN_REACTION_OPTION = TableOption(
    "min_reaction_ms", int, 100, "a reaction faster than this is refused: no person is that quick",
    minimum=0, maximum=1000,
    french=OptionWords("réaction minimale (ms)",
                       "une réaction plus rapide est refusée : personne n'est si vif"),
)  # fmt: skip


def effective_time(reactions: Mapping[int, float], event: TimedEvent, min_reaction_ms: float = 0.0) -> float:
    """DESIGN 5.6: ``eff(trigger) + rt`` when the trigger is in ``reactions`` (seq → effective time of
    the events a press may react to), else ``t_sync``. Shared by every game that orders presses; a
    reaction time under ``min_reaction_ms`` (the table's ``MIN_REACTION_OPTION``) is refused.

    What the other voters vouch for (``event.vouched``, set by the record) bounds the claim: a reaction
    is no quicker than ``least_rt``, a time no earlier than ``not_before``, and a press that reached
    them only after they had applied others (``after``) comes after those: a process's word on its own
    press is only as good as what the others saw of it."""
    if not math.isfinite(event.t_sync) or (event.rt is not None and not math.isfinite(event.rt)):
        raise IllegalAction("times must be finite numbers")  # NaN would unsort the window's order
    vouched = event.vouched
    claimed = event.t_sync if vouched is None else max(event.t_sync, vouched.not_before)
    if event.rt is not None:
        if event.rt < 0:
            raise IllegalAction("a reaction time cannot be negative")
        if event.rt < min_reaction_ms:
            raise IllegalAction(
                f"a reaction in {event.rt:.0f} ms is quicker than a person: this table's minimum is "
                f"{min_reaction_ms:.0f} ms (min_reaction_ms)"
            )
        if event.trigger is not None:
            base = reactions.get(event.trigger)
            if base is not None:
                least = None if vouched is None else vouched.least_rt
                claimed = base + (event.rt if least is None else max(event.rt, least))
    if vouched is None:
        return claimed
    seen_first = [eff for seq, eff in reactions.items() if seq < vouched.after]
    return max(claimed, math.nextafter(max(seen_first), math.inf)) if seen_first else claimed


class Duty(NamedTuple):
    """Something the table waits for from outside the players.

    ``kind`` is the event kind that fulfils it (``deal``, ``show_hand``, ``draw``, ``announce``,
    ``close``...). ``seat`` is who must act, when known; ``tokens`` and ``cards`` narrow what is asked;
    ``after_ms`` is a timer, counted from when the duty first appeared (``ref`` tells duties apart).
    What it asks of the hosts is ``owed_as`` (a ``Owed``), which these fields say. A named tuple (as
    immutable as a frozen dataclass): the games make their duties anew whenever they are asked, once
    per event of a simulation, and a named tuple is made in a fraction of the time.
    """

    kind: str
    seat: int | None = None
    tokens: tuple[int, ...] = ()
    cards: tuple[str, ...] = ()
    after_ms: float | None = None
    ref: int = 0

    @property
    def owed_as(self) -> Owed:
        """What this duty asks of the table's hosts: a seed, a table timer, a seat's decision with a
        deadline, or a reveal (``Owed``)."""
        if self.kind in SEEDED_BY_KIND:
            return Owed.SEED
        if self.after_ms is not None:
            return Owed.TIMER if self.seat is None else Owed.DECISION
        return Owed.REVEAL


class Owed(enum.Enum):
    """What a ``Duty`` asks of the table's hosts."""

    #: A seeded event (a start, a deal, a reshuffle): the seed the table agrees on makes it.
    SEED = "seed"
    #: The table's timer: the leader proposes the event (nothing but its kind) when ``after_ms`` is up.
    TIMER = "timer"
    #: A seat's decision with a deadline (a choice the rules give a seat time for): its player, or its
    #: bot, may act until then; then the seat's own process answers as ``kdm_reveal`` says.
    DECISION = "decision"
    #: Faces only some host knows (a seat's process, or the deck for the table's): it answers at once.
    REVEAL = "reveal"


EventType = TypeVar("EventType", bound=Event)
Result = TypeVar("Result")


class Handlers(Generic[Result]):
    """A game's handlers of its events, by event class, for its ``kdm_apply``: ``@handlers.on(Pass)``
    registers a function of ``(engine, event)`` typed for that event (no ``isinstance`` at its top);
    ``apply`` calls the one for an event's class, or returns None when the game has none (another
    plugin's event)."""

    def __init__(self) -> None:
        self._by_type: dict[type[Event], Callable[[Engine, Any], Result]] = {}

    def on(
        self, event_type: type[EventType]
    ) -> Callable[[Callable[[Engine, EventType], Result]], Callable[[Engine, EventType], Result]]:
        """Register the decorated function as the handler of ``event_type``."""

        def register(handler: Callable[[Engine, EventType], Result]) -> Callable[[Engine, EventType], Result]:
            if event_type in self._by_type:
                raise ValueError(f"two handlers for {event_type.kind!r}")
            self._by_type[event_type] = handler
            return handler

        return register

    def apply(self, engine: Engine, event: Event) -> Result | None:
        """What the handler of ``event``'s class returns, or None if there is none."""
        handler = self._by_type.get(type(event))
        return None if handler is None else handler(engine, event)


@dataclass(slots=True)
class SeatView:
    """What one seat may know: public state plus the faces of its own cards.

    ``hand`` pairs each of the seat's tokens with its face (None if the seat does not know it).
    ``rules`` holds each plugin's part, by plugin name. ``faces`` and ``options`` are read-only windows
    on the table (public faces only grow within a round), so a view is cheap to build for every event a
    bot is concerned by; it is not frozen for the same reason.
    """

    seat: int
    players: int
    phase: str
    round: int
    seq: int
    turn: int | None
    hand: tuple[tuple[int, str | None], ...]
    hand_sizes: tuple[int, ...]
    zone_sizes: dict[str, int]
    faces: Mapping[int, str]
    scores: tuple[int, ...]
    options: Mapping[str, Any]
    rules: dict[str, Any] = field(default_factory=dict)

    @property
    def cards(self) -> list[str]:
        """The known faces in this seat's hand."""
        return [card for _token, card in self.hand if card is not None]


class Engine:
    """One table's rules engine."""

    def __init__(self, rules: Rules, players: int, options: dict[str, Any] | None = None) -> None:
        self.rules = rules
        self.state = TableState(players=players, options=rules.resolve(players, options or {}))
        hooks = rules.hooks
        self._apply, self._awaiting, self._view_parts = hooks.apply, hooks.awaiting, hooks.view
        #: The games' parts of a view, called one by one (None: a plugin wraps ``kdm_view``).
        self._view_functions = rules.implementations("kdm_view")
        #: seat → (the knowledge, the tokens and the hand ``_hand`` made from them last).
        self._hands: dict[int, tuple[dict[int, str], list[int], tuple[tuple[int, str | None], ...]]] = {}
        rules.setup_table(self.state)

    @property
    def over(self) -> bool:
        return self.state.phase == "over"

    def apply(self, event: Event) -> Sequence[Effect]:
        """Apply one committed event; returns its effects or raises ``IllegalAction`` unchanged."""
        if self.over:
            raise IllegalAction("the game is over")
        try:
            effects: Sequence[Effect] | None = self._apply(engine=self, event=event)
        finally:
            self.state.memo.clear()
        if effects is None:
            raise IllegalAction(f"no rule of this table handles {event.kind!r} events")
        self.state.seq += 1
        return effects

    def snapshot(self) -> TableState:
        """A copy of the state as it is (without the views' scratch), to go back to (``restore``)."""
        return copy.deepcopy(dataclasses.replace(self.state, memo={}))

    def restore(self, snapshot: TableState) -> None:
        """Go back to ``snapshot`` (a round voided): the table is as it was then, but event numbers and
        tokens go on from where they are, so that no event and no card is numbered twice."""
        state = copy.deepcopy(snapshot)
        state.seq, state.next_token = self.state.seq, self.state.next_token
        self.state = state

    def awaiting(self) -> list[Duty]:
        """What the table waits for from outside the players, now."""
        duties: list[Duty] | None = self._awaiting(state=self.state)
        return duties or []

    def player_may_return(self, seat: int) -> bool:
        """Whether ``seat``'s player may take it back from a stand-in now (``kdm_player_may_return``)."""
        return self.rules.player_may_return(self.state, seat)

    def view(self, seat: int, knowledge: Knowledge) -> SeatView:
        """What ``seat`` sees, given what it privately knows."""
        state = self.state
        memo = state.memo
        shared = memo.get("")  # what every seat sees alike: built once per event
        if shared is None:
            shared = memo[""] = (
                tuple(map(len, state.hands)),
                {name: len(zone) for name, zone in state.zones.items()},
                MappingProxyType(state.faces),
                tuple(state.scores),
                MappingProxyType(state.options),
            )
        hand_sizes, zone_sizes, faces, scores, options = shared
        functions = self._view_functions
        if functions is None:
            parts = dict(self._view_parts(state=state, seat=seat, knowledge=knowledge))
        else:  # each plugin's part, called here rather than through a caller: this runs at every look
            parts = {}
            for function in functions:
                part = function(state=state, seat=seat, knowledge=knowledge)
                if part is not None:
                    parts[part[0]] = part[1]
        # Positional, in field order: this runs for every bot at every event it looks at.
        return SeatView(
            seat, state.players, state.phase, state.round, state.seq, state.turn,
            self._hand(state, seat, knowledge), hand_sizes, zone_sizes, faces, scores, options, parts,
        )  # fmt: skip

    def _hand(self, state: TableState, seat: int, knowledge: Knowledge) -> tuple[tuple[int, str | None], ...]:
        """``seat``'s tokens with the faces it knows, kept while its tokens and its knowledge stay the
        same (a deck hands out the same ``Knowledge`` until the seat learns something): most looks
        come between two changes of a hand. A hand with a face unknown is made again each time, since
        the face may become public; a face, once known, never changes (a token is never reused)."""
        tokens = state.hands[seat]
        known = knowledge.faces
        kept = self._hands.get(seat)
        if kept is not None and kept[0] is known and kept[1] == tokens:
            return kept[2]
        public = state.faces
        faces = [known.get(t) or public.get(t) for t in tokens]
        hand = tuple(zip(tokens, faces, strict=True))
        if None not in faces:
            self._hands[seat] = (known, list(tokens), hand)
        return hand

    def digest(self) -> str:
        """The state digest (equal on every peer that applied the same events)."""
        return self.state.digest()
