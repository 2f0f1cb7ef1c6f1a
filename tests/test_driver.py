"""The table driver (``kdm.driver``) on a fake clock: shown times and stamps, timers, reveals, and the
plans of bots, woken by what concerns them and keeping their timing while they want the same thing."""

from __future__ import annotations

import asyncio

from kdm.agents import Bot, Profile
from kdm.deck import MAX_NOTES, OpenDeck, PrivateNote
from kdm.driver import SystemClock, TableDriver
from kdm.engine import Duty
from kdm.net.clock import monotonic_ms
from kdm.plugins.kilo.events import Close, Slap
from kdm.plugins.kilo.testing import ScriptedKilo
from kdm.testing import FakeClock, run_virtual

CALM = Profile(feint_chance=0.0, fooled_chance=0.0)
KINGS_AT_0 = [["KH", "KS", "KD", "KC"]]


def dealt() -> ScriptedKilo:
    table = ScriptedKilo(4)
    table.deal(KINGS_AT_0)
    return table


def test_a_timed_event_is_stamped_on_the_agreed_clock_from_its_trigger_s_shown_time() -> None:
    table = dealt()
    driver, clock = table.driver, table.clock
    clock.advance(1000.0)
    seq = table.state.seq
    table.slap(0, at=0.0)  # seat 0 opens a window: event ``seq`` shown now, at 1000
    assert driver.shown[seq] == 1000.0
    clock.advance(250.0)
    stamped = driver.stamp(Slap(seat=1, trigger=seq))
    assert stamped == Slap(seat=1, t_sync=1250.0, trigger=seq, rt=250.0)
    driver.show(seq, 1100.0)  # no screen paints this table: the apply's stamp stands
    assert driver.shown[seq] == 1000.0
    assert driver.stamp(Close()) == Close()  # not a timed event: as it was


def test_where_a_screen_paints_the_table_an_event_is_shown_when_it_is_painted() -> None:
    """One writer of the shown time (issue 26): the paint where a screen shows the table, not the
    apply; an event of the round before the deal is not shown again."""
    table = dealt()
    driver, clock = table.driver, table.clock
    driver.painted_by_screen = True
    clock.advance(1000.0)
    seq = table.state.seq
    table.slap(0, at=0.0)
    assert seq not in driver.shown  # applied, not painted yet: a reaction to it has no time yet
    assert driver.stamp(Slap(seat=1, trigger=seq)).rt is None
    driver.show(seq, 1100.0)  # a person saw it when the screen painted it
    assert driver.stamp(Slap(seat=1, trigger=seq), pressed_ms=1200.0) == Slap(1, 1200.0, seq, 100.0)
    driver.show(0, 1150.0)  # the deal's round started after event 0: it is never shown again
    assert 0 not in driver.shown


def test_the_agreed_clock_of_a_key_press_keeps_the_press_s_age() -> None:
    local, agreed = [5000.0], [9000.0]

    class Ticking(SystemClock):
        def local_ms(self) -> float:
            return local[0]

    clock = Ticking(agreed=lambda: agreed[0])
    driver = TableDriver(dealt().engine, dealt().deck, clock)
    assert clock.agreed_ms() == 9000.0
    assert driver.agreed_at(4900.0) == 8900.0  # pressed 100 ms ago


def test_a_new_round_forgets_the_last_one_s_shown_times_and_timers() -> None:
    table = dealt()
    driver, clock = table.driver, table.clock
    table.everyone_slaps(0, {1: 100.0, 3: 200.0})  # seat 2 has not slapped: the window awaits its close
    close = next(d for d in table.engine.awaiting() if d.kind == "close")
    first_due = driver.timer_due(close)
    clock.advance(500.0)
    assert driver.timer_due(close) == first_due  # due from when it was first awaited
    table.fire("close")
    new_round = table.state.seq
    assert min(driver.shown) < new_round
    table.deal()
    assert min(driver.shown) == new_round  # no reaction may name an event of the last round
    assert driver.timer_due(close) == clock.now_ms + (close.after_ms or 0.0)


def test_fulfils_a_table_timer_and_a_reveal_but_not_a_seed() -> None:
    table = ScriptedKilo(4)
    table.start()
    table.act(table.rules.codec.decode({"kind": "deal", "seed": b"s" * 32}), settle=False)
    announce = next(d for d in table.engine.awaiting() if d.kind == "announce")
    event = table.driver.fulfil(announce)
    assert event is not None and event.kind == "announce"
    assert table.driver.fulfil(Duty("close", after_ms=10.0)) == Close()
    assert table.driver.fulfil(Duty("shuffle")) is None  # a seed: the host's business


def test_a_bot_plans_and_keeps_its_timing_while_it_wants_the_same_event() -> None:
    table = dealt()  # seat 0 holds four kings at the checkpoint
    driver, clock = table.driver, table.clock
    driver.bots = {0: Bot(0, "greedy", profile=CALM)}
    driver.wake([0])
    plan = driver.plans[0]
    assert plan.decision.event == Slap(seat=0)
    clock.advance(1.0)
    driver.wake([0])  # looks again, wants the same slap: the plan and its time stay
    assert driver.plans[0] is plan and driver.next_due() == plan.due
    clock.set(plan.due)
    seat, event = driver.take()
    assert (seat, event) == (0, Slap(seat=0, t_sync=plan.due))
    assert not driver.plans and driver.next_due() is None


def test_a_bot_drops_its_plan_when_it_has_nothing_to_do_any_more() -> None:
    table = dealt()
    driver = table.driver
    driver.bots = {0: Bot(0, "random", profile=CALM)}
    driver.wake([0])
    assert driver.plans[0].decision.event == Slap(seat=0)
    table.pass_any(table.state.turn)  # off the checkpoint: the kings are no combo to slap now
    driver.wake([0])
    plan = driver.plans.get(0)
    assert plan is None or plan.decision.event != Slap(seat=0)


def test_the_seats_an_event_concerns() -> None:
    driver = dealt().driver
    assert driver.concerned([{"kind": "passed", "wake": [1, 2]}]) == [1, 2]
    assert driver.concerned([{"kind": "passed", "wake": [1]}, {"kind": "other"}]) == [0, 1, 2, 3]
    assert driver.concerned([{"kind": "passed", "wake": ()}]) == []
    driver.bots = {0: Bot(0, "greedy", profile=CALM)}
    driver.wake([0])  # seat 0 plans to slap its kings
    # The game's hints say who has news: a plan of a seat the event does not concern stands.
    assert driver.concerned([{"kind": "passed", "wake": [1]}]) == [1] and 0 in driver.plans


def test_a_fake_clock_moves_only_forward_and_only_when_told() -> None:
    clock = FakeClock()
    clock.advance(5.0)
    clock.set(2.0)
    assert clock.local_ms() == clock.agreed_ms() == 5.0


def test_the_base_game_wakes_only_the_receiver_of_a_pass_between_checkpoints() -> None:
    table = dealt()
    assert table.kilo.checkpoint  # everyone holds 4 when passing starts
    (leaving,) = table.pass_any(table.state.turn)
    # Leaving a checkpoint: a planned slap may now be false, so every seat with a plan looks again.
    assert leaving["wake"] == (table.state.turn,) and leaving["replan"]
    (between,) = table.pass_any(table.state.turn)
    assert between["wake"] == (table.state.turn,)
    table.pass_any(table.state.turn)
    (reaching,) = table.pass_any(table.state.turn)
    assert table.kilo.checkpoint and "wake" not in reaching


def test_an_effect_that_may_spoil_plans_wakes_every_seat_with_one() -> None:
    table = dealt()
    driver = table.driver
    driver.bots = {0: Bot(0, "greedy", profile=CALM), 2: Bot(2, "greedy", profile=CALM)}
    driver.wake([0, 2])
    assert set(driver.plans) == {0}  # seat 0 plans to slap its kings; seat 2 has nothing to do
    assert driver.concerned([{"kind": "passed", "wake": (1,), "replan": True}]) == [0, 1]


def test_a_seat_keeps_its_latest_private_notes_only() -> None:
    """A partner who floods notes cannot fill memory: the deck keeps the latest ``MAX_NOTES`` per seat,
    and the latest note is still the one a game reads."""
    deck = OpenDeck()
    for index in range(MAX_NOTES * 3):
        deck.note(PrivateNote(sender=0, to=2, data={"n": index}))
    for seat in (0, 2):
        kept = deck.notes[seat]
        assert len(kept) == MAX_NOTES and kept[-1].data == {"n": MAX_NOTES * 3 - 1}


def test_a_virtual_time_loop_jumps_to_its_timers_and_every_clock_follows() -> None:
    """``run_virtual``: an hour of sleeps and timers on a loop whose clock jumps; the peer's clocks
    (``monotonic_ms``, ``SystemClock``) read the loop's."""
    fired: list[float] = []

    async def main() -> tuple[float, float]:
        loop = asyncio.get_running_loop()
        start = monotonic_ms()
        loop.call_later(1800.0, lambda: fired.append(monotonic_ms() - start))
        await asyncio.sleep(3600.0)
        return monotonic_ms() - start, SystemClock().local_ms() - start

    slept, system = run_virtual(main())
    assert slept == system == 3_600_000.0 and fired == [1_800_000.0]
