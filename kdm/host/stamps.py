"""A host's stamps on the other seats' presses, and its word to the others on its own (``kdm.vouching``).

When this process proposes a press at a table whose voters vouch, it tells every voucher straight away
that it did (``PRESSED``: the entry's id and its event's digest, nothing of what it says). As a voter,
it notes on the agreed clock when each press first reached it, and when it applied each event (a
press's trigger); once its record holds a press this voter has not stamped, it proposes its ``Vouch``.
An event it applied within ``GRACE_MS`` after a press reached it counts as applied before: the press's
author, a follower as it is, may have read that event a moment sooner from the same commit (a busy
laptop reads its messages late), and a press made in answer to it must not pass for one made before.
What it noted while catching up is proposed once caught up, for what the record still holds: a restarted
process stamps no press of a game long over.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import msgpack

from kdm.entries import NOT_SHOWN, Act, Vouch
from kdm.host.io import Send
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
        #: When each press first reached this process (agreed ms), with its digest and the events this
        #: process had applied then (``Vouch.applied``), by id.
        self.heard: OrderedDict[tuple[str, int], tuple[bytes, float, int]] = OrderedDict()
        #: When this process applied each event, by sequence number (agreed ms).
        self.applied_at: OrderedDict[int, float] = OrderedDict()
        #: The presses this process stamped already.
        self.stamped: set[tuple[str, int]] = set()

    def pressed(self, agent: Agent, key: tuple[str, int], event: dict[str, Any]) -> None:
        """``agent`` proposed the press ``key`` (its encoded ``event``): every voucher hears of it now."""
        host = self.host
        record = host.record
        if not record.vouching or agent.seat is None or agent.seat >= len(record.seats):
            return
        body = {"t": PRESSED, "id": list(key), "d": press_digest(event)}
        data: bytes = msgpack.packb(body, use_bin_type=True)
        for voter in record.silence_voters(agent.seat):
            if voter != host.node.node_id:
                host.out.append(Send(voter, data))

    def heard_of(self, sender: str, body: dict[str, Any]) -> None:
        """``sender`` says it proposed a press: noted (the first word on an id only) for its stamp."""
        ident, digest = body.get("id"), body.get("d")
        if not (
            isinstance(ident, list) and len(ident) == 2 and isinstance(ident[0], str)
            and isinstance(ident[1], int) and isinstance(digest, bytes) and len(digest) == DIGEST_BYTES
        ):  # fmt: skip
            raise ValueError("a press's word is {t, id: [node, counter], d: digest}")
        if ident[0].partition("#")[0] != sender:
            raise ValueError(f"it speaks of {ident[0]}'s press")
        key = (ident[0], ident[1])
        if key not in self.heard:
            self._remember(self.heard, key, (digest, self.host.clock.agreed_ms(), self._applied()))
        self.stamp()

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
            seen, applied = (heard[1], heard[2]) if heard is not None and heard[0] == digest else (now, seq)
            # What this process applied within the slack after the press reached it counts as applied
            # before: the press's author may have read it a moment sooner, from the same commit.
            soon = [applied_seq for applied_seq, at in self.applied_at.items() if at <= seen + GRACE_MS]
            applied = max(applied, max(soon, default=-1) + 1)
            shown = self._trigger_applied(key)
            host.propose(
                Vouch, press=key[0], counter=key[1], digest=digest, seen_us=round(seen * 1000),
                applied=applied, shown_us=NOT_SHOWN if shown is None else round(shown * 1000),
            )  # fmt: skip

    def _trigger_applied(self, key: tuple[str, int]) -> float | None:
        """When this process applied the trigger the held press ``key`` names, if it did."""
        record = self.host.record
        entry = next((e for _p, e in record.held.queue if (e.id.node, e.id.counter) == key), None)
        if not isinstance(entry, Act):
            return None
        trigger = entry.event.get("trigger")
        return self.applied_at.get(trigger) if isinstance(trigger, int) else None

    @staticmethod
    def _remember(kept: OrderedDict[Any, Any], key: Any, value: Any) -> None:
        kept[key] = value
        while len(kept) > REMEMBERED:
            kept.popitem(last=False)
