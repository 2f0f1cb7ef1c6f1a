"""Kem's at people's pace (issue "A first evening that works"): where a person sits, the silent accept
of « Balayage ? » and the refuser's exchange give a person at least 10 s, and bots ask « Balayage ? »
no sooner than a person would; totals read as totals and a call's gain as a gain; the hands kept at
the deal fill the log no more. A bots-only table keeps the table's own times.
"""

from __future__ import annotations

from kdm.agents import PEOPLE_THINK_MS, Bot
from kdm.engine import Duty
from kdm.manager import Rules
from kdm.plugins.kems.bots import PEOPLE_SWEEP_WAIT_MS
from kdm.plugins.kems.events import Sweep, SweepAnswer
from kdm.plugins.kems.rules import PEOPLE_ANSWER_MS, kems
from kdm.testing import ScriptedTable
from kdm.tui.text import say
from tests.helpers.kems import NEXT, TURNED, deal
from tests.helpers.kems_screen import agree_sign, left_shows
from tests.helpers.kems_screen import kems_table as kems_screen
from tests.helpers.tui import run, until

NAMES = ["Ana", "Bea", "Chloé", "Dan"]


def kems_table(people: tuple[int, ...] = (), **options: object) -> ScriptedTable:
    return ScriptedTable(4, dict(options), variants=["kems"], seed=b"kems tempo", people=people)


def timers(table: ScriptedTable) -> list[tuple[str, float | None]]:
    return [(duty.kind, duty.after_ms) for duty in table.engine.awaiting() if duty.after_ms is not None]


def test_rule_3_4_3_a_person_has_at_least_10_s_to_answer_the_sweep() -> None:
    table = kems_table(people=(3,), sweep_answer_ms=5000)
    deal(table, turned=TURNED, talon=NEXT)
    table.fire("quiet")
    table.act(Sweep(seat=1))
    assert timers(table) == [("sweep_time", PEOPLE_ANSWER_MS)] and PEOPLE_ANSWER_MS >= 10000


def test_rule_3_4_3_a_longer_answer_time_than_10_s_stands_at_a_table_of_people() -> None:
    table = kems_table(people=(3,), sweep_answer_ms=15000)
    deal(table, turned=TURNED, talon=NEXT)
    table.fire("quiet")
    table.act(Sweep(seat=1))
    assert timers(table) == [("sweep_time", 15000)]


def test_rule_3_4_3_a_person_who_refuses_has_at_least_10_s_to_exchange() -> None:
    table = kems_table(people=(3,))
    deal(table, turned=TURNED, talon=NEXT)
    table.fire("quiet")
    table.act(Sweep(seat=1))
    table.act(SweepAnswer(seat=3, accept=False))
    asked_at, hand = kems(table.state).sweep_asked_at, tuple(table.state.hands[3])
    assert table.engine.awaiting() == [
        Duty("exchange", seat=3, tokens=hand, after_ms=PEOPLE_ANSWER_MS, ref=asked_at)
    ]


def test_rule_3_4_3_a_bot_that_refuses_has_the_tables_time_even_among_people() -> None:
    table = kems_table(people=(3,))
    deal(table, turned=TURNED, talon=NEXT)
    table.fire("quiet")
    table.act(Sweep(seat=1))
    table.act(SweepAnswer(seat=2, accept=False))
    assert timers(table) == [("exchange", 5000)]


def test_rule_3_4_3_a_bots_only_table_keeps_sweep_answer_ms() -> None:
    table = kems_table(sweep_answer_ms=5000)
    deal(table, turned=TURNED, talon=NEXT)
    table.fire("quiet")
    table.act(Sweep(seat=1))
    assert timers(table) == [("sweep_time", 5000)]


def test_a_bot_at_a_table_of_people_asks_for_a_sweep_no_sooner_than_a_person() -> None:
    for people, least in (((0,), PEOPLE_SWEEP_WAIT_MS + PEOPLE_THINK_MS[0]), ((), 0.0)):
        table = kems_table(people=people)
        bot = Bot(1, seed=b"sweeper")
        table.driver.bots[1] = bot
        deal(table, turned=TURNED, talon=NEXT)
        table.fire("quiet")
        table.driver.wake([1])
        plan = table.driver.plans[1]
        assert isinstance(plan.decision.event, Sweep) and bot.paced == bool(people)
        assert plan.decision.delay_ms >= least
        if not people:  # among bots it asks as soon as it has thought, as before
            assert plan.decision.delay_ms < PEOPLE_SWEEP_WAIT_MS


def test_totals_read_as_totals_and_a_calls_gain_as_a_gain() -> None:
    rules = Rules.for_table(["kems"])
    over = {"kind": "round_over", "round": 2, "scores": [3, 1]}
    assert rules.describe(over, "en", NAMES) == "end of deal 2; totals: Ana and Chloé 3, Bea and Dan 1"
    result = {"kind": "call_result", "seat": 2, "call": "kems", "target": -1, "result": "confirmed",
              "points": 1, "scores": [3, 1]}  # fmt: skip
    line = rules.describe(result, "en", NAMES)
    assert line is not None and "confirmed, +1 point; totals: Ana and Chloé 3, Bea and Dan 1" in line
    french = rules.describe({**result, "points": -2, "result": "failed"}, "fr", NAMES)
    assert french is not None and "raté, -2 points ; totaux : Ana et Chloé 3, Bea et Dan 1" in french


def test_a_hand_kept_at_the_deal_says_nothing_and_a_redraw_says_why() -> None:
    rules = Rules.for_table(["kems"])
    assert not rules.describe({"kind": "hand_kept", "seat": 1}, "en", NAMES)
    redrawn = rules.describe({"kind": "redrawn", "seat": 1, "cards": ["7H", "7S", "7D"]}, "en", NAMES)
    assert redrawn is not None and "three or more of a rank" in redrawn and "draws again" in redrawn


# --- the footer offers only what can be done now (pipe input, as tests/test_tui_kems.py) -------------


def test_the_footer_offers_no_call_while_balayage_is_open_and_only_the_refuser_exchanges() -> None:
    def footer(text: str) -> str:
        return text.splitlines()[-1]

    async def scene() -> None:
        async with kems_screen(options={"sweep_after_ms": 0}) as t:
            await agree_sign(t)
            await until(lambda: kems(t.state).sweepable, "a sweep askable")
            await t.shows("b sweep")
            assert "k d c" in footer(t.text()) and "Enter exchange" in footer(t.text())  # the hunt
            await t.act(1, Sweep(seat=1))
            await t.shows("« Balayage ? » player1 asks: y or n")
            text = footer(t.text())
            assert text.startswith(" y yes  n no") and "k d c" not in text and "Enter exchange" not in text
            await t.act(2, SweepAnswer(seat=2, accept=False))
            await left_shows(t, "player2 refused the sweep: they exchange")
            text = footer(t.text())
            assert "k d c" not in text and "Enter exchange" not in text and "g gesture" in text
            assert say("en", "hand") in t.text()

    run(scene)
