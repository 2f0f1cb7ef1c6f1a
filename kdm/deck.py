"""The open deck: who knows which face, from the agreed seeds.

The engine emits a ``shuffled`` effect whenever it makes tokens from a pool of faces (a deal, the pile)
or reshuffles tokens; the deck turns the effect's seed into faces. ``OpenDeck`` knows every face, which
is what ``kdm sim`` and bot-only tables need; each seat's ``Knowledge`` holds only the faces that seat
may know. Fair dealing (DESIGN 7) replaces ``OpenDeck`` without touching the engine.

Beyond its own hand a seat may know two kinds of private things, both kept here and never in the log:
faces shown to it alone (a ``shown_privately`` effect names the tokens and the seat; the log never holds
those faces), and private notes: what partners agree between themselves before play, such as a team's
secret sign in Kem's, delivered from one seat's process to another's directly (``PrivateNote``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from kdm.cards import shuffled
from kdm.effects import Effect, is_shown_privately, is_shuffled
from kdm.engine import Duty, Engine, Owed
from kdm.events import Event
from kdm.fair.messages import Finding, Reseal, ToLog, ToNext, ToSeat, ToTable
from kdm.state import TableState

if TYPE_CHECKING:
    from kdm.entries import DeckPart

#: The ``kdm_reveal`` hook (``kdm.manager.RevealHook``): the event a plugin builds for its own reveal
#: duty, or None.
Reveal = Callable[..., Event | None]


#: Private notes kept per seat, the latest ones.
MAX_NOTES = 32


@dataclass(slots=True)
class Knowledge:
    """What one seat privately knows: faces by token, and the private notes it sent or received."""

    faces: dict[int, str] = field(default_factory=dict)
    notes: tuple[PrivateNote, ...] = ()
    #: Scratch for what a game derives from ``notes`` alone (a team's signs), kept by the deck for this
    #: seat until a note to or from it arrives: derived once, not at every view.
    notes_memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class PrivateNote:
    """A message from one seat to another that never enters the log (a team's secret sign).

    A bot or a person sends one instead of an event (a ``Decision`` may carry it); the driver delivers
    it straight to the receiving seat's process, and both seats' ``Knowledge`` then hold it.
    ``data`` is plain msgpack data whose meaning belongs to the game's plugin.
    """

    sender: int
    to: int
    data: Mapping[str, Any]


def reveal_duty(engine: Engine, event: Event) -> Duty | None:
    """The reveal duty ``event`` fulfils, if any: one the game answers from the faces alone. Not a seat's
    decision with a deadline (a refuser's exchange, a 7 kept or not): what the seat chooses is its own,
    and only the faces it names are checked (``kdm_claimed_faces``)."""
    seat = getattr(event, "seat", None)
    return next(
        (
            duty
            for duty in engine.awaiting()
            if duty.kind == event.kind and duty.seat in (None, seat) and duty.owed_as is Owed.REVEAL
        ),
        None,
    )


@dataclass(frozen=True)
class DeckTerms:
    """What a table's choice of deck (its create entry names it) means for its record, the same on every
    peer."""

    #: Whether each seat holds secrets of the deck that leave with its process: a seat that changes
    #: hands voids the round in play, which is dealt again from its start.
    secrets_leave_with_seat: bool
    #: Whether the log carries the deck's parts, and actions the keys that show their faces.
    takes_parts: bool


#: Each deck a table may choose, by name: ``open`` (faces from the seeds in the log) and ``fair``
#: (``kdm.fair``: each seat holds keys, and the log holds the shuffles' parts).
DECK_TERMS: dict[str, DeckTerms] = {
    "open": DeckTerms(secrets_leave_with_seat=False, takes_parts=False),
    "fair": DeckTerms(secrets_leave_with_seat=True, takes_parts=True),
}


class Deck(Protocol):
    """A table's deck service, as its hosts use it: ``OpenDeck`` here, or ``kdm.fair.table.FairDeck``.

    The first methods are every deck's: faces learnt from effects, notes, what a seat knows, duties
    answered from faces, claims checked. The others are what a deck with secrets asks of its host
    (``kdm.fair.messages`` has their records): the seats played here, the parts it owes the log and
    the messages it owes other seats (``work``), what it takes from the log and from other processes,
    and the cheats it caught. A deck with no secrets answers them as having none (``OpenDeck``), so a
    host never asks which deck it holds."""

    #: seat → the private notes it sent or received, oldest first.
    notes: dict[int, list[PrivateNote]]
    #: The seats played by this process (a deck with secrets holds theirs).
    here: set[int]
    #: The cheats the deck caught, oldest first.
    findings: list[Finding]

    def observe(self, effects: Iterable[Effect]) -> None: ...

    def note(self, note: PrivateNote) -> None: ...

    def knowledge(self, state: TableState, seat: int) -> Knowledge: ...

    def fulfil(self, duty: Duty, state: TableState, reveal: Reveal) -> Event | None: ...

    def false_claim(self, engine: Engine, event: Event) -> str | None: ...

    def applied(self, event: Event, seq: int) -> None: ...

    def voided(self, state: TableState) -> None: ...

    def keys_for(self, seat: int, claimed: Mapping[int, str] | None) -> bytes: ...

    def waiting_on(self, state: TableState, duties: Sequence[Duty]) -> set[int]: ...

    def work(
        self, state: TableState, duties: Sequence[Duty], now_ms: float | None = None
    ) -> list[ToLog | ToNext | ToSeat | ToTable | Reseal]: ...

    def next_ask_ms(self) -> float:
        """When ``work`` next has something to do at a quiet table, on the clock it is given (inf:
        only once something changes): a key that has not come is asked for in the log."""
        ...

    def sealed_part(self, reseal: Reseal, seal: Callable[[bytes], bytes]) -> dict[str, Any]: ...

    def sealed_for(self, seat: int, tokens: bytes, sealed: bytes) -> list[tuple[int, int, bytes]]: ...

    def committed(self, part: DeckPart, seat: int) -> str | None: ...

    def show_keys(self, seat: int, data: bytes) -> str | None: ...

    def ahead(self, message: ToNext) -> str | None: ...

    def opened(self, secrets: ToTable) -> str | None: ...

    def received(self, message: ToSeat) -> list[int]: ...


class OpenDeck:
    """Every face at the table, derived from the seeds in the log: a deck with no secrets, which owes
    its host nothing and takes no part or key (``Deck``'s second half)."""

    #: Why an open deck takes no part of a fair one.
    NOT_FAIR = "this table's deck is not fair"

    def __init__(self) -> None:
        self.here: set[int] = set()
        self.findings: list[Finding] = []
        #: Every face by token; a scenario changes them through ``rig``, which the kept knowledge hears of.
        self.faces: dict[int, str] = {}
        #: seat → tokens shown to that seat alone (their faces are in ``faces``).
        self.shown: dict[int, list[int]] = {}
        #: seat → the private notes it sent or received, oldest first.
        self.notes: dict[int, list[PrivateNote]] = {}
        self._notes_memo: dict[int, dict[Any, Any]] = {}
        #: seat → (the hand its ``Knowledge`` was made for, that knowledge): handed out again while the
        #: hand is the same, the seat is shown nothing and sent no note (bots look after most events).
        self._known: dict[int, tuple[list[int], Knowledge]] = {}

    def observe(self, effects: Iterable[Effect]) -> None:
        """Learn the faces of tokens made or reshuffled by these effects."""
        for effect in effects:
            kind = effect["kind"]
            if kind != "shuffled" and kind != "shown_privately":
                continue  # most effects make no face: no need to ask which of the two this is
            self._known.clear()  # new faces, or faces shown to a seat: every seat's knowledge is made anew
            if is_shown_privately(effect):
                self.shown.setdefault(effect["to"], []).extend(effect["tokens"])
                continue
            if not is_shuffled(effect):
                continue
            tokens = effect["tokens"]
            if "pool" in effect:
                pool = sorted(effect["pool"])
            else:
                pool = sorted(self.faces.pop(t) for t in effect["from_tokens"])
            self.faces.update(zip(tokens, shuffled(pool, effect["seed"]), strict=True))

    def rig(self, faces: Mapping[int, str]) -> None:
        """Give tokens other faces (the test kits' scenarios): every seat's knowledge is made anew."""
        self.faces.update(faces)
        self._known.clear()

    def note(self, note: PrivateNote) -> None:
        """Keep a private note delivered to (or sent by) a seat of this process: the latest
        ``MAX_NOTES`` per seat (a game reads the latest; a partner who floods notes cannot fill memory)."""
        for seat in {note.sender, note.to}:
            kept = self.notes.setdefault(seat, [])
            kept.append(note)
            del kept[:-MAX_NOTES]
            self._notes_memo.pop(seat, None)
            self._known.pop(seat, None)

    def knowledge(self, state: TableState, seat: int) -> Knowledge:
        """What ``seat`` knows: the faces of its own hand and of cards shown to it alone, its notes.
        The same ``Knowledge`` until one of those changes: read it, never change it."""
        hand = state.hands[seat]
        kept = self._known.get(seat)
        if kept is not None and kept[0] == hand:
            return kept[1]
        known = self.faces
        faces = {t: known[t] for t in hand}
        shown = self.shown.get(seat)
        if shown:
            for token in shown:
                face = known.get(token)
                if face is not None:
                    faces[token] = face
        notes = self.notes.get(seat)
        memo = self._notes_memo.get(seat)
        if memo is None:
            memo = self._notes_memo[seat] = {}
        knowledge = Knowledge(faces, tuple(notes) if notes else (), memo)
        self._known[seat] = (list(hand), knowledge)
        return knowledge

    def fulfil(self, duty: Duty, state: TableState, reveal: Reveal) -> Event | None:
        """The event that fulfils a reveal duty, as the table's game builds it from the faces known here
        (``reveal``: the ``kdm_reveal`` hook), or None."""
        event: Event | None = reveal(duty=duty, state=state, faces=self.faces)
        return event

    def false_claim(self, engine: Engine, event: Event) -> str | None:
        """Why ``event`` shows faces this deck did not deal, or None (issue 12, checked claims). Every
        peer holds the open deck alike, so it checks the faces a player's action names
        (``kdm_claimed_faces``) and what it says of cards it does not name (``kdm_false_claim``), and
        rebuilds an event that fulfils a reveal duty (a shown hand, a draw, a called card) as the game's
        ``kdm_reveal`` would from the true faces, and compares."""
        rules = engine.rules
        claimed = rules.hooks.claimed_faces(event=event) or {}
        known = self.faces
        for token, face in claimed.items():
            if known.get(token, face) != face:
                return f"it names card {token} {face}, but card {token} is {known[token]}"
        false = rules.hooks.false_claim(event=event, state=engine.state, faces=known)
        if false:
            return false
        duty = reveal_duty(engine, event)
        if duty is None:
            return None  # not a reveal: the rules judge it
        expected = self.fulfil(duty, engine.state, rules.hooks.reveal)
        if expected is None or expected == event:
            return None
        return "it claims faces that are not the ones dealt"

    # --- what a deck with secrets asks of its host: nothing, here ------------------------------

    def applied(self, event: Event, seq: int) -> None:
        """Nothing to follow: the faces come from the seeds (``observe``)."""

    def voided(self, state: TableState) -> None:
        """Nothing to deal again: every face is known from the seeds."""

    def keys_for(self, seat: int, claimed: Mapping[int, str] | None) -> bytes:
        return b""

    def waiting_on(self, state: TableState, duties: Sequence[Duty]) -> set[int]:
        return set()

    def work(
        self, state: TableState, duties: Sequence[Duty], now_ms: float | None = None
    ) -> list[ToLog | ToNext | ToSeat | ToTable | Reseal]:
        return []

    def next_ask_ms(self) -> float:
        return math.inf

    def sealed_part(self, reseal: Reseal, seal: Callable[[bytes], bytes]) -> dict[str, Any]:
        raise ValueError(self.NOT_FAIR)

    def sealed_for(self, seat: int, tokens: bytes, sealed: bytes) -> list[tuple[int, int, bytes]]:
        return []

    def committed(self, part: DeckPart, seat: int) -> str | None:
        return self.NOT_FAIR

    def show_keys(self, seat: int, data: bytes) -> str | None:
        return self.NOT_FAIR

    def ahead(self, message: ToNext) -> str | None:
        return self.NOT_FAIR

    def opened(self, secrets: ToTable) -> str | None:
        return self.NOT_FAIR

    def received(self, message: ToSeat) -> list[int]:
        return []
