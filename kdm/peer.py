"""One table membership on the network: a ``TableHost`` (``kdm.host``) wired to its consensus node and
to the asyncio loop.

The host decides everything (DESIGN 1: what to propose, what to send, what to tell the screen, what is
due when); the peer hands it what the node delivers (committed entries, membership changes, direct
messages), what the player wants (from the screen), and the passing of time (one loop timer at the
host's next deadline), and carries out what it answers: proposals and direct messages to the node,
notices to ``on_notice``, the end of the table to ``finished``.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable
from typing import Any, Protocol

from kdm.agents import Bot
from kdm.deck import Deck, PrivateNote
from kdm.driver import Clock, SystemClock, TableDriver
from kdm.engine import SeatView
from kdm.events import Event
from kdm.host import (
    Agent,
    Committed,
    CreateTable,
    Input,
    JoinTable,
    LeaderChanged,
    MembershipChanged,
    NodeView,
    Output,
    Play,
    Propose,
    Received,
    Say,
    Send,
    SendNote,
    StartGame,
    TableFinished,
    TableHost,
    TakeOver,
    TakeOverWithWord,
    Tell,
    Tick,
)
from kdm.host.proposals import CHAT_BURST, CHAT_WINDOW_MS, CLOCK_SETTLE_MS, RETRY_S, T_SYNC_BOUND_MS
from kdm.host.takeovers import KEY_TIMEOUT_S, TAKEOVER_AFTER_S
from kdm.identity import Identity
from kdm.manager import PluginInfo, Rules
from kdm.net.raft_messages import ConfChange
from kdm.notices import Notice
from kdm.record import TableRecord

__all__ = [
    "CHAT_BURST",
    "CHAT_WINDOW_MS",
    "CLOCK_SETTLE_MS",
    "KEY_TIMEOUT_S",
    "RETRY_S",
    "TAKEOVER_AFTER_S",
    "T_SYNC_BOUND_MS",
    "Agent",
    "Consensus",
    "Peer",
]

log = logging.getLogger("kdm.peer")


class Consensus(NodeView, Protocol):
    """What the peer needs from the consensus node (``kdm.net.node.Node``, or a fake in tests)."""

    def propose(self, data: bytes) -> bool: ...

    def agreed_time_ms(self) -> float: ...

    def send_direct(self, to: str, data: bytes) -> None: ...


class Peer:
    """One node's membership of one table."""

    def __init__(
        self,
        node: Consensus,
        installed: dict[str, PluginInfo],
        name: str = "",
        bot: Bot | None = None,
        on_notice: Callable[[Notice], None] | None = None,
        identity: Identity | None = None,
        first_counter: int = 0,
        clock: Clock | None = None,
    ) -> None:
        self.node = node
        #: The one clock this process reads (``kdm.driver.Clock``): the real ones unless a host injects
        #: another; the driver, the screen and every press are timed on it.
        self.clock: Clock = clock if clock is not None else SystemClock(node.agreed_time_ms)
        self.host = TableHost(node, installed, self.clock, name, bot, identity, first_counter)
        self.on_notice = on_notice
        self.finished = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._timer_due = math.inf
        #: From when a tick may do something, sooner than its timer (``TableHost.deadlines_ms``).
        self._early_due = math.inf

    # --- what the host holds ---------------------------------------------------------------------

    @property
    def record(self) -> TableRecord:
        return self.host.record

    @property
    def deck(self) -> Deck:
        return self.host.deck

    @property
    def driver(self) -> TableDriver | None:
        """The table driver, once there is a table (its engine is made by the ``create`` entry)."""
        return self.host.driver

    @property
    def agents(self) -> list[Agent]:
        return self.host.agents

    @property
    def me(self) -> Agent:
        """The agent of this process's own player."""
        return self.host.me

    @property
    def seat(self) -> int | None:
        return self.host.seat

    @property
    def bot(self) -> Bot | None:
        return self.host.me.bot

    @property
    def identity(self) -> Identity:
        return self.host.identity

    @property
    def table(self) -> str:
        """The table's id (``TableHost.table``)."""
        return self.host.table

    @table.setter
    def table(self, table: str) -> None:
        self.host.table = table

    @property
    def laptop(self) -> str:
        """For a bot a player started on their laptop: that player's node (``TableHost.laptop``)."""
        return self.host.laptop

    @laptop.setter
    def laptop(self, node: str) -> None:
        self.host.laptop = node

    @property
    def rejoined(self) -> bool:
        """True once this process took its player's seat back (after a restart or a lost network)."""
        return self.host.rejoined

    @property
    def latencies_ms(self) -> list[float]:
        return self.host.proposals.latencies_ms

    @property
    def key_timeout_s(self) -> float:
        """How long the leader lets a fair deck wait on a seat's part before a bot takes the seat."""
        return self.host.takeovers.key_timeout_s

    @key_timeout_s.setter
    def key_timeout_s(self, seconds: float) -> None:
        self.host.takeovers.key_timeout_s = seconds

    def view(self) -> SeatView | None:
        return self.host.view()

    def public_view(self) -> SeatView | None:
        """What a spectator sees: the public table and no hand (``seat`` -1: nobody's)."""
        return self.host.public_view()

    def behind(self) -> bool:
        return self.host.behind()

    def clock_agreed(self) -> bool:
        return self.host.clock_agreed()

    def screen_attached(self) -> None:
        """A person's screen shows this table from now on (``TableHost.screen_attached``)."""
        self.host.screen_attached()

    # --- running -----------------------------------------------------------------------------------

    def start(self, takeover_after_s: float | None = TAKEOVER_AFTER_S) -> None:
        """Begin retrying unconfirmed proposals and, when leading, taking over the seats of players
        silent for ``takeover_after_s`` (call on the running loop)."""
        self.host.watch(takeover_after_s)
        self._arm()

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        self.host.stop()
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._timer_due = None, math.inf

    def step(self, given: Input) -> None:
        """Hand the host one input and carry out what it answers."""
        self.deliver(self.host.step(given))

    def flush(self) -> None:
        """Carry out what the host has to do since it was last asked (after a call into one of its
        parts, as a test or a modified client makes)."""
        self.deliver(self.host.take_outputs())

    def deliver(self, outputs: list[Output]) -> None:
        """Carry out the host's ``outputs`` in order, then wait for its next deadline."""
        for output in outputs:
            if isinstance(output, Propose):
                self.node.propose(output.data)
            elif isinstance(output, Send):
                self.node.send_direct(output.to, output.data)
            elif isinstance(output, Tell):
                if self.on_notice is not None:
                    self.on_notice(output.notice)
            elif isinstance(output, TableFinished):
                self.finished.set()
        self._arm()

    def heard(self) -> None:
        """The process is awake for a message (``Node.on_heard``): a tick that may come now though
        its timer waits longer (a follower's quiet work waits for the next heartbeat) comes now,
        and spares the process a wake-up of its own."""
        if self._timer is not None and self.clock.local_ms() >= self._early_due:
            self._timer.cancel()
            self._tick()

    def _arm(self, not_before_ms: float = -math.inf) -> None:
        """One loop timer, at the host's next deadline."""
        early, due = self.host.deadlines_ms()
        self._early_due, due = max(early, not_before_ms), max(due, not_before_ms)
        if due == self._timer_due:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._timer_due = None, due
        if math.isinf(due):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a host driven by hand (a test without a loop): nothing to wait for
            self._timer_due = math.inf
            return
        self._timer = loop.call_later(max(0.0, due - self.clock.local_ms()) / 1000.0, self._tick)

    def _tick(self) -> None:
        self._timer, self._timer_due = None, math.inf
        try:
            outputs = self.host.step(Tick())
        except Exception:  # whatever one tick does, the table's timers go on
            log.exception("a table host's tick failed; going on")
            self.deliver(self.host.take_outputs())
            self._arm(not_before_ms=self.clock.local_ms() + RETRY_S * 1000)
            return
        self.deliver(outputs)

    # --- from the node ---------------------------------------------------------------------------

    def committed(self, data: bytes) -> None:
        """Apply one committed entry, in log order."""
        self.step(Committed(data))

    def membership_changed(self, change: ConfChange) -> None:
        """A committed membership change (``Node.on_membership``), handed to the record in log order."""
        self.step(MembershipChanged(change))

    def leader_changed(self, leader: str | None) -> None:
        """The node follows another leader, or leads, or knows none (``Node.on_leader``)."""
        self.step(LeaderChanged(leader))

    def received_direct(self, sender: str, data: bytes) -> None:
        """A direct message from another member (``kdm.host.notes``)."""
        self.step(Received(sender, data))

    def screen_proposal(self, sender: str, data: bytes) -> str | None:
        """Why the leader's node drops an entry forwarded by ``sender``, or None to let it in
        (``kdm.host.proposals.Proposals.screen``)."""
        return self.host.proposals.screen(sender, data)

    def screen_relay(self, sender: str, data: bytes) -> str | None:
        """Why this node neither gives the leader an entry relayed by ``sender`` (or its own) nor
        watches for it, or None (``kdm.host.proposals.Proposals.screen_relay``)."""
        return self.host.proposals.screen_relay(sender, data)

    def settled(self, data: bytes) -> bool:
        """Whether the record took or refused the entry ``data`` (``Proposals.settled``)."""
        return self.host.proposals.settled(data)

    def retry_pending(self, now: float) -> None:
        """Propose again what is not seen committed (``kdm.host.proposals.Proposals.retry``)."""
        self.host.proposals.retry(now)
        self.flush()

    # --- from the player ---------------------------------------------------------------------------

    def create_table(
        self,
        table: str,
        players: int,
        options: dict[str, Any],
        rules: Rules,
        listed: bool = True,
        deck: str = "open",
    ) -> None:
        """Propose the table, then take its first seat (``TableHost.create_table``)."""
        self.step(CreateTable(table, players, options, rules, listed, deck))

    def join_table(self, table: str = "") -> None:
        """Ask for a seat at ``table`` (its id) for this process's player (``TableHost.join_table``)."""
        self.step(JoinTable(table))

    def start_game(self) -> None:
        self.step(StartGame())

    def act(self, event: Event) -> None:
        """Propose the player's action (stamped by the caller when it is timed)."""
        self.step(Play(event))

    def say(self, text: str) -> None:
        """Say ``text`` to the whole table from this player's seat."""
        self.step(Say(text))

    def send_note(self, note: PrivateNote) -> None:
        """Send a private note from this player's seat (``kdm.host.notes``)."""
        self.step(SendNote(note))

    def take_over(
        self, seat: int, bot: Bot, name: str = "", why: str = "", silence: dict[str, Any] | None = None
    ) -> None:
        """Play ``seat`` from here with ``bot`` (``kdm.host.takeovers``)."""
        self.step(TakeOver(seat, bot, name, why, silence or {}))

    def take_over_with_word(self, seat: int, name: str, why: str = "") -> None:
        """Take ``seat`` over once a quorum of the other voters says its process is silent."""
        self.step(TakeOverWithWord(seat, name, why))
