"""A host's entries on their way to the log, and the leader's first look at the others'.

Every entry this process proposes is proposed again every ``RETRY_S`` until it is seen committed (a
leader can fail), but a press that has grown further from the agreed clock than any leader takes: that
refusal is final, and proposing it again only made it older. While this process leads, its node asks
it about each entry another member forwards (``screen``): what only the leader can judge, its clock and
its share of chat; the record judges the rest on apply, the same on every peer.

A voter's node also gives the leader what another seated node relays to it, when the leader has not
appended it in time, and watches for it in the log (``kdm.net.node``, a leader that stalls):
``screen_relay`` lets through only what an honest leader takes, so that no relay makes an honest leader
look stalled.
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any

from kdm import entries
from kdm.entries import Act, Chat, Entry, EntryId, Join, Takeover
from kdm.events import TimedEvent
from kdm.host.io import Propose

if TYPE_CHECKING:
    from kdm.host.table import Agent, TableHost

log = logging.getLogger("kdm.peer")
RETRY_S = 0.25
#: How far from the leader's clock a press's agreed time may be when it reaches the leader: a trip over
#: a poor Wi-Fi and the error of the clock estimate, with room to spare. A press further off is forged.
T_SYNC_BOUND_MS = 1000.0
#: The leader lets in at most this many chat lines from one node in ``CHAT_WINDOW_MS``: words are for
#: people, and a flood would only grow everyone's log.
CHAT_BURST, CHAT_WINDOW_MS = 5, 10_000.0
#: How long a new leader waits before holding presses to its clock: the others are still measuring it.
CLOCK_SETTLE_MS = 3000.0
#: How far from this process's agreed clock a relayed press may be and still be given to the leader and
#: watched: an honest relay reaches a voter ``RELAY_AFTER_MS`` after the press, and a trip later.
RELAY_T_SYNC_BOUND_MS = T_SYNC_BOUND_MS - 300.0
#: How far from the leader's clock a press another node forwards (a relay: not its author) may be: the
#: relaying voter gave it on within ``RELAY_T_SYNC_BOUND_MS``, and from there it has the trip a press from
#: its author has. Were it held to ``T_SYNC_BOUND_MS``, a cheater relaying presses timed near the relay
#: bound to every voter would have an honest leader that hiccups for 300 ms refuse them, and the voters
#: that watched them would depose it (found by a review, shown on the memory network).
RELAYED_T_SYNC_BOUND_MS = RELAY_T_SYNC_BOUND_MS + T_SYNC_BOUND_MS


class Proposals:
    """The entries of one host not yet seen committed, and the leader's screening."""

    def __init__(self, host: TableHost) -> None:
        self.host = host
        self.pending: dict[tuple[str, int], tuple[bytes, float, float]] = {}  # id -> data, first, last try
        #: The seat and agreed time (``t_sync``) each pending press claims, by id (``retry``).
        self.press_times: dict[tuple[str, int], tuple[int | None, float]] = {}
        #: When the leader let in each node's recent chat lines (at most ``CHAT_BURST`` kept per node).
        self.chatted: dict[str, list[float]] = {}
        #: How long each of this process's game actions took from its proposal to its commit (ms).
        self.latencies_ms: list[float] = []

    def propose(self, entry_type: type[Entry], agent: Agent, **fields: Any) -> tuple[str, int]:
        """Propose an entry of ``entry_type`` with these fields, from ``agent``; returns its id."""
        host = self.host
        agent.counter += 1
        entry = entry_type(EntryId(agent.identity, agent.counter), **fields)
        data = entries.encode(entry, host.sign, host.table)
        now = host.clock.local_ms()
        key = (agent.identity, agent.counter)
        self.pending[key] = (data, now, now)
        host.out.append(Propose(data))
        return key

    def press(self, key: tuple[str, int], seat: int | None, t_sync: float) -> None:
        """Entry ``key`` is a press timed ``t_sync`` for ``seat``: given up once too old (``retry``)."""
        self.press_times[key] = (seat, t_sync)

    def seen(self, key: tuple[str, int], is_act: bool) -> None:
        """Entry ``key`` was committed: no longer proposed, and its latency noted if it is an action of
        this process (joins wait for membership changes, which is not play)."""
        sent = self.pending.pop(key, None)
        if sent is None:
            return
        self.press_times.pop(key, None)
        if is_act:
            self.latencies_ms.append(self.host.clock.local_ms() - sent[1])

    def forget(self, identity: str) -> None:
        """Propose nothing more of ``identity``'s (a takeover asked for while this process led)."""
        for key in [key for key in self.pending if key[0] == identity]:
            del self.pending[key]

    def retry(self, now: float) -> None:
        """Propose again every entry not seen committed for ``RETRY_S``, but a press now further from
        the agreed clock than the leader takes (``T_SYNC_BOUND_MS``): that refusal is final (a restarted
        player's process once retried one for 400 s). Its bot thinks again instead."""
        host = self.host
        agreed = host.clock.agreed_ms() - (host.clock.local_ms() - now)  # ``now`` on the agreed clock
        for key, (data, first, last) in list(self.pending.items()):
            if now - last < RETRY_S * 1000:
                continue
            if key in self.press_times:
                seat, t_sync = self.press_times[key]
                off = t_sync - agreed
                if abs(off) > T_SYNC_BOUND_MS:
                    del self.pending[key], self.press_times[key]
                    log.warning(
                        "a press of seat %s, timed %+.0f ms from the agreed clock, is too old for the leader"
                        " to take: not proposed again", seat, off,
                    )  # fmt: skip
                    if seat is not None:
                        host.wake_bots([seat])
                    continue
            self.pending[key] = (data, first, now)
            host.out.append(Propose(data))

    def screen(self, sender: str, data: bytes) -> str | None:
        """Why the leader's node drops an entry forwarded by ``sender``, or None to let it in: a first
        filter. The record checks every entry's signature and rules on apply, the leader's own entries
        too, and with them what can be decided from the log alone (a seatless node's entries, one
        node's share of chat lines, a takeover's word); what stays here only the leader can judge. A
        node without a seat may propose its own join only; a seated one what its seats do, but no
        takeover (the leader's alone) and no press whose agreed time is further from the leader's
        clock than ``T_SYNC_BOUND_MS`` (``RELAYED_T_SYNC_BOUND_MS`` when another node relays it)."""
        try:
            entry = entries.decode(data)
        except ValueError as error:
            return f"not an entry: {error}"
        if self.settled_entry(entry):
            # A proposer far behind the log retries what it has not seen committed yet: a copy.
            return "already in the log (a proposal retried)"
        if not self._holds_a_seat(sender):
            if isinstance(entry, Join) and entries.author_node(entry) == sender:
                return None
            return "a node without a seat proposes nothing but its own join"
        if isinstance(entry, Takeover):
            return "only the leader takes a seat over"
        if isinstance(entry, Act):
            relayed = entries.author_node(entry) != sender
            return self._screen_time(entry, RELAYED_T_SYNC_BOUND_MS if relayed else T_SYNC_BOUND_MS)
        if isinstance(entry, Chat):
            return self._screen_chat(sender)
        return None

    def screen_relay(self, sender: str, data: bytes) -> str | None:
        """Why this process's node neither gives the leader an entry ``sender`` relayed (or its own)
        nor holds it against the leader if it does not come back, or None: what an honest leader could
        refuse is refused here first. Chat lines are not watched (the leader alone counts a node's
        share); a press only while its time is within ``RELAY_T_SYNC_BOUND_MS`` of this process's
        agreed clock, which it must know. Presses must be watched: a table may wait for one (a combo
        to slap), and a leader that drops it stalls the game. The leader gives a relayed press the
        trip a press from its author has, from there (``RELAYED_T_SYNC_BOUND_MS``): a leader that
        hiccups refuses no more of them than of its players' own."""
        try:
            entry = entries.decode(data)
        except ValueError as error:
            return f"not an entry: {error}"
        if isinstance(entry, Chat):
            return "a chat line (the leader alone counts a node's share of them)"
        if self.settled_entry(entry):
            return "already in the log"
        record = self.host.record
        if not self._holds_a_seat(sender):
            return "a node without a seat relays nothing"
        if isinstance(entry, (Takeover, Join)):
            return "only the leader takes a seat over, and a joiner proposes its join itself"
        if not isinstance(entry, Act) or record.engine is None:
            return None
        try:
            event = record.engine.rules.codec.decode(entry.event)
        except Exception:  # the record refuses it on apply, the same on every peer: it is appended
            return None
        if not isinstance(event, TimedEvent) or not math.isfinite(event.t_sync):
            return None
        if not self.host.clock_agreed():
            return "a press, and this process does not know the agreed clock yet"
        off = event.t_sync - self.host.clock.agreed_ms()
        if abs(off) > RELAY_T_SYNC_BOUND_MS:
            bound = RELAY_T_SYNC_BOUND_MS
            return f"a press timed {off:+.0f} ms from the agreed clock (relayed within {bound:.0f} ms)"
        return None

    def _holds_a_seat(self, node_id: str) -> bool:
        seats = self.host.record.seats
        return any(seat.node.partition("#")[0] == node_id or seat.home == node_id for seat in seats)

    def settled(self, data: bytes) -> bool:
        """Whether the record has taken or refused the entry ``data`` (or one with its id)."""
        try:
            return self.settled_entry(entries.decode(data))
        except ValueError:
            return True  # never an entry: nothing to wait for

    def settled_entry(self, entry: Entry) -> bool:
        record = self.host.record
        judged = (entry.id.node, entry.id.counter)
        return judged in record.applied_ids or judged in record.refused_ids or judged in record.held.ids()

    def _screen_chat(self, sender: str) -> str | None:
        now = self.host.clock.local_ms()
        recent = [t for t in self.chatted.get(sender, []) if now - t < CHAT_WINDOW_MS]
        if len(recent) >= CHAT_BURST:
            return f"more than {CHAT_BURST} chat lines in {CHAT_WINDOW_MS / 1000:.0f} s"
        self.chatted[sender] = [*recent, now]
        return None

    def _screen_time(self, act: Act, bound_ms: float) -> str | None:
        """A press stamps its time on the leader's clock as its process estimates it (``t_sync``); it
        reaches the leader a network trip later (``bound_ms``, a relay's longer: ``screen``). A claim
        further off than that is forged: refused,
        unless this process has led too briefly for the others to know its clock. Just after this
        process was stopped, presses made meanwhile reach it as late as it was stopped long: for a
        while, it takes presses that much older (and no older: a stop is no open door)."""
        host = self.host
        engine, watch = host.record.engine, host.takeovers
        if engine is None or watch.led_since is None:
            return None
        now = host.clock.local_ms()
        if now - watch.led_since < CLOCK_SETTLE_MS:
            return None
        try:
            event = engine.rules.codec.decode(act.event)
        except Exception:  # the record refuses it on apply, with its reason, the same on every peer
            return None
        if not isinstance(event, TimedEvent) or not math.isfinite(event.t_sync):
            return None
        off = event.t_sync - host.clock.agreed_ms()
        woke, stopped_ms = watch.stalled
        bound = bound_ms + (stopped_ms if off < 0 and now - woke < CLOCK_SETTLE_MS else 0.0)
        if abs(off) > bound:
            return f"a press timed {off:+.0f} ms from the leader's clock (at most {bound:.0f} ms off)"
        return None
