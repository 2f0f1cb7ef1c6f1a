"""Bots-only games in one process, on simulated time: what ``kdm sim`` runs.

The simulation is the table's whole outside world: it fulfils the engine's duties at once (seeds derived
from the game seed, reveals from the open deck), fires the close timer, and lets each bot act when its
seeded think or reaction time has elapsed. Every seat's "shown" time for an event is the moment it was
applied, so ``rt`` is measured as a peer would measure it. Same arguments ⇒ same game, event for event.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kdm.agents import Bot, Decision
from kdm.cards import derive_seed
from kdm.deck import OpenDeck, PrivateNote
from kdm.engine import Duty, Effect, Engine, IllegalAction
from kdm.events import Deal, Event, Shuffle, StartGame, TimedEvent
from kdm.manager import Rules

SEEDED = {"start_game": StartGame, "deal": Deal, "shuffle": Shuffle}
MAX_EVENTS = 5_000_000

Listener = Callable[[float, Event, list[Effect]], None]


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


@dataclass(order=True)
class _Plan:
    due: float
    order: int
    seat: int = field(compare=False)
    decision: Decision = field(compare=False)
    live: bool = field(default=True, compare=False)


class Simulation:
    """One bots-only game on simulated time."""

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
        self.bots = [Bot(seat, strategies[seat], self.master) for seat in range(players)]
        self.deck = OpenDeck()
        self.now = 0.0
        self.shown: dict[int, float] = {}
        self._plans: dict[int, _Plan] = {}
        self._queue: list[_Plan] = []
        self._timers: dict[tuple[str, int], float] = {}
        self._order = 0
        self._bot_decide = self.rules.fast("kdm_bot_decide")
        self._reveal = self.rules.fast("kdm_reveal")

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
            winners=list(engine.rules.hook.kdm_winners(state=state)),
            digest=engine.digest(),
            summary=engine.rules.hook.kdm_summary(state=state) or {},
        )

    def step(self, listener: Listener | None = None) -> None:
        """Apply the next event: a duty the table owes now, or whichever timer or bot comes first."""
        duties = self.engine.awaiting()
        for duty in duties:
            if duty.after_ms is None:
                self._commit(self._fulfil(duty), listener)
                return
        timer_due, timer_duty = min(
            ((self._timers.setdefault((d.kind, d.ref), self.now) + (d.after_ms or 0.0), d)
             for d in duties), default=(None, None), key=lambda pair: pair[0] or 0.0,
        )  # fmt: skip
        plan = self._next_plan()
        if plan is not None and (timer_due is None or plan.due <= timer_due):
            heapq.heappop(self._queue)
            del self._plans[plan.seat]
            self.now = max(self.now, plan.due)
            self._act(plan, listener)
            return
        if timer_due is None or timer_duty is None:
            raise RuntimeError(f"game {self.seed}: the table is stuck in phase {self.engine.state.phase}")
        self.now = max(self.now, timer_due)
        self._commit(self._fulfil(timer_duty), listener)

    def _next_plan(self) -> _Plan | None:
        while self._queue and not self._queue[0].live:
            heapq.heappop(self._queue)
        return self._queue[0] if self._queue else None

    def _fulfil(self, duty: Duty) -> Event:
        seeded = SEEDED.get(duty.kind)
        if seeded is not None:
            return seeded(seed=derive_seed(self.master, duty.kind, self.engine.state.seq))
        if duty.after_ms is not None and duty.seat is None:
            # A table timer (``close``, a variant's ``go``...): its event carries nothing but its kind.
            return self.rules.codec.decode({"kind": duty.kind})
        state = self.engine.state
        event = self.deck.fulfil(duty, state, self._reveal)
        if event is None:
            raise RuntimeError(f"the simulation cannot fulfil {duty.kind!r}")
        return event

    def _act(self, plan: _Plan, listener: Listener | None) -> None:
        event = plan.decision.event
        if isinstance(event, PrivateNote):
            # Straight from one seat to another, never through the table: both now know it.
            self.deck.note(event)
            self._wake(sorted({event.sender, event.to} | self._plans.keys()))
            return
        if isinstance(event, TimedEvent):
            shown = self.shown.get(event.trigger) if event.trigger is not None else None
            event = replace(event, t_sync=self.now, rt=None if shown is None else self.now - shown)
        try:
            self._commit(event, listener)
        except IllegalAction:
            self._wake((plan.seat,))  # the table moved on; think again

    def _commit(self, event: Event, listener: Listener | None) -> None:
        seq = self.engine.state.seq
        effects = self.engine.apply(event)
        self.shown[seq] = self.now
        self.deck.observe(effects)
        wake: set[int] | None = set()
        for effect in effects:
            if effect["kind"] == "dealt":
                self.shown.clear()
                self._timers.clear()
            if wake is not None:
                hinted = effect.get("wake")
                wake = None if hinted is None else wake | set(hinted)
        if listener is not None:
            listener(self.now, event, effects)
        if wake is None:
            self._wake(range(self.engine.state.players))
        else:
            # A bot with a plan made it from an older view: it looks again, and may change its mind.
            self._wake(sorted(wake | self._plans.keys()))

    def _wake(self, seats: Sequence[int] | range) -> None:
        engine = self.engine
        if engine.over:
            return
        for seat in seats:
            bot = self.bots[seat]
            view = engine.view(seat, self.deck.knowledge(engine.state, seat))
            decision: Decision | None = self._bot_decide(view=view, bot=bot)
            current = self._plans.get(seat)
            if decision is None:
                if current is not None:
                    current.live = False
                    del self._plans[seat]
                continue
            if current is not None:
                if current.decision.event == decision.event:
                    continue  # still wants the same thing: keep the original timing
                current.live = False
            self._order += 1
            plan = _Plan(self.now + decision.delay_ms, self._order, seat, decision)
            self._plans[seat] = plan
            heapq.heappush(self._queue, plan)


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
