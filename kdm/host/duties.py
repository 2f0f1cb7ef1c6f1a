"""What the table awaits from this host, and when: one function says who owes each duty here
(``debts``), and ``Duties`` pays it on time.

A duty (``kdm.engine.Duty``) says its kind (``Owed``): a seed (every seat reveals its nonce for the next
shuffle), a table timer (``Close``, a table-called GO: every host notes when it first awaited it, and
the leader proposes its event then), a seat's own decision with a deadline (its player or bot has until
then; then this host answers for the seat as the game says), or a reveal (what the game builds from the
faces a seat knows: its hand shown, a card drawn).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kdm.engine import Duty, Owed
from kdm.entries import Reveal
from kdm.kept import nonce_label

if TYPE_CHECKING:
    from kdm.host.table import Agent, TableHost

log = logging.getLogger("kdm.peer")


@dataclass(frozen=True)
class Debt:
    """``duty``, owed from here by ``seat`` (None: by the table, on its leader's clock)."""

    duty: Duty
    seat: int | None


def debts(duties: Iterable[Duty], seats_here: Iterable[int]) -> list[Debt]:
    """What the seats played here owe of ``duties``, and the table's timers (every host notes them;
    its leader fires them). A duty of nobody's in particular (who holds the Queen of hearts?) is owed
    by every seat here that may hold the answer: the game's reveal says which."""
    here = list(dict.fromkeys(seats_here))  # in the host's order: its player's seat first
    owed: list[Debt] = []
    for duty in duties:
        if duty.owed_as is Owed.TIMER:
            owed.append(Debt(duty, None))
        elif duty.owed_as is Owed.SEED:
            owed.extend(Debt(duty, seat) for seat in here)
        elif duty.owed_as is Owed.DECISION:
            owed.extend(Debt(duty, seat) for seat in here if seat == duty.seat)
        else:
            owed.extend(Debt(duty, seat) for seat in here if duty.seat in (None, seat))
    return owed


class Duties:
    """One host's debts to the table: reveals proposed once each, timers and deadlines kept."""

    def __init__(self, host: TableHost) -> None:
        self.host = host
        #: The table timers this host fires while it leads, by (kind, ref) → when (local ms; inf once
        #: fired: a timer is not restarted by a change of leader, nor fired twice).
        self.timers: dict[tuple[str, int], float] = {}
        #: The seats' decisions this host answers for when their time is up, by (kind, ref).
        self.decisions: dict[tuple[str, int], tuple[float, Agent, Duty]] = {}

    def owe(self) -> None:
        """Pay what the table awaits now from here (each debt once)."""
        host = self.host
        engine, record = host.record.engine, host.record
        if engine is None or not record.started or engine.over:
            return
        here = host.seats_here()
        by_seat = {agent.seat: agent for agent in host.agents if agent.seat in here}
        for debt in debts(engine.awaiting(), by_seat):
            if debt.seat is None:
                self._note_timer(debt.duty)
            else:
                self._pay(by_seat[debt.seat], debt.duty)

    def _note_timer(self, duty: Duty) -> None:
        driver = self.host.driver
        assert driver is not None
        due = driver.timer_due(duty)  # every host notes it: a screen counts down to it
        key = (duty.kind, duty.ref)
        if self.host.node.is_leader and key not in self.timers:
            self.timers[key] = due

    def _pay(self, agent: Agent, duty: Duty) -> None:
        host = self.host
        engine, record = host.record.engine, host.record
        assert engine is not None and agent.seat is not None
        if duty.owed_as is Owed.SEED:
            key = ("reveal", record.shuffles)
            if agent.identity in record.reveals or key in agent.owed:
                return
            nonce = agent.nonce_for(record.seats[agent.seat].commitment, record.shuffles)
            if nonce is None:
                log.error("seat %s: no nonce for its commitment; the table waits for it", agent.seat)
                return
            agent.owed.add(key)
            host.proposals.propose(
                Reveal,
                agent,
                shuffle=record.shuffles,
                nonce=nonce,
                next_commit=agent.fresh_commitment(nonce_label("next", record.shuffles)),
            )
            agent.paying[agent.counter] = key
        elif duty.owed_as is Owed.DECISION:
            key = (duty.kind, duty.ref)
            driver = host.driver
            if key not in self.decisions and driver is not None:
                self.decisions[key] = (driver.timer_due(duty), agent, duty)
        else:
            key = (duty.kind, engine.state.seq)
            if key in agent.owed:
                return
            driver = host.driver
            event = driver.fulfil(duty) if driver is not None else None
            if event is not None and getattr(event, "seat", None) == agent.seat:
                agent.owed.add(key)
                host.act(event, agent)
                agent.paying[agent.counter] = key

    def next_due_ms(self) -> float:
        """When the next timer or deadline kept here is due (inf: none)."""
        return min(
            min(self.timers.values(), default=math.inf),
            min((due for due, _, _ in self.decisions.values()), default=math.inf),
        )

    def stop(self) -> None:
        """Nothing kept here fires any more (each stays noted, so none is set again)."""
        self.timers = dict.fromkeys(self.timers, math.inf)
        self.decisions = {key: (math.inf, agent, duty) for key, (_, agent, duty) in self.decisions.items()}

    def tick(self, now: float) -> None:
        """Fire what is due by ``now``."""
        for key, due in list(self.timers.items()):
            if due <= now:
                self.timers[key] = math.inf
                self._fire_timer(key)
        for key, (due, agent, duty) in list(self.decisions.items()):
            if due <= now:
                self.decisions[key] = (math.inf, agent, duty)
                self._decide_for_seat(agent, duty)

    def _decide_for_seat(self, agent: Agent, duty: Duty) -> None:
        """Time is up for the seat's decision ``duty``: answer as the game says, if it is still awaited
        from the seat this agent still plays."""
        host = self.host
        engine, driver = host.record.engine, host.driver
        if engine is None or driver is None or agent.seat != duty.seat:
            return
        awaited = [(d.kind, d.seat, d.ref) for d in engine.awaiting()]
        if (duty.kind, duty.seat, duty.ref) not in awaited:
            return
        event = driver.fulfil(duty)
        if event is not None:
            host.act(event, agent)

    def _fire_timer(self, key: tuple[str, int]) -> None:
        host = self.host
        kind, ref = key
        engine = host.record.engine
        if engine is not None and any(
            d.kind == kind and d.ref == ref and d.seat is None for d in engine.awaiting()
        ):
            host.act(host.record.rules.codec.decode({"kind": kind}))
