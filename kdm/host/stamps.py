"""A host's stamps on the other seats' presses, and its word to the others on its own (``kdm.vouching``).

When this process proposes a press at a table whose voters vouch, it tells every voucher straight away
that it did (``PRESSED``: the entry's id, its event's digest, and the signed entry itself). As a voter,
it notes on the agreed clock when each press first reached it, and when it applied each event (a
press's trigger); once its record holds a press this voter has not stamped, it proposes its ``Vouch``.
An event it applied within ``GRACE_MS`` after a press reached it counts as applied before: the press's
author, a follower as it is, may have read that event a moment sooner from the same commit (a busy
laptop reads its messages late), and a press made in answer to it must not pass for one made before.
What it noted while catching up is proposed once caught up, for what the record still holds: a restarted
process stamps no press of a game long over.

The word binds: each voter proposes the press it was told of at once (it holds the author's signed
entry), and stamps it early only if the entry the log holds under its id is the one announced. A word
that was a digest alone bound the presser to nothing: a modified kdm could announce a slap every few
tens of milliseconds, propose none, and once another seat opened a window propose the last it
announced before, counted as made then, ahead of the opener, and never slap falsely. Proposed at once,
an announcement is made whatever its author does next: to cancel it, another entry under its id must
reach the leader first, sent before the word, so the choice is made blind (but at the leader's own
seat: the voters' copies go to it, and it may hold them until their watch runs out: docs/network.md).
A word is dropped with its reason if its press is not one the record would hold as that seat's
(``TableRecord.press_of``), is further from the agreed clock than a relay is given on
(``RELAY_T_SYNC_BOUND_MS``: the leader appends its own copy unscreened), or is larger than an entry
may be. The price: every press is in the log once per voter (the copies ignored when applied), and the
voters know what was pressed a commit before the log tells them.
"""

from __future__ import annotations

import logging
import math
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import msgpack

from kdm import entries
from kdm.entries import NOT_SHOWN, Act, Entry, Vouch
from kdm.events import TimedEvent
from kdm.host.io import Propose, Send
from kdm.host.proposals import RELAY_T_SYNC_BOUND_MS
from kdm.net.raft import MAX_ENTRY_BYTES
from kdm.vouching import DIGEST_BYTES, GRACE_MS, PRESSED, press_digest

if TYPE_CHECKING:
    from kdm.host.table import Agent, TableHost

log = logging.getLogger("kdm.peer")
#: How many presses heard of, and events applied, this host remembers the times of.
REMEMBERED = 512


class Stamps:
    """One host's stamps (see the module's docstring)."""

    def __init__(self, host: TableHost) -> None:
        self.host = host
        #: The entry each press was announced as (an early stamp counts for it alone), when it first
        #: reached this process (agreed ms), and the events this process had applied then
        #: (``Vouch.applied``), by id.
        self.heard: OrderedDict[tuple[str, int], tuple[Act, float, int]] = OrderedDict()
        #: When this process applied each event, by sequence number (agreed ms).
        self.applied_at: OrderedDict[int, float] = OrderedDict()
        #: The presses this process stamped already.
        self.stamped: set[tuple[str, int]] = set()

    def pressed(self, agent: Agent, key: tuple[str, int], event: dict[str, Any], data: bytes) -> None:
        """``agent`` proposed the press ``key`` (its encoded ``event``, in the signed entry ``data``):
        every voucher hears of it now."""
        host = self.host
        record = host.record
        if not record.vouching or agent.seat is None or agent.seat >= len(record.seats):
            return
        body = {"t": PRESSED, "id": list(key), "d": press_digest(event), "e": data}
        word: bytes = msgpack.packb(body, use_bin_type=True)
        for voter in record.silence_voters(agent.seat):
            if voter != host.node.node_id:
                host.out.append(Send(voter, word))

    def heard_of(self, sender: str, body: dict[str, Any]) -> None:
        """``sender`` says it proposed a press: noted (the first word on an id only) for its stamp, and
        proposed by this voter too, at once."""
        ident, digest, data = body.get("id"), body.get("d"), body.get("e")
        if not (
            isinstance(ident, list) and len(ident) == 2 and isinstance(ident[0], str)
            and isinstance(ident[1], int) and isinstance(digest, bytes) and len(digest) == DIGEST_BYTES
            and isinstance(data, bytes)
        ):  # fmt: skip
            raise ValueError("a press's word is {t, id: [node, counter], d: digest, e: its signed entry}")
        if ident[0].partition("#")[0] != sender:
            raise ValueError(f"it speaks of {ident[0]}'s press")
        key = (ident[0], ident[1])
        if key in self.heard:
            return
        announced = self._check_entry(key, digest, data)
        record = self.host.record
        self._remember(self.heard, key, (announced, self.host.clock.agreed_ms(), self._applied()))
        if not (key in record.applied_ids or key in record.refused_ids or key in record.held.presses):
            self.host.out.append(Propose(data))
        self.stamp()

    def _check_entry(self, key: tuple[str, int], digest: bytes, data: bytes) -> Act:
        """The press ``key`` its word names, from ``data``: an ``Act`` of that id, signed by its author,
        that the record would hold as a press of its author's seat, of that digest, timed within
        ``RELAY_T_SYNC_BOUND_MS`` of the agreed clock (else ``ValueError``: a word this voter could not
        make good counts for nothing, so no early stamp, and is not proposed)."""
        host = self.host
        record = host.record
        if len(data) > MAX_ENTRY_BYTES:
            raise ValueError(f"its entry is over {MAX_ENTRY_BYTES} bytes")
        try:
            raw = msgpack.unpackb(data, raw=False, strict_map_key=True)
        except Exception as error:  # msgpack raises several types for bytes that are not msgpack
            raise ValueError(f"its entry is not msgpack: {error}") from error
        entry = entries.from_wire(raw) if isinstance(raw, dict) else None
        if not isinstance(entry, Act) or (entry.id.node, entry.id.counter) != key:
            raise ValueError("its entry is not the press it names")
        if record.signed and not entries.signed_by_author(entry, raw.get("sig"), record.table):
            raise ValueError(f"its entry is not signed by {entry.id.node}'s key")
        press = record.press_of(entry)
        if press is None or press[1] != digest:
            raise ValueError("its entry is not a press of its seat, of its digest")
        event = record.rules.codec.decode(entry.event)
        off = event.t_sync - host.clock.agreed_ms() if isinstance(event, TimedEvent) else math.inf
        if not host.clock_agreed() or not abs(off) <= RELAY_T_SYNC_BOUND_MS:
            raise ValueError(
                f"its press is timed {off:+.0f} ms from the agreed clock, or that clock is not known"
            )
        return entry

    def _applied(self) -> int:
        engine = self.host.record.engine
        return engine.state.seq if engine is not None else 0

    def applied(self, seq: int) -> None:
        """This process applied the event numbered ``seq`` (a trigger a press may name) now."""
        self._remember(self.applied_at, seq, self.host.clock.agreed_ms())

    def stamp(self) -> None:
        """Propose a ``Vouch`` for each press the record holds that this voter must stamp and has not:
        when it first heard of it (now, if the log told it first), and when it applied its trigger."""
        host = self.host
        record = host.record
        if not record.held.presses or host.behind():
            return
        me, now, seq = host.node.node_id, host.clock.agreed_ms(), self._applied()
        for key, (seat, digest) in list(record.held.presses.items()):
            if key in self.stamped or me not in record.silence_voters(seat):
                continue
            self.stamped.add(key)
            heard = self.heard.get(key)
            if heard is not None and heard[0] != self._held(key):
                heard = None  # the log holds another entry than the one announced: no early stamp
            seen, applied = (heard[1], heard[2]) if heard is not None else (now, seq)
            # What this process applied within the slack after the press reached it counts as applied
            # before: the press's author may have read it a moment sooner, from the same commit.
            soon = [applied_seq for applied_seq, at in self.applied_at.items() if at <= seen + GRACE_MS]
            applied = max(applied, max(soon, default=-1) + 1)
            shown = self._trigger_applied(key)
            host.propose(
                Vouch, press=key[0], counter=key[1], digest=digest, seen_us=round(seen * 1000),
                applied=applied, shown_us=NOT_SHOWN if shown is None else round(shown * 1000),
            )  # fmt: skip

    def _held(self, key: tuple[str, int]) -> Entry | None:
        """The entry the record holds under id ``key``, if it does."""
        queue = self.host.record.held.queue
        return next((entry for _position, entry in queue if (entry.id.node, entry.id.counter) == key), None)

    def _trigger_applied(self, key: tuple[str, int]) -> float | None:
        """When this process applied the trigger the held press ``key`` names, if it did."""
        entry = self._held(key)
        if not isinstance(entry, Act):
            return None
        trigger = entry.event.get("trigger")
        return self.applied_at.get(trigger) if isinstance(trigger, int) else None

    @staticmethod
    def _remember(kept: OrderedDict[Any, Any], key: Any, value: Any) -> None:
        kept[key] = value
        while len(kept) > REMEMBERED:
            kept.popitem(last=False)
