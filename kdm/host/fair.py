"""What a host does for its table's deck from the seats it plays: parts for the log, keys and secrets
sealed for other seats, turns handed on, and the cheats its deck found, told once.

An open deck owes nothing (its ``work`` is empty); a fair deck (``kdm.fair.table.FairDeck``) says what it
owes as typed values (``kdm.fair.messages``), and this module carries them: to the log as a seat's
``DeckPart``, or straight to the process of the seat they are for, sealed to that seat's key.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any

import msgpack
from nacl.exceptions import CryptoError
from nacl.public import Box, PublicKey

from kdm.entries import DeckPart
from kdm.fair.messages import (
    KEYS,
    OPEN,
    Reseal,
    ToLog,
    ToNext,
    ToSeat,
    ToTable,
    keys_payload,
    read_payload,
    read_sealed,
    read_turn,
    sealed_message,
    secrets_payload,
    turn_message,
)
from kdm.host.io import Send, Tell
from kdm.host.notes import EARLY
from kdm.notices import Cheat, NoteArrived

if TYPE_CHECKING:
    from kdm.host.table import Agent, TableHost

log = logging.getLogger("kdm.peer")


class FairSeats:
    """The deck's work for the seats one host plays."""

    def __init__(self, host: TableHost) -> None:
        self.host = host
        #: How many of the deck's findings (cheats named) were told already.
        self.findings_told = 0

    def take_part(self, part: DeckPart, seat: int) -> str | None:
        """A committed part of the fair deck, taken by the deck (the same way on every peer); keys it
        gives in the log sealed to a seat played here are read."""
        deck = self.host.deck
        answers: list[tuple[int, int, bytes]] = []
        if part.step == "sealed":
            with contextlib.suppress(ValueError):  # the deck says why it refuses them
                answers = deck.sealed_for(seat, part.tokens, part.keys)
        problem = deck.committed(part, seat)
        if problem is None:
            for token, asker, sealed in answers:
                self._open_sealed_key(seat, asker, token, sealed)
        return problem

    def _open_sealed_key(self, owner: int, asker: int, token: int, sealed: bytes) -> None:
        """A key seat ``owner`` gave in the log, sealed to seat ``asker``: read if ``asker`` is played
        here (``FairDeck.received`` checks it, and names ``owner`` if it is false)."""
        host = self.host
        agent = host.agent_at(asker)
        if agent is None:
            return
        try:
            key = Box(agent.box, PublicKey(host.record.seats[owner].box_key)).decrypt(sealed)
        except CryptoError:
            key = b""  # not sealed for us: as false as a wrong key
        host.deck.received(ToSeat(owner, asker, {token: {owner: key}}))

    def work(self) -> None:
        """What the deck owes from the seats played here: parts for the log, keys for other seats."""
        host = self.host
        deck, engine, record = host.deck, host.record.engine, host.record
        if engine is None or not record.started or host.behind():
            return
        host.deck_seats()
        for item in deck.work(engine.state, [] if engine.over else engine.awaiting(), host.clock.local_ms()):
            seat = item.seat if isinstance(item, ToLog) else item.sender
            agent = host.agent_at(seat)
            if agent is None:
                continue
            if isinstance(item, ToLog):
                host.proposals.propose(DeckPart, agent, seat=seat, **item.fields)
            elif isinstance(item, ToNext):  # public (the log gets it too): no need to seal it
                host.out.append(Send(record.seats[item.to].process, turn_message(item)))
            elif isinstance(item, Reseal):  # keys asked for in the log: given there, sealed to the asker
                box = Box(agent.box, PublicKey(record.seats[item.to].box_key))
                host.proposals.propose(DeckPart, agent, seat=seat, **deck.sealed_part(item, box.encrypt))
            elif isinstance(item, ToSeat):
                self._send(KEYS, agent, item.to, keys_payload(item.keys))
            else:  # secrets for an audit: once to every other process at the table
                reached = {host.node.node_id}
                for seat_to, taken in enumerate(record.seats):
                    if taken.process not in reached:
                        reached.add(taken.process)
                        self._send(OPEN, agent, seat_to, secrets_payload(item))
        self.tell_findings()
        # (whatever the deck waits on changed with what came in: timed from here, not from a later look)
        host.takeovers.track_withheld(host.clock.local_ms())

    def next_ask_ms(self) -> float:
        """When ``work`` next has something to do at a quiet table (``Deck.next_ask_ms``): a key that
        has not come is asked for in the log. Everything else it does follows something that came in,
        and is done then."""
        return self.host.deck.next_ask_ms()

    def _send(self, kind: str, agent: Agent, to: int, payload: bytes) -> None:
        """A deck's message from ``agent``'s seat to seat ``to`` (keys for cards it may read, or secrets
        for an audit), sealed to that seat, straight to its process."""
        seats = self.host.record.seats
        if not seats[to].box_key or agent.seat is None:
            log.warning("seat %d has no key for private messages: the fair deck cannot reach it", to)
            return
        sealed = Box(agent.box, PublicKey(seats[to].box_key)).encrypt(payload)
        self.host.out.append(Send(seats[to].process, sealed_message(kind, agent.seat, to, bytes(sealed))))

    def received_keys(self, sender: str, body: dict[str, Any], data: bytes) -> None:
        """A deck's message from another seat's process to a seat played here (keys, or secrets for an
        audit: ``_send``); dropped, with the reason, when it is not from the process that plays the
        seat it says, or does not open."""
        host = self.host
        deck = host.deck
        try:
            message = read_sealed(body)
            raw = host.notes.unsealed(sender, data, message.sender, message.to, message.box)
            if raw is EARLY:
                return
            said = read_payload(message, raw)
        except (
            ValueError,
            KeyError,
            TypeError,
            AttributeError,
            CryptoError,
            msgpack.UnpackException,
        ) as error:
            log.warning("dropped a fair deck's message from %s: %s", sender, error)
            return
        if isinstance(said, ToTable):
            problem = deck.opened(said)
            if problem:
                log.warning("dropped seat %d's secrets from %s: %s", said.sender, sender, problem)
            self.tell_findings()
            return
        learnt = deck.received(said)
        self.tell_findings()
        if learnt:
            host.duties.owe()
            self.work()
            host.out.append(Tell(NoteArrived(seat=said.to)))
            host.wake_bots(learnt)

    def received_turn(self, sender: str, body: dict[str, Any]) -> None:
        """A turn in a shuffle handed straight here by the seat before (``ToNext``): our seat takes its
        turn on it at once. Dropped, with the reason, if its sender does not play that seat."""
        host = self.host
        seats = host.record.seats
        try:
            turn = read_turn(body, len(seats))
            if seats[turn.sender].process != sender:
                raise ValueError(f"it does not play seat {turn.sender}")
        except ValueError as error:
            log.warning("dropped a turn from %s: %s", sender, error)
            return
        problem = host.deck.ahead(turn)
        if problem is not None:
            log.info("a turn from %s waits for the log: %s", sender, problem)
            return
        self.work()

    def tell_findings(self) -> None:
        """Say each cheat the deck caught, once."""
        host = self.host
        findings = host.deck.findings
        for finding in findings[self.findings_told :]:
            host.out.append(Tell(Cheat(seat=finding.seat, reason=finding.reason)))
        self.findings_told = len(findings)
