"""One table membership: the consensus node, the table record, the open deck and this seat's player.

The peer is the only place where the rules meet the network (DESIGN 1): it turns intents into
proposals, replays committed entries through ``TableRecord``, keeps the moment each event was shown
(for reaction times), owes the table its duties (reveals, its own hand, its draws; ``Close`` when it
leads) and lets a bot play its seat. A proposal is retried until it is seen committed; the record
applies each one once.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

import msgpack

from kdm.bots import Bot, Decision
from kdm.deck import OpenDeck
from kdm.engine import Duty, SeatView
from kdm.events import Announce, Close, Event, TimedEvent
from kdm.manager import PluginInfo, Rules
from kdm.record import SEEDED_DUTIES, Notice, TableRecord, commitment

log = logging.getLogger("kdm.peer")
RETRY_S = 0.25


class Consensus(Protocol):
    """What the peer needs from the consensus node (``kdm.net.node.Node``, or a fake in tests)."""

    node_id: str

    @property
    def is_leader(self) -> bool: ...

    def propose(self, data: bytes) -> bool: ...

    def agreed_time_ms(self) -> float: ...


def local_time_ms() -> float:
    """This process's monotonic clock, in ms: what reaction times are measured on."""
    return time.monotonic() * 1000.0


class Peer:
    """One node's membership of one table."""

    def __init__(
        self,
        node: Consensus,
        installed: dict[str, PluginInfo],
        name: str = "",
        bot: Bot | None = None,
        on_notice: Callable[[Notice], None] | None = None,
    ) -> None:
        self.node = node
        self.record = TableRecord(installed)
        self.name = name or node.node_id
        self.bot = bot
        self.on_notice = on_notice
        self.deck = OpenDeck()
        self.seat: int | None = None
        self.shown: dict[int, float] = {}
        self.finished = asyncio.Event()
        self.latencies_ms: list[float] = []
        self._counter = 0
        self._nonces: list[bytes] = [secrets.token_bytes(32)]
        self._pending: dict[int, tuple[bytes, float, float]] = {}  # counter -> data, first, last try
        self._owed: set[tuple[str, int, int]] = set()
        self._plan: tuple[asyncio.TimerHandle, Decision] | None = None
        self._close_timers: dict[int, asyncio.TimerHandle] = {}
        self._retry_task: asyncio.Task[None] | None = None

    # --- proposing -------------------------------------------------------------------------------

    def start(self) -> None:
        """Begin retrying unconfirmed proposals (call on the running loop)."""
        self._retry_task = asyncio.get_running_loop().create_task(self._retry_forever())

    async def stop(self) -> None:
        if self._retry_task is not None:
            self._retry_task.cancel()
        self._cancel_plan()
        for timer in self._close_timers.values():
            timer.cancel()

    def propose(self, kind: str, **fields: Any) -> None:
        self._counter += 1
        entry = {"t": kind, "id": [self.node.node_id, self._counter], **fields}
        data = msgpack.packb(entry, use_bin_type=True)
        now = local_time_ms()
        self._pending[self._counter] = (data, now, now)
        self.node.propose(data)

    async def _retry_forever(self) -> None:
        while True:
            await asyncio.sleep(RETRY_S)
            now = local_time_ms()
            for counter, (data, first, last) in list(self._pending.items()):
                if now - last >= RETRY_S * 1000:
                    self._pending[counter] = (data, first, now)
                    self.node.propose(data)

    def create_table(self, table: str, players: int, options: dict[str, Any], rules: Rules) -> None:
        """Propose the table (the host does this once), then take the first seat."""
        self.propose("create", name=table, players=players, options=options, plugins=rules.versions)
        self.join_table()

    def join_table(self) -> None:
        self.propose("join", name=self.name, bot=self.bot is not None, commit=commitment(self._nonces[0]))

    def start_game(self) -> None:
        self.propose("start")

    def act(self, event: Event) -> None:
        """Propose a player action (stamped by the caller when it is timed)."""
        codec = self.record.rules.codec
        self.propose("event", event=codec.encode(event))

    # --- committed entries -----------------------------------------------------------------------

    def committed(self, data: bytes) -> None:
        """Apply one committed entry, in log order."""
        try:
            entry = msgpack.unpackb(data, raw=False, strict_map_key=True)
        except Exception as error:  # a committed entry is replicated: everyone drops it the same way
            log.warning("dropped a committed entry that is not msgpack: %s", error)
            return
        ident = entry.get("id") if isinstance(entry, dict) else None
        if isinstance(ident, list) and len(ident) == 2 and ident[0] == self.node.node_id:
            sent = self._pending.pop(ident[1], None)
            if sent is not None:
                self.latencies_ms.append(local_time_ms() - sent[1])
        for notice in self.record.apply(entry):
            self._handle(notice)
        self._owe_duties()

    def _handle(self, notice: Notice) -> None:
        if notice.kind == "seated" and notice.node == self.node.node_id:
            self.seat = notice.seat
        elif notice.kind == "rejected":
            level = logging.WARNING if notice.node == self.node.node_id else logging.INFO
            log.log(level, "entry from %s refused: %s", notice.node or "?", notice.reason)
        elif notice.kind == "applied":
            self.shown[notice.seq] = local_time_ms()
            self.deck.observe(notice.effects)
            if any(effect["kind"] == "game_over" for effect in notice.effects):
                self.propose("done")
        engine = self.record.engine
        if engine is not None and engine.over and len(self.record.done) >= len(self.record.seats):
            self.finished.set()
        if self.on_notice is not None:
            self.on_notice(notice)
        if notice.kind in ("applied", "started"):
            self._wake_bot()

    # --- duties the table owes -------------------------------------------------------------------

    def view(self) -> SeatView | None:
        engine = self.record.engine
        if engine is None or self.seat is None or not self.record.started:
            return None
        return engine.view(self.seat, self.deck.knowledge(engine.state, self.seat))

    def _owe_duties(self) -> None:
        engine, record = self.record.engine, self.record
        if engine is None or self.seat is None or not record.started or engine.over:
            return
        for duty in engine.awaiting():
            self._owe(duty)

    def _owe(self, duty: Duty) -> None:
        engine, record = self.record.engine, self.record
        assert engine is not None and self.seat is not None
        state = engine.state
        if duty.kind in SEEDED_DUTIES:
            key = ("reveal", record.shuffles, 0)
            if self.node.node_id not in record.reveals and key not in self._owed:
                self._owed.add(key)
                nonce = self._nonces[-1]
                self._nonces.append(secrets.token_bytes(32))
                self.propose("reveal", k=record.shuffles, nonce=nonce, next=commitment(self._nonces[-1]))
        elif duty.kind == "close":
            if self.node.is_leader and duty.ref not in self._close_timers:
                loop = asyncio.get_running_loop()
                delay = (duty.after_ms or 0.0) / 1000.0
                self._close_timers[duty.ref] = loop.call_later(delay, self._propose_close, duty.ref)
        elif duty.kind == "announce":
            key = ("announce", state.seq, 0)
            holds = any(self.deck.faces.get(t) == duty.cards[0] for t in state.hands[self.seat])
            if holds and key not in self._owed:
                self._owed.add(key)
                self.act(Announce(seat=self.seat, card=duty.cards[0]))
        elif duty.seat == self.seat:
            key = (duty.kind, state.seq, self.seat)
            event = self.deck.fulfil(duty, state)
            if event is not None and key not in self._owed:
                self._owed.add(key)
                self.act(event)

    def _propose_close(self, ref: int) -> None:
        engine = self.record.engine
        if engine is None:
            return
        if any(d.kind == "close" and d.ref == ref for d in engine.awaiting()):
            self.act(Close())

    # --- the bot at this seat --------------------------------------------------------------------

    def _wake_bot(self) -> None:
        if self.bot is None:
            return
        view = self.view()
        if view is None:
            return
        decision: Decision | None = self.record.rules.hook.kdm_bot_decide(view=view, bot=self.bot)
        if decision is None:
            self._cancel_plan()
            return
        if self._plan is not None and self._plan[1].event == decision.event:
            return  # still wants the same thing: keep the original timing
        self._cancel_plan()
        loop = asyncio.get_running_loop()
        handle = loop.call_later(decision.delay_ms / 1000.0, self._fire, decision)
        self._plan = (handle, decision)

    def _cancel_plan(self) -> None:
        if self._plan is not None:
            self._plan[0].cancel()
            self._plan = None

    def _fire(self, decision: Decision) -> None:
        self._plan = None
        event = decision.event
        if isinstance(event, TimedEvent):
            shown = self.shown.get(event.trigger) if event.trigger is not None else None
            now = local_time_ms()
            event = replace(
                event, t_sync=self.node.agreed_time_ms(), rt=None if shown is None else now - shown
            )
        self.act(event)
