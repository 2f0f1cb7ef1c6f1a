"""Private notes between seats, and the messages members send straight to each other.

A note (``kdm.deck.PrivateNote``: a team's secret sign) goes from one seat's process to the process of
the seat it is for, never through the log and never to anyone else, encrypted to that seat's key (its
join entry's ``box_key``), so that nobody who listens on the LAN can read it. A direct message is a note,
a fair deck's keys, secrets or turn (``kdm.host.fair``), the takeovers' word
(``kdm.host.takeovers``), or word of a press (``kdm.host.stamps``); anything else is dropped, with its reason.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import msgpack
from nacl.exceptions import CryptoError
from nacl.public import Box, PublicKey

from kdm.deck import PrivateNote
from kdm.fair.messages import KEYS, OPEN, TURN
from kdm.host.io import Send, Tell
from kdm.host.takeovers import ALIVE, ASK_WORD, PROBE, WORD
from kdm.notices import NoteArrived
from kdm.vouching import PRESSED

if TYPE_CHECKING:
    from kdm.host.table import Agent, TableHost

log = logging.getLogger("kdm.peer")
#: Direct messages that arrive before this process has applied the entries they depend on, kept to retry.
MAX_EARLY_NOTES = 16
#: What ``Notes.unsealed`` says of a message it cannot read yet.
EARLY = object()


class Notes:
    """One host's private notes, and the door for every direct message."""

    def __init__(self, host: TableHost) -> None:
        self.host = host
        self.early: list[tuple[str, bytes]] = []

    def send(self, note: PrivateNote, agent: Agent) -> None:
        """Send a note from ``agent``'s seat straight to the process of seat ``note.to``."""
        host = self.host
        if agent.seat != note.sender or not 0 <= note.to < len(host.record.seats):
            log.warning("a note from seat %s to seat %s is not this player's to send", note.sender, note.to)
            return
        driver = host.driver
        refusal = driver.note_refused(note) if driver is not None else None
        if refusal:
            log.warning("did not send a private note to seat %d: %s", note.to, refusal)
            return
        self.keep(note)
        self._send_sealed(note, agent, note.to)

    def _send_sealed(self, note: PrivateNote, agent: Agent, to_seat: int) -> None:
        """``note``, between ``agent``'s seat and ``to_seat``, sealed from one to the other."""
        host = self.host
        seats = host.record.seats
        process = seats[to_seat].process
        if process == host.node.node_id:
            return  # kept here already: this process plays both seats
        if not seats[to_seat].box_key:
            log.warning("seat %d has no key for private notes: the note stays here", to_seat)
            return
        sealed = Box(agent.box, PublicKey(seats[to_seat].box_key)).encrypt(
            msgpack.packb(dict(note.data), use_bin_type=True)
        )
        body = {"sender": note.sender, "to": note.to, "via": agent.seat, "box": bytes(sealed)}
        host.out.append(Send(process, msgpack.packb(body, use_bin_type=True)))

    def pass_on(self, seat: int) -> None:
        """``seat``'s player is back (a new process, or one that lost what it knew): the notes between it
        and a seat played here go to them again, so that a team's sign survives a dropped laptop.

        Not to a bot standing in: it runs in the leader's process, maybe an opponent's, which must not
        learn what partners agreed. (A stand-in in a partner's process knows their notes already.)"""
        host = self.host
        if host.record.seats[seat].away:
            return
        for agent in host.agents:
            if agent.seat is None or agent.seat == seat:
                continue
            for note in host.deck.notes.get(agent.seat, ()):
                if {note.sender, note.to} == {agent.seat, seat}:
                    self._send_sealed(note, agent, seat)

    def received(self, sender: str, data: bytes) -> None:
        """A direct message from another member: a private note between a seat played here and the seat
        of the process that sends it (its writer, or a partner handing it on to a seat that changed
        hands), sealed with both seats' keys; a fair deck's keys, secrets or turn; or the takeovers'
        word (``ASK_WORD``, ``PROBE``, ``ALIVE``, ``WORD``). Anything else is dropped, with its reason."""
        host = self.host
        try:
            body = msgpack.unpackb(data, raw=False, strict_map_key=True)
            kind = body.get("t") if isinstance(body, dict) else None
            if kind == ALIVE:
                return  # the node noted it heard the sender: that is all it says
            if kind == PROBE:  # a voter asked whether this process is silent: it is not
                host.out.append(Send(sender, msgpack.packb({"t": ALIVE})))
                return
            if kind == ASK_WORD:
                host.takeovers.answer_word(sender, body)
                return
            if kind == WORD:
                host.takeovers.heard_word(sender, body)
                return
            if kind in (KEYS, OPEN):
                host.fair.received_keys(sender, body, data)
                return
            if kind == TURN:
                host.fair.received_turn(sender, body)
                return
            if kind == PRESSED:
                host.stamps.heard_of(sender, body)
                return
            from_seat, to_seat, sealed = body["sender"], body["to"], body["box"]
            via = body.get("via", from_seat)
            seats = host.record.seats
            if not all(isinstance(v, int) and v >= 0 for v in (from_seat, to_seat, via)):
                raise ValueError("no such seat")
            if via not in (from_seat, to_seat) or from_seat == to_seat:
                raise ValueError(f"seat {via} is not a party to a note from {from_seat} to {to_seat}")
            reader = to_seat if via == from_seat else from_seat
            if max(from_seat, to_seat) >= len(seats):
                self._try_again_later(sender, data)
                return
            note_data = self.unsealed(sender, data, via, reader, sealed)
            if note_data is EARLY:
                return
            if not isinstance(note_data, dict):
                raise ValueError("the note is not a map")
        except (ValueError, KeyError, TypeError, CryptoError, msgpack.UnpackException) as error:
            log.warning("dropped a direct message from %s: %s", sender, error)
            return
        self.keep(PrivateNote(from_seat, to_seat, note_data))

    def unsealed(self, sender: str, data: bytes, writer: int, reader: int, sealed: Any) -> Any:
        """What a direct message sealed by seat ``writer``'s process for seat ``reader`` says, unpacked;
        ``EARLY`` when this process cannot tell yet (kept to try again); ``ValueError`` or
        ``CryptoError`` when ``sender`` does not play ``writer`` or it was not sealed for ``reader``."""
        host = self.host
        seats = host.record.seats
        agent = host.agent_at(reader)
        if writer >= len(seats) or agent is None:
            self._try_again_later(sender, data)
            return EARLY
        if seats[writer].process != sender:
            raise ValueError(f"it does not play seat {writer}")
        opened = Box(agent.box, PublicKey(seats[writer].box_key)).decrypt(sealed)
        return msgpack.unpackb(opened, raw=False, strict_map_key=True)

    def _try_again_later(self, sender: str, data: bytes) -> None:
        """The sender may have applied more of the log than we have: try again after the next committed
        entry (a few at most, so a flood cannot grow without bound)."""
        if len(self.early) < MAX_EARLY_NOTES:
            self.early.append((sender, data))

    def retry_early(self) -> None:
        """The messages that came too early, tried again (after a committed entry)."""
        early, self.early = self.early, []
        for sender, data in early:
            self.received(sender, data)

    def keep(self, note: PrivateNote) -> None:
        host = self.host
        driver = host.driver
        concerned = driver.noted(note) if driver is not None else None
        if driver is None:
            host.deck.note(note)
        host.out.append(Tell(NoteArrived(seat=note.to)))
        if concerned is not None:
            host.wake_bots(concerned)
