"""The fair deck: the table's deck service when no process may see a face the rules do not show it.

It stands where ``kdm.deck.OpenDeck`` stands (``observe``, ``knowledge``, ``fulfil``, ``false_claim``,
``note``) and runs DESIGN 7 over the table's log and direct messages, sans-I/O: the peer proposes the
log entries ``work`` returns (``ToLog``), sends what it returns for other seats' processes (``ToNext``
turns, ``ToSeat`` keys and ``ToTable`` secrets, the last two sealed; ``Reseal`` keys it seals into the
log), and feeds back what was committed (``committed``, ``show_keys``, ``applied``) and what arrived
(``ahead``, ``received``, ``opened``). Every process holds two parts (``kdm.fair.state``):

- **shared**, the same everywhere because it comes from the log alone: each shuffle's turns and
  commitments, which token lies at which position of which shuffle, the keys shown for cards the table
  saw and so their faces, the keys asked for in the log;
- **private**, this process's alone: the secrets of the seats it plays and, for each, the keys handed to
  it (``kdm.fair.keyring.KeyRing``), so the faces of its own cards; the secrets others sent for the
  audits, and what the audits found.

The engine goes on making tokens as it does with the open deck (a ``shuffled`` effect); here each one
starts a shuffle of the cards it names, every seat's turn in seat order (``lock`` then ``key``; a
reshuffle of cards already dealt first has each seat swap its key on them for a blind, ``strip``), and the
token made ``j``-th is the card at position ``j`` (``kdm.fair.turns``). Then every card's keys go
where the rules show it, and keys that do not come are asked for in the log (``kdm.fair.handing``);
a shuffle none of whose cards is hidden any more is opened and audited (``kdm.fair.audits``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from kdm.deck import MAX_NOTES, Knowledge, OpenDeck, PrivateNote, Reveal, reveal_duty
from kdm.effects import Effect
from kdm.engine import Duty, Engine, Owed
from kdm.entries import DeckPart
from kdm.events import Event
from kdm.fair.audits import Audits
from kdm.fair.handing import ASK_AFTER_MS, Handing
from kdm.fair.messages import (
    Finding,
    Reseal,
    ToLog,
    ToNext,
    ToSeat,
    ToTable,
    pack_keys,
    unpack_keys,
)
from kdm.fair.state import Held, Private, Shared
from kdm.fair.timings import Timings
from kdm.fair.turns import RESHUFFLE_STEPS, Shuffle, Turns, deck_hash, split_ints, split_points
from kdm.kept import Kept
from kdm.record import TableRecord
from kdm.state import TableState

log = logging.getLogger("kdm.fair")

__all__ = [
    "ASK_AFTER_MS",
    "FairDeck",
    "Finding",
    "Reseal",
    "Timings",
    "ToLog",
    "ToNext",
    "ToSeat",
    "ToTable",
    "deck_hash",
    "deck_of_table",
    "pack_keys",
    "unpack_keys",
]


class FairDeck:
    """The fair deck of one process at one table (``table``: its id, which cards' points hash): the
    service over its two parts (``kdm.fair.state``) and its jobs: the shuffles' turns (``kdm.fair.turns``),
    the keys handed (``kdm.fair.handing``) and the audits (``kdm.fair.audits``)."""

    def __init__(self, table: str, players: int, clock: Callable[[], float] | None = None) -> None:
        self.table = table
        self.players = players
        #: What this process measures of the deck (``Timings``), on ``clock`` (ms); nothing without one.
        self.timings = Timings(clock)
        self.shared = Shared(table, players)
        self.private = Private(self.shared, self.timings)
        self.handing = Handing(self.shared, self.private)
        self.turns = Turns(self.shared, self.private, on_dealt=self.handing.dealt)
        self.audits = Audits(self.shared, self.private)
        self.notes: dict[int, list[PrivateNote]] = {}
        self._notes_memo: dict[int, dict[Any, Any]] = {}

    # --- what the engine made ----------------------------------------------------------------------

    def observe(self, effects: Iterable[Effect]) -> None:
        """Start a shuffle for every ``shuffled`` effect; note the cards shown to one seat alone."""
        for effect in effects:
            kind = effect["kind"]
            if kind == "shuffled":
                self.turns.start(effect)
            elif kind == "shown_privately":
                tokens = tuple(effect["tokens"])
                self.shared.private_shows.append((effect["by"], effect["to"], tokens))
                self.shared.shown_to.setdefault(effect["to"], set()).update(tokens)
            elif kind == "game_over":
                self.shared.over = True

    def point(self, token: int) -> bytes | None:
        """The card ``token`` stands for, as its shuffle's final deck holds it (None: not dealt yet)."""
        return self.shared.point(token)

    def dealt(self, token: int) -> bool:
        """Whether ``token``'s shuffle is complete (its keys can be handed or shown)."""
        return self.shared.dealt(token)

    # --- what this process owes -------------------------------------------------------------------

    def work(
        self, state: TableState, duties: Sequence[Duty], now_ms: float | None = None
    ) -> list[ToLog | ToNext | ToSeat | ToTable | Reseal]:
        """What the seats played here owe now: their turns in shuffles, keys for cards in others'
        hands or shown to one of them, keys for cards the table awaits, secrets for audits; and, at
        ``now_ms`` (the process's clock), asks in the log for keys of its own cards that never came,
        and the keys others asked it for."""
        self.timings.watch(self, state)
        out: list[ToLog | ToNext | ToSeat | ToTable | Reseal] = []
        out += self.turns.owed()
        out += self.handing.serve(state)
        out += self.handing.show(state, duties)
        out += self.audits.open(state)
        if now_ms is not None:
            out += self.handing.ask(state, duties, now_ms)
        out += self.handing.answer()
        return out

    def next_ask_ms(self) -> float:
        """When ``work`` next has something to do at a quiet table: ask for a key of a card in a hand
        played here that has not come since the last change (inf: none is missing)."""
        return self.handing.next_ask_ms()

    def sealed_part(self, reseal: Reseal, seal: Callable[[bytes], bytes]) -> dict[str, Any]:
        """The fields of the ``sealed`` part that gives what ``reseal`` asks, each key sealed by ``seal``
        (to the asker): what ``sealed_for`` reads."""
        return self.handing.sealed_part(reseal, seal)

    def sealed_for(self, seat: int, tokens: bytes, sealed: bytes) -> list[tuple[int, int, bytes]]:
        """The keys a ``sealed`` part of ``seat`` carries, as (token, the seat they are for, sealed
        key), once checked to be answers to what the log asked it."""
        return self.handing.sealed_for(seat, tokens, sealed)

    # --- what the log said, and what arrived -----------------------------------------------------

    def ahead(self, message: ToNext) -> str | None:
        """A turn the seat before handed straight to a seat played here: kept until the log has it,
        to take our turn on at once. Why not, for a turn that cannot be one."""
        return self.turns.keep_ahead(message)

    def committed(self, part: DeckPart, seat: int) -> str | None:
        """Seat ``seat``'s part, committed: taken, or why not (the same on every process: the log's
        alone)."""
        step, shuffle, deck, commits, keys, tokens, after = (
            part.step, part.shuffle, part.deck, part.commits, part.keys, part.tokens, part.after
        )  # fmt: skip
        try:
            if step == "show":
                shown = zip(split_ints(tokens), split_points(keys, len(tokens) // 4, "keys"), strict=True)
                return self.handing.shown(seat, dict(shown))
            if step == "missing":
                return self.handing.asked_for(seat, split_ints(tokens))
            if step == "sealed":
                for token, _asker, _key in self.handing.sealed_for(seat, tokens, keys):
                    del self.shared.asked[(token, seat)]
                return None
            if not 0 <= shuffle < len(self.shared.shuffles) or step not in RESHUFFLE_STEPS:
                return f"there is no shuffle {shuffle} to {step}"
            return self.turns.taken(
                self.shared.shuffles[shuffle], seat, step, deck, commits, part.proof, after
            )
        except ValueError as error:
            return str(error)

    def show_keys(self, seat: int, data: bytes) -> str | None:
        """The keys an action of ``seat`` carries for the faces it names (``kdm.entries.Act.keys``),
        checked before the action is: why they do not show what they should, or None."""
        return self.handing.show_keys(seat, data)

    def opened(self, secrets: ToTable) -> str | None:
        """A seat's secrets for an audit (its own, or sent by its process): kept, and the shuffle
        audited once every seat's are in; why not, for secrets that cannot be a seat's."""
        return self.audits.opened(secrets)

    def received(self, message: ToSeat) -> list[int]:
        """Keys handed to seat ``message.to`` (played here): kept if they are the committed ones, the
        sender named if not. Returns the seats that learnt a face."""
        return self.handing.received(message)

    # --- a seat that changed hands ---------------------------------------------------------------

    def waiting_on(self, state: TableState, duties: Sequence[Duty]) -> set[int]:
        """The seats whose part in the log the table waits for: a turn in a shuffle, a key for a card
        awaited face up. (A seat that withholds one past a timeout is taken over: ``kdm.peer``.)"""
        shared, seats = self.shared, set()
        for shuffle in shared.shuffles:
            turn = shuffle.turn(shared.players)
            if turn is not None and not shuffle.broken:
                seats.add(turn[1])
        held = {token for hand in state.hands for token in hand}
        for duty in duties:
            for token in duty.tokens:
                if (
                    duty.seat is None
                    and token not in held
                    and token not in shared.public
                    and shared.dealt(token)
                ):
                    seats.update(set(range(shared.players)) - set(shared.shown_keys.get(token, {})))
        live = held | {token for zone in state.zones.values() for token in zone}
        seats.update(owner for (token, owner) in shared.asked if token in live)
        return seats

    def voided(self, state: TableState) -> None:
        """A seat changed hands (``kdm.record``: its keys left with the process that played it), and the
        round, if one was in play, went back to its deal. Every shuffle still under way is dropped, and
        every card lying on the table (not in a hand: hands are dealt again) whose face can no longer
        be read is dealt again by a fresh shuffle of the same tokens: the faces behind them are the
        cards their shuffle took, less those of its other cards, which the table saw."""
        self.turns.void()
        self.audits.void()
        self.handing.void()
        for index, tokens in sorted(self.audits.lost(state).items()):
            faces = self.audits.faces_behind(self.shared.shuffles[index], set(tokens))
            if faces is None:
                log.info("shuffle %d: its cards cannot be told apart again; they are not dealt again", index)
                continue
            for token in tokens:
                self.handing.forget(token)
            self.turns.start({"tokens": tokens, "pool": faces})

    # --- the deck's interface -----------------------------------------------------------------------

    def faces_here(self) -> dict[int, str]:
        """Every face this process may read: the table's, and its seats' own."""
        faces = dict(self.shared.public)
        for known in self.private.known.values():
            faces.update(known)
        return faces

    def knowledge(self, state: TableState, seat: int) -> Knowledge:
        """What ``seat`` knows: the faces of its cards and of cards shown to it alone, its notes."""
        known, public = self.private.known.get(seat, {}), self.shared.public
        faces = {}
        for token in [*state.hands[seat], *self.shared.shown_to.get(seat, ())]:
            face = known.get(token) or public.get(token)
            if face is not None:
                faces[token] = face
        notes = self.notes.get(seat)
        memo = self._notes_memo.setdefault(seat, {})
        return Knowledge(faces, tuple(notes) if notes else (), memo)

    def note(self, note: PrivateNote) -> None:
        """Keep a private note, as ``OpenDeck.note`` does."""
        for seat in {note.sender, note.to}:
            kept = self.notes.setdefault(seat, [])
            kept.append(note)
            del kept[:-MAX_NOTES]
            self._notes_memo.pop(seat, None)

    def fulfil(self, duty: Duty, state: TableState, reveal: Reveal) -> Event | None:
        """The event that fulfils a reveal duty from what this process may read, or None while a face
        it needs is not known here (its keys are on their way, or it is not this process's to know)."""
        faces = self.faces_here()
        if not all(token in faces for token in duty.tokens):
            return None
        for seat in self.here:
            if not all(token in faces for token in state.hands[seat]):
                return None  # a seat played here does not know its hand yet: it would answer blind
        event: Event | None = reveal(duty=duty, state=state, faces=faces)
        return event

    def keys_for(self, seat: int, claimed: Mapping[int, str] | None) -> bytes:
        """The keys an action of ``seat`` carries so the table sees the faces it names."""
        return self.handing.keys_for(seat, claimed)

    def false_claim(self, engine: Engine, event: Event) -> str | None:
        """Why ``event`` shows faces other than the ones dealt, or says something false of the cards
        (``kdm_false_claim``), from the faces shown to the table (its own keys came with it,
        ``show_keys``); a reveal nobody can check yet (a queen called: its holder alone knows the card),
        or a seat's decision that speaks of its hand, is taken on trust and checked at the audit."""
        rules = engine.rules
        self.audits.reveal, self.audits.false_claim = rules.hooks.reveal, rules.hooks.false_claim
        claimed = rules.hooks.claimed_faces(event=event) or {}
        for token, face in claimed.items():
            shown = self.shared.public.get(token)
            if shown is None:
                return f"it names card {token} {face} without the keys that show it"
            if shown != face:
                return f"it names card {token} {face}, but card {token} is {shown}"
        false = rules.hooks.false_claim(event=event, state=engine.state, faces=self.shared.public)
        if false:
            return false
        seat = getattr(event, "seat", None)
        duty = reveal_duty(engine, event)
        if duty is None:
            # A seat's decision may say something of its hand that no face shown yet proves or disproves
            # (a Kem's accused's two cards say it holds no four): the audit asks the rules again.
            owed = [d for d in engine.awaiting() if d.seat == seat and d.owed_as is Owed.DECISION]
            if seat is not None and owed:
                self.audits.trusting = (seat, owed[0], engine.snapshot(), event)
            return None
        if duty.tokens and all(token in self.shared.public for token in duty.tokens):
            expected = self.fulfil_public(duty, engine.state)
            if expected is not None and expected != event:
                return "it claims faces that are not the ones dealt"
            return None
        if seat is not None:
            # Kept for the audit once the rules take it (``applied``): a reveal they refuse (too late, the
            # queen called already) harmed nobody.
            self.audits.trusting = (seat, duty, engine.snapshot(), event)
        return None

    def applied(self, event: Event, seq: int) -> None:
        """The rules took ``event`` as event ``seq``: a reveal taken on its seat's word is kept for the
        audit."""
        return self.audits.applied(event, seq)

    def fulfil_public(self, duty: Duty, state: TableState) -> Event | None:
        """What the game reveals for ``duty`` from the faces shown to the table alone."""
        if self.audits.reveal is None:
            return None
        event: Event | None = self.audits.reveal(duty=duty, state=state, faces=self.shared.public)
        return event

    # --- what the parts hold, by the names the peer, the host and the tests read ------------------

    here = Held[set[int]]("private")
    kept = Held[dict[int, Kept]]("private")
    findings = Held[list[Finding]]("private")
    known = Held[dict[int, dict[int, str]]]("private")
    over = Held[bool]("shared")
    shuffles = Held[list[Shuffle]]("shared")
    where = Held[dict[int, tuple[int, int]]]("shared")
    all_faces = Held[list[str]]("shared")
    public = Held[dict[int, str]]("shared")
    audited_faces = Held[dict[int, str]]("shared")
    shown_to = Held[dict[int, set[int]]]("shared")
    asked = Held[dict[tuple[int, int], int]]("shared")


def deck_of_table(record: TableRecord, clock: Callable[[], float] | None = None) -> OpenDeck | FairDeck:
    """The deck service the table ``record`` was created with (``Create.deck``): its fair deck (keyed
    by the table's id, timed on ``clock``), or the open one."""
    if record.deck == "fair":
        return FairDeck(record.table or record.host, record.players, clock)
    return OpenDeck()
