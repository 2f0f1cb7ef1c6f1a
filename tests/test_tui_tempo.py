"""The base game's screen at people's pace (issue "A first evening that works"): the footer and the
hand line say what can be done now (slap now while a window is open or at a checkpoint, pass once a
held checkpoint is over, nothing but the table's keys while a round's result stays on screen), and a
press names the round it was made in. Pipe input, as tests/test_tui.py; every seat there is a person's.
"""

from __future__ import annotations

from kdm.net.clock import monotonic_ms
from kdm.plugins.kilo.events import Pass, Slap
from kdm.plugins.kilo.screen.text import say
from tests.helpers.tui import run, table, until


def footer(text: str) -> str:
    return text.splitlines()[-1]


def hand_line(text: str) -> str:
    return next(line for line in text.splitlines() if "Your hand" in line)


def test_the_footer_and_the_hand_line_say_slap_now_while_a_window_is_open() -> None:
    async def scene() -> None:
        async with table() as t:
            await t.others_pass_until_my_turn()
            await t.act(0, Pass(seat=0, token=t.state.hands[0][0]))
            if t.state.rules["kilo"].checkpoint:
                # Our pass ended a turn of the table (the deal had us pass first): every hand holds 4
                # again. The next seat passes, so that a slap now is false.
                await t.away_from_checkpoint()
            await until(lambda: not t.state.rules["kilo"].checkpoint, "away from the checkpoint")
            await t.shows("Space slap")
            assert "slap now" not in t.text()  # between checkpoints a slap is false: no "now"
            await t.act(2, Slap(seat=2, t_sync=monotonic_ms()))
            await t.shows("✋ slap now! (Space)")
            text = t.text()
            assert footer(text).startswith(" slap now: Space") and "Enter pass" not in footer(text)
            await t.press(" ", lambda: len(t.log.events("slap", seat=0)) == 1, "our slap proposed")
            await t.shows("you slapped: the others are slapping")
            text = t.text()
            assert "slap" not in footer(text) and "s scores" in footer(text)

    run(scene)


def test_a_held_checkpoint_says_slap_now_and_the_pass_waits_for_its_end() -> None:
    async def scene() -> None:
        async with table(options={"checkpoint_ms": 1500}) as t:
            starter = t.state.turn
            await t.sit(starter)  # the starter's screen: their pass waits for the hold's end
            kilo = t.state.rules["kilo"]
            assert kilo.hold is not None
            await t.shows("your turn: pass once the checkpoint is over")
            text = t.text()
            assert footer(text).startswith(" slap now: Space") and "Enter pass" not in footer(text)
            t.keys.send_text("\r")  # too early: the screen says why, and sends nothing
            await until(lambda: kilo.hold is None, "the checkpoint's hold over (its table timer)")
            await t.shows("your turn: pass a card")
            await t.shows("Enter pass")
            assert t.log.events("pass", seat=starter) == []
            await t.press("\r", lambda: len(t.log.events("pass", seat=starter)) == 1, "now the pass goes")

    run(scene)


def test_a_rounds_end_keeps_its_result_on_screen_and_offers_only_the_tables_keys() -> None:
    async def scene() -> None:
        async with table(options={"round_pause_ms": 3000}) as t:
            await t.act(1, Slap(seat=1, t_sync=monotonic_ms()))  # a false slap or not: the round ends
            opener = t.state.rules["kilo"].window.opened_by
            for seat in (2, 3, 0):
                await t.act(seat, Slap(seat=seat, t_sync=monotonic_ms(), trigger=opener, rt=100.0 + seat))
            await until(lambda: t.state.phase == "resting", "the round's rest")
            await t.shows(say("en", "next_round_soon"))
            text = t.text()
            assert "round 1 over" in text  # the result stays while the table rests
            assert footer(text).strip() == "s scores  ? help  q quit"
            await until(lambda: t.state.round == 2, "the next round dealt after the rest")

    run(scene)


def test_a_press_names_the_round_and_the_window_it_was_made_for() -> None:
    async def scene() -> None:
        async with table() as t:
            await t.act(2, Slap(seat=2, t_sync=monotonic_ms()))
            await t.shows("slap now! (Space)")
            await t.press(" ", lambda: len(t.log.events("slap", seat=0)) == 1, "our slap proposed")
            slap = t.log.events("slap", seat=0)[0]
            assert slap["round"] == 1 and slap["trigger"] == t.state.rules["kilo"].window.opened_by

    run(scene)
