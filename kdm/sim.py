"""Bots-only games in one process, on simulated time: what ``kdm sim`` runs.

The simulation is the table's whole outside world, on virtual time: it hosts the table through a
``TableDriver`` (``kdm.driver``) on a ``SteppedClock`` with a bot at every seat, fulfils the engine's
duties at once (seeds derived from the game seed; reveals and timers from the driver), and applies
whichever comes first, a timer or a bot's plan, moving the clock to it. Every seat's "shown" time for an
event is the moment it was applied, so ``rt`` is measured as a peer would measure it. Same arguments ⇒
same game, event for event.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kdm.agents import Bot
from kdm.cards import derive_seed
from kdm.deck import OpenDeck, PrivateNote
from kdm.driver import SteppedClock, TableDriver
from kdm.engine import Duty, Effect, Engine, IllegalAction, Owed
from kdm.events import SEEDED_BY_KIND, Event
from kdm.manager import Rules

MAX_EVENTS = 5_000_000

Listener = Callable[[float, Event, Sequence[Effect]], None]


@dataclass
class SimResult:
    """A finished simulated game, in the shape ``kdm sim --json`` prints."""

    players: int
    rounds: int
    seed: int
    events: int
    seconds: float
    #: Each seat's score, in the game's own unit.
    scores: list[int]
    winners: list[int]
    digest: str = ""
    #: The game mode's own summary (``kdm_summary``).
    summary: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"players": self.players, "seed": self.seed, "events": self.events,
                "seconds": round(self.seconds, 4), **self.summary, "digest": self.digest}  # fmt: skip


class Simulation:
    """One bots-only game on simulated time: a ``TableDriver`` on a ``SteppedClock``, with a bot at
    every seat, that applies what is due in time order."""

    def __init__(
        self,
        players: int,
        seed: int,
        bots: str | Sequence[str] = "greedy",
        options: dict[str, Any] | None = None,
        variants: Sequence[str] = (),
        rules: Rules | None = None,
    ) -> None:
        self.rules = rules or Rules.for_table(variants)
        self.engine = Engine(self.rules, players, options)
        self.seed = seed
        self.master = derive_seed(str(seed).encode(), "kdm sim")
        strategies = [bots] * players if isinstance(bots, str) else list(bots)
        self.clock = SteppedClock()
        self.deck = OpenDeck()
        self.driver = TableDriver(
            self.engine,
            self.deck,
            self.clock,
            {seat: Bot(seat, strategies[seat], self.master) for seat in range(players)},
        )
        self._begun = False

    @property
    def now(self) -> float:
        return self.clock.now_ms

    @property
    def bots(self) -> list[Bot]:
        """The bot at each seat."""
        return [self.driver.bots[seat] for seat in range(self.engine.state.players)]

    # --- running -------------------------------------------------------------------------------

    def run(self, listener: Listener | None = None) -> SimResult:
        """Play the game to its end; ``listener`` sees every applied event with its effects."""
        started = time.perf_counter()
        engine = self.engine
        while not engine.over:
            if engine.state.seq > MAX_EVENTS:
                raise RuntimeError(f"game {self.seed} did not end within {MAX_EVENTS} events")
            self.step(listener)
        state = engine.state
        return SimResult(
            players=state.players,
            rounds=state.round,
            seed=self.seed,
            events=state.seq,
            seconds=time.perf_counter() - started,
            scores=list(state.scores),
            winners=engine.rules.winners(state),
            digest=engine.digest(),
            summary=engine.rules.summary(state),
        )

    def step(self, listener: Listener | None = None) -> None:
        """Apply the next event: a duty the table owes now, or whichever timer or bot comes first."""
        driver = self.driver
        if not self._begun:  # the game starts: every bot looks (a game may ask things before a deal)
            self._begun = True
            driver.wake(range(self.engine.state.players))
        duties = self.engine.awaiting()
        for duty in duties:
            if duty.owed_as in (Owed.SEED, Owed.REVEAL):  # owed at once; timers and decisions wait
                self._commit(self._fulfil(duty), listener)
                return
        # The earliest timer (the first of equals); every timer is asked, so each counts from now on.
        timer_due: float | None = None
        timer_duty: Duty | None = None
        for duty in duties:
            due = driver.timer_due(duty)
            if timer_duty is None or due < (timer_due or 0.0):
                timer_due, timer_duty = due, duty
        plan_due = driver.next_due()
        if plan_due is not None and (timer_due is None or plan_due <= timer_due):
            self.clock.set(plan_due)
            self._act(*driver.take(), listener)
            return
        if timer_due is None or timer_duty is None:
            raise RuntimeError(f"game {self.seed}: the table is stuck in phase {self.engine.state.phase}")
        self.clock.set(timer_due)
        self._commit(self._fulfil(timer_duty), listener)

    def _fulfil(self, duty: Duty) -> Event:
        if duty.owed_as is Owed.SEED:
            return SEEDED_BY_KIND[duty.kind](seed=derive_seed(self.master, duty.kind, self.engine.state.seq))
        event = self.driver.fulfil(duty)
        if event is None:
            raise RuntimeError(f"the simulation cannot fulfil {duty.kind!r}")
        return event

    def _act(self, seat: int, event: Event | PrivateNote, listener: Listener | None) -> None:
        if isinstance(event, PrivateNote):
            # Straight from one seat to another, never through the table: both now know it.
            self.driver.wake(self.driver.noted(event))
            return
        try:
            self._commit(event, listener)
        except IllegalAction:
            self.driver.wake((seat,))  # the table moved on; think again

    def _commit(self, event: Event, listener: Listener | None) -> None:
        seq = self.engine.state.seq
        effects = self.engine.apply(event)
        concerned = self.driver.applied(seq, effects)
        if listener is not None:
            listener(self.now, event, effects)
        self.driver.wake(concerned)


def simulate(
    players: int,
    rounds: int,
    seed: int,
    bots: str = "greedy",
    options: dict[str, Any] | None = None,
    variants: Sequence[str] = (),
    listener: Listener | None = None,
) -> SimResult:
    """Play one bots-only game and return its summary."""
    given = {"rounds": rounds, **(options or {})}
    return Simulation(players, seed, bots, given, variants).run(listener)
