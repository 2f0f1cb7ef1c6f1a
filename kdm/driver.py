"""The table driver: what every host of a table does between committed events, without I/O.

A table is hosted three ways: by the peer (asyncio and a real network), by the simulation (virtual time)
and by the test kit (manual steps). Each applies committed events to its engine; what follows is the same
for all three and lives here, once:

- **time**: the moment each event was shown to this process (``shown``), so that a reaction names its
  trigger and measures ``rt`` from it; the table's agreed clock for ``t_sync``. Both come from a
  ``Clock`` (``SystemClock`` for people, ``SteppedClock`` for the simulation, ``kdm.testing.FakeClock``
  for tests), never from the time module directly;
- **duties**: the event that fulfils a reveal (built by the game's ``kdm_reveal`` from the faces the deck
  knows here) or a table timer (an event of nothing but its kind). Seeds are the host's business: the
  simulation derives them, peers commit and reveal them;
- **bots**: each bot seat's plan (a decision and when it is due), at people's pace when a person sits
  at the table (``TableState.people``, ``Bot.pace_for_people``). After an event, the seats its effects
  concern look again (their ``wake`` hints; every seat when an effect gives none); a bot that still
  wants the same event keeps its original timing, and one the event does not concern keeps its plan.

The host asks ``next_due()`` when to come back and ``take()`` the plan that is due, then applies or
proposes its event itself: the driver never sleeps, sends or reads the time module.
"""

from __future__ import annotations

import heapq
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from kdm.agents import Bot, Decision
from kdm.deck import Deck, PrivateNote
from kdm.effects import Effect
from kdm.engine import Duty, Engine, Owed
from kdm.events import Event, TimedEvent
from kdm.net.clock import monotonic_ms

log = logging.getLogger("kdm.driver")

# --- time ------------------------------------------------------------------------------------------


class Clock(Protocol):
    """The two clocks a table host reads."""

    def local_ms(self) -> float:
        """This process's monotonic time, in ms: what reaction times are measured on."""
        ...

    def agreed_ms(self) -> float:
        """The table's agreed time, in ms: what ``t_sync`` is stamped on."""
        ...


class SystemClock:
    """The real clocks: the monotonic clock here (``kdm.net.clock.monotonic_ms``: the running loop's),
    and the table's agreed clock from the network (the node's estimate of the leader's clock), or the
    local one before there is a table."""

    def __init__(self, agreed: Callable[[], float] | None = None) -> None:
        self._agreed = agreed

    def local_ms(self) -> float:
        return monotonic_ms()

    def agreed_ms(self) -> float:
        return self._agreed() if self._agreed is not None else self.local_ms()


class SteppedClock:
    """A clock that moves only when its owner sets it (the simulation's virtual time): one clock for
    the whole table, so the agreed time is the local time."""

    def __init__(self, start_ms: float = 0.0) -> None:
        self.now_ms = start_ms

    def local_ms(self) -> float:
        return self.now_ms

    def agreed_ms(self) -> float:
        return self.now_ms

    def set(self, now_ms: float) -> None:
        self.now_ms = max(self.now_ms, now_ms)


# --- bots' plans -------------------------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class Plan:
    """A bot's next move at one seat, due at ``due`` (on the local clock); the ``order`` it was made
    in breaks ties."""

    due: float
    order: int
    seat: int
    decision: Decision
    live: bool = True


class TableDriver:
    """One host's driver of one table: time stamps, duties, and the plans of the bots it runs."""

    def __init__(
        self,
        engine: Engine,
        deck: Deck,
        clock: Clock,
        bots: Mapping[int, Bot] | None = None,
        painted_by_screen: bool = False,
        on_bot_error: Callable[[int, Exception], None] | None = None,
    ):
        self.engine = engine
        self.deck = deck
        self.clock = clock
        #: The bots this host runs, by seat (a host may run none, or stand-ins besides its player).
        self.bots: dict[int, Bot] = dict(bots or {})
        #: seq of every event of this round → when this process showed it (local clock): when a redraw
        #: painted it where a person's screen shows the table (``painted_by_screen``, ``show``), else
        #: when it was applied. One writer either way: reactions count from one moment.
        self.shown: dict[int, float] = {}
        self.painted_by_screen = painted_by_screen
        self._round_from = 0  # the seq of this round's deal: no event before it is shown again
        #: Each table timer awaited this round → when it was first awaited (local clock).
        self._timers: dict[tuple[str, int], float] = {}
        self.plans: dict[int, Plan] = {}
        #: ``(due, order, plan)``, earliest first (tuples compare faster than dataclasses).
        self._queue: list[tuple[float, int, Plan]] = []
        self._order = 0
        self._bot_decide = engine.rules.hooks.bot_decide
        #: Told of a bot that raised instead of deciding (its seat, the error), which then waits as if
        #: it had decided nothing. None: the error goes up (a simulation stops at a bot's bug; a table
        #: host keeps its table going, ``TableHost._bot_failed``).
        self.on_bot_error = on_bot_error
        self._reveal = engine.rules.hooks.reveal

    # --- time ------------------------------------------------------------------------------------

    def applied(self, seq: int, effects: Sequence[Effect]) -> list[int]:
        """Event ``seq`` was applied with ``effects``: note when it was shown, learn the faces it made,
        and return the seats whose bots look again (see ``concerned``)."""
        for effect in effects:
            if effect["kind"] == "dealt":
                self.shown.clear()  # a new round: no reaction names an event of the last one
                self._timers.clear()
                self._round_from = seq
                break
        if not self.painted_by_screen:
            self.shown[seq] = self.clock.local_ms()
        self.deck.observe(effects)
        return self.concerned(effects)

    def show(self, seq: int, at_ms: float) -> None:
        """Event ``seq`` was shown to a person at ``at_ms`` (when the screen painted it): reactions to
        it count from then. Only where a screen paints the table (``painted_by_screen``)."""
        if self.painted_by_screen and seq >= self._round_from:
            self.shown[seq] = at_ms

    def agreed_at(self, local_ms: float) -> float:
        """A moment of the local clock (a key press) on the table's agreed clock."""
        return self.clock.agreed_ms() - (self.clock.local_ms() - local_ms)

    def reaction_ms(self, trigger: int, pressed_ms: float) -> float | None:
        """How long after event ``trigger`` was shown ``pressed_ms`` came, or None if it was not shown."""
        shown = self.shown.get(trigger)
        return None if shown is None else max(0.0, pressed_ms - shown)

    def stamp(self, event: Event, pressed_ms: float | None = None) -> Event:
        """``event`` with its timing, when it is a timed one: ``t_sync`` on the agreed clock and ``rt``
        from its trigger's shown time, for a press at ``pressed_ms`` (default: now)."""
        if not isinstance(event, TimedEvent):
            return event
        pressed = self.clock.local_ms() if pressed_ms is None else pressed_ms
        rt = self.reaction_ms(event.trigger, pressed) if event.trigger is not None else None
        return replace(event, t_sync=self.agreed_at(pressed), rt=rt)

    # --- duties ----------------------------------------------------------------------------------

    def timer_due(self, duty: Duty) -> float:
        """When a table timer is due (local clock): ``after_ms`` from when it was first awaited."""
        first = self._timers.setdefault((duty.kind, duty.ref), self.clock.local_ms())
        return first + (duty.after_ms or 0.0)

    def fulfil(self, duty: Duty) -> Event | None:
        """The event that fulfils ``duty`` from this host: a table timer's event (nothing but its kind),
        or what the game reveals from the faces known here; None for a seed or a face not known here."""
        if duty.owed_as is Owed.TIMER:
            return self.engine.rules.codec.decode({"kind": duty.kind})
        event: Event | None = self.deck.fulfil(duty, self.engine.state, self._reveal)
        return event

    # --- bots ------------------------------------------------------------------------------------

    def concerned(self, effects: Sequence[Effect]) -> list[int]:
        """The seats whose bots look again after these effects: every seat an effect hints (``wake``),
        every seat with a plan when an effect says ``replan`` (``kdm.effects.Hints``), and every seat
        when one gives no hint.
        A bot that is not concerned keeps its plan: the game says, by its hints, that the event
        changes nothing it could want (a plan that turns out refused when its time comes is refused
        like any event, and its bot looks again)."""
        if len(effects) == 1:  # most events: one effect, whose hint is the answer
            hinted = effects[0].get("wake")
            if hinted is not None and len(hinted) < 2 and not effects[0].get("replan"):
                return list(hinted)
        seats: set[int] = set()
        for effect in effects:
            hinted = effect.get("wake")
            if hinted is None:
                return list(range(self.engine.state.players))
            seats.update(hinted)
            if effect.get("replan"):  # the event may have made a plan wrong: those who have one look
                seats.update(self.plans)
        return sorted(seats)

    def noted(self, note: PrivateNote) -> list[int]:
        """A private note reached this process: the deck keeps it, and its two seats look again (so do
        the seats with a plan, which may have counted on the note's absence). A note the table refuses
        now (``kdm_note_refused``) is dropped, with its reason: nobody looks again."""
        refusal = self.note_refused(note)
        if refusal:
            log.warning("refused a private note from seat %d to seat %d: %s", note.sender, note.to, refusal)
            return []
        self.deck.note(note)
        return sorted({note.sender, note.to} | self.plans.keys())

    def note_refused(self, note: PrivateNote) -> str | None:
        """Why the table takes no such note now (None: it does)."""
        refusal: str | None = self.engine.rules.hooks.note_refused(state=self.engine.state, note=note)
        return refusal

    def wake(self, seats: Iterable[int]) -> None:
        """The bots at ``seats`` look at their views and plan again; one that still wants the same event
        keeps its original timing."""
        engine = self.engine
        if engine.over:
            return
        # Looked up once: this runs after every event, for every seat the event concerns.
        state, bots, plans, knowledge, view, decide = (
            engine.state,
            self.bots,
            self.plans,
            self.deck.knowledge,
            engine.view,
            self._bot_decide,
        )
        people = state.people
        for seat in seats:
            bot = bots.get(seat)
            if bot is None:
                continue
            if people and not bot.paced:
                bot.pace_for_people()  # a person sits at this table: the bots keep their pace
            try:
                decision: Decision | None = decide(view=view(seat, knowledge(state, seat)), bot=bot)
            except Exception as error:
                if self.on_bot_error is None:
                    raise
                self.on_bot_error(seat, error)
                decision = None
            if decision is None:
                current = plans.pop(seat, None)
                if current is not None:
                    current.live = False
                continue
            current = plans.get(seat)
            if current is not None:
                if current.decision is decision or current.decision.event == decision.event:
                    continue  # (a bot may hand back the very decision it made before)
                current.live = False
            self._order += 1
            plan = Plan(self.clock.local_ms() + decision.delay_ms, self._order, seat, decision)
            plans[seat] = plan
            heapq.heappush(self._queue, (plan.due, plan.order, plan))

    def cancel(self, seat: int) -> None:
        """Forget the plan of ``seat`` (its bot stopped playing it, or has nothing to do)."""
        plan = self.plans.pop(seat, None)
        if plan is not None:
            plan.live = False

    def next_due(self) -> float | None:
        """When the earliest plan is due (local clock), or None when no bot plans anything."""
        while self._queue and not self._queue[0][2].live:
            heapq.heappop(self._queue)
        return self._queue[0][0] if self._queue else None

    def take(self) -> tuple[int, Event | PrivateNote]:
        """Take the earliest plan (the host checked it is due): its seat and its event, stamped."""
        queue = self._queue
        while queue and not queue[0][2].live:
            heapq.heappop(queue)
        assert queue, "no plan to take"
        _due, _order, plan = heapq.heappop(queue)
        del self.plans[plan.seat]
        event = plan.decision.event
        if isinstance(event, TimedEvent):
            return plan.seat, self.stamp(event)
        return plan.seat, event  # (a private note, or an event with no timing)
