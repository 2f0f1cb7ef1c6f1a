"""The terminal table with house rules (RULES 2), headless, in the scenes of ``test_tui``: four peers on a
log that commits at once, one seat on screen through the real ``TableApp``, keys down a pipe, and what the
player sees read from the renderer's last 80×24 screen.

Each variant's keys send its event (a grab stamped like a slap, a pile chosen, the direction steered, GO
called, a card chosen for GO on any turn) and its panel shows its data. Where no key can get the table
into a state (a 7 in reserve, a barred seat, a joker drawn: they come from shuffles no test chooses), the
test sets that state in the screen's own peer and checks the rendering.
"""

from __future__ import annotations

import asyncio
import io
import re
from typing import cast

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output.vt100 import Vt100_Output

from kdm import cli
from kdm.cards import JOKER, pretty
from kdm.engine import SeatView
from kdm.errors import UsageError
from kdm.events import Event
from kdm.net.clock import monotonic_ms
from kdm.plugins import seven_in_reserve_screen as reserve_screen
from kdm.plugins.all_at_once import Go
from kdm.plugins.all_at_once_screen import next_change_s, seconds_left
from kdm.plugins.kilo import rules as kilo
from kdm.plugins.kilo.calls import GO_CALL
from kdm.plugins.kilo.events import Feint, Slap
from kdm.plugins.kilo.screen.text import WORDS as KILO_WORDS
from kdm.plugins.kilo.testing import ScriptedKilo
from kdm.plugins.seven_in_reserve import KeepSeven
from kdm.plugins.spoons import Grab
from kdm.plugins.spoons_screen import RENAMES as SPOONS_RENAMES
from kdm.tui.app import MIN_REDRAW_S
from kdm.tui.command import run_play
from kdm.tui.extension import Screen
from kdm.tui.panels import LEFT_COLUMN
from tests.helpers.deals import KINGS_AT_0, SEAT_2_LAST
from tests.helpers.tui import Table, play_args, run, table, until


def view_of(t: Table) -> SeatView:
    view = t.peers[t.me].view()
    assert view is not None
    return view


def hand_face(t: Table, token: int) -> str:
    face = dict(view_of(t).hand)[token]
    assert face is not None
    return pretty(face)


async def slap_falsely_and_lose(t: Table) -> None:
    """Our slap away from a checkpoint opens a false window; the others follow, and we draw."""
    await t.away_from_checkpoint()
    await t.press(" ", lambda: t.state.phase == "window", "our slap opened a window")
    opener = t.state.rules["kilo"].window.opened_by
    for seat in (1, 2, 3):
        await t.act(seat, Slap(seat=seat, t_sync=monotonic_ms(), trigger=opener, rt=100.0 + 50.0 * seat))
    await until(lambda: t.state.phase == "drawing", "the window judged")


# --- spoons -------------------------------------------------------------------------------------------


def test_spoons_space_grabs_a_spoon_timed_like_a_slap_and_the_table_shows_who_holds_one() -> None:
    async def scene() -> None:
        async with table(variants=["spoons"], options={"grab_grace_ms": 0}) as t:
            await t.shows("spoons on the table: 3")
            assert "grab now: Space" in t.text() and "slap now" not in t.text()  # a checkpoint
            await t.away_from_checkpoint()
            await t.shows("Space grab")
            await t.act(1, Feint(seat=1, t_sync=monotonic_ms()))
            feint = t.state.rules["kilo"].last_feint
            await until(lambda: feint in t.screen.painted, "the feint painted")
            before = monotonic_ms()
            await t.press(" ", lambda: len(t.log.events("grab", seat=0)) == 1, "our grab proposed")
            grab = t.log.events("grab", seat=0)[0]
            assert not t.log.events("slap")  # at this table the pile is not slapped
            # Stamped like a slap: the press on the agreed clock, the feint seen as its trigger.
            assert before + 1000.0 <= grab["t_sync"] <= monotonic_ms() + 1000.0
            shown = t.peers[0].driver.shown[feint]
            assert grab["trigger"] == feint and 0.0 <= grab["rt"] <= monotonic_ms() - shown
            await t.shows("✋ GRAB! player0 grabs first")
            await t.shows("spoons left: 2 of 3")
            assert "held by player0" in t.text()
            opener = t.state.rules["kilo"].window.opened_by
            await until(lambda: opener in t.screen.painted, "the opener painted")
            await t.act(1, Grab(seat=1, t_sync=monotonic_ms(), trigger=opener, rt=120.0))
            await t.shows("spoons left: 1 of 3")
            assert "held by player0, player1" in t.text()
            assert re.search(r"1 player1 .*✋", t.text())
            t.keys.send_text(" ")
            await t.shows("you have already grabbed")
            assert len(t.log.events("grab", seat=0)) == 1
            await t.act(2, Grab(seat=2, t_sync=monotonic_ms(), trigger=opener, rt=150.0))
            # The third spoon is taken: the window closes without the last player, a false first grab.
            await t.shows("false grab by player0")

    run(scene)


def test_spoons_in_french() -> None:
    async def scene() -> None:
        async with table(lang="fr", variants=["spoons"]) as t:
            await t.shows("cuillères sur la table : 3")
            assert "attrapez : Espace" in t.text()  # a checkpoint: a grab may count now
            await t.away_from_checkpoint()
            await t.shows("Espace attrape")

    run(scene)


# --- piles --------------------------------------------------------------------------------------------


def test_piles_shows_each_pile_and_the_loser_chooses_one_with_a_digit() -> None:
    async def scene() -> None:
        async with table(variants=["piles"]) as t:

            def shown_sizes() -> list[int]:
                found = re.search(r"piles:\s+1:(\d+)\s+2:(\d+)\s+3:(\d+)", t.text())
                return [int(size) for size in found.groups()] if found else []

            await until(lambda: shown_sizes() == list(view_of(t).rules["piles"].sizes), "the piles' sizes")
            await slap_falsely_and_lose(t)
            await t.shows("your draw: choose a pile, 1-3")
            assert t.text().splitlines()[-1].startswith(" 1-3 choose a pile")
            selected = t.play.selected
            await t.press("7", lambda: "there is no pile 7" in t.text(), "a pile that is not there")
            before = shown_sizes()
            await t.press("2", lambda: bool(t.log.events("choose_pile")), "our choice proposed")
            assert t.log.events("choose_pile") == [{"kind": "choose_pile", "seat": 0, "pile": 1}]
            assert t.play.selected == selected  # the digits chose a pile, not a card
            await until(lambda: shown_sizes() == [before[0], before[1] - 1, before[2]], "pile 2 drawn from")
            await t.shows("draws from pile 2")  # the log counts piles as people do, from 1
            assert "choose a pile" not in t.text()

    run(scene)


# --- all at once --------------------------------------------------------------------------------------


def test_all_at_once_enter_chooses_the_card_for_go_on_any_turn_and_may_change_it() -> None:
    async def scene() -> None:
        async with table(variants=["all_at_once"], options={"direction": "left"}) as t:
            starter = t.state.rules["kilo"].starter
            if starter == t.me:
                await t.sit((starter + 1) % 4)  # a player who does not call GO
            me = t.me
            await t.shows(f"GO: player{starter} calls it")
            await t.shows("choose a card for GO, then Enter")
            hand = list(t.state.hands[me])
            await t.press("2\r", lambda: len(t.log.events("pass", seat=me)) == 1, "a card chosen")
            assert t.log.events("pass", seat=me)[0]["token"] == hand[1]
            await t.shows(f"you pass {hand_face(t, hand[1])} at GO")
            assert re.search(rf"{me} player{me} \(you\) .*✓", t.text()) and "cards chosen: 1/4" in t.text()
            await t.press("3\r", lambda: len(t.log.events("pass", seat=me)) == 2, "another card chosen")
            assert t.log.events("pass", seat=me)[1]["token"] == hand[2]
            await t.shows(f"you pass {hand_face(t, hand[2])} at GO")
            await t.press("g", lambda: f"player{starter} calls GO, not you" in t.text(), "told who calls")
            assert not t.log.events("go")
            await t.act(starter, Go(seat=starter))
            await until(lambda: hand[2] in t.state.hands[(me + 1) % 4], "our card passed left at GO")
            await t.shows(GO_CALL)

    run(scene)


def test_all_at_once_the_starter_steers_and_calls_go_with_keys() -> None:
    async def scene() -> None:
        async with table(variants=["all_at_once"]) as t:
            starter = t.state.rules["kilo"].starter
            if starter != t.me:
                await t.sit(starter)
            await t.shows("choose the direction: < left  > right")
            assert "passing" not in t.text().splitlines()[0]  # no direction until the starter steers
            await t.press("g", lambda: "choose the direction first" in t.text(), "GO refused before steering")
            await t.press(">", lambda: bool(t.log.events("steer")), "steered")
            assert t.log.events("steer") == [{"kind": "steer", "seat": starter, "direction": "right"}]
            await t.shows("passing right ↑")
            await t.shows("GO: you call it, with g")
            assert " g GO!" in t.text().splitlines()[-1]
            token = t.state.hands[starter][0]
            await t.press("1\r", lambda: bool(t.log.events("pass", seat=starter)), "a card chosen")
            await t.shows("at GO")
            await t.press("g", lambda: bool(t.log.events("go")), "GO called")
            assert t.log.events("go") == [{"kind": "go", "seat": starter}]
            await until(lambda: token in t.state.hands[(starter - 1) % 4], "our card passed right at GO")
            await t.press("?", lambda: t.screen.help_open, "help open")
            await t.shows("g            the starter calls « 1, 2, 3, GO ! »")
            assert "At this table (all_at_once):" in t.text()

    run(scene)


def test_all_at_once_the_table_calls_go_after_a_countdown() -> None:
    async def scene() -> None:
        options = {"direction": "left", "go_interval_ms": 60000}
        async with table(variants=["all_at_once"], options=options) as t:
            await t.shows("(the table calls it)")
            found = re.search(r"GO in (\d+) s \(the table calls it\)", t.text())
            assert found is not None and 55 <= int(found.group(1)) <= 60, t.text()
            await t.press("g", lambda: "the table calls GO on its own" in t.text(), "g refused")
            assert not t.log.events("go")

    run(scene)


def test_the_go_countdown_redraws_itself_each_second() -> None:
    """Nothing else changes at the table: the screen's countdown loop redraws when a second is gone."""

    async def scene() -> None:
        async with table(
            variants=["all_at_once"], options={"direction": "left", "go_interval_ms": 60000}
        ) as t:
            await t.shows("(the table calls it)")
            found = re.search(r"GO in (\d+) s", t.text())
            assert found is not None, t.text()
            for shown in range(int(found.group(1)) - 1, int(found.group(1)) - 4, -1):
                await t.shows(f"GO in {shown} s")

    run(scene)


def test_a_paint_just_before_the_countdown_s_next_second_redraws_it_once() -> None:
    """A paint (a key, a notice) that lands within the countdown's shortest wait of its next second is
    not taken for the countdown's own time to redraw: that redraw's paint would be too, and so on."""

    async def scene() -> None:
        async with table(
            variants=["all_at_once"], options={"direction": "left", "go_interval_ms": 60000}
        ) as t:
            await t.shows("(the table calls it)")
            loop, paints = asyncio.get_running_loop(), []

            def painted() -> None:
                paints.append(loop.time())
                assert len(paints) < 20, "the countdown redraws again and again"

            t.app.painted_listeners.append(painted)
            due_ms = t.screen.due_in_ms(Go.kind)
            assert due_ms is not None
            wait = next_change_s(due_ms)
            assert wait is not None
            await asyncio.sleep(max(0.0, wait - MIN_REDRAW_S / 2))
            paints.clear()
            t.app.invalidate()
            await asyncio.sleep(0.5)
            assert 1 <= len(paints) <= 3, paints

    run(scene)


def test_the_go_countdown_counts_whole_seconds_up() -> None:
    assert seconds_left(10_000.0) == 10 and seconds_left(999.5) == 1
    assert seconds_left(0.0) == 0 and seconds_left(-2_000.0) == 0
    assert next_change_s(9_500.0) == pytest.approx(0.5) and next_change_s(9_000.0) == 1.0
    assert next_change_s(0.0) is None


# --- seven in reserve, marathon, jokers ---------------------------------------------------------------


def test_a_seven_in_reserve_barred_seats_and_jokers_are_shown() -> None:
    async def scene() -> None:
        async with table(variants=["marathon", "seven_in_reserve", "jokers"]) as t:
            # These states come from shuffles no test chooses: set them in the screen's own peer.
            state = t.state
            table_data = kilo.table(state)
            table_data.barred += [0, 2]
            shown = list(table_data.shown_kilos)
            shown[1], shown[3] = ("7H",), (JOKER, "8C")
            table_data.shown_kilos = tuple(shown)
            state.rules["seven_in_reserve"].kept[1] = 0
            state.scores[3] = 1008
            t.peers[0].deck.rig({state.hands[0][0]: JOKER})
            await t.act(3, Feint(seat=3, t_sync=monotonic_ms()))  # an event: the screen looks again
            await t.shows("⊘ may not open a window")
            text = t.text()
            assert re.search(r"0 player0 \(you\) .*⊘", text) and re.search(r"2 player2 .*⊘", text)
            assert re.search(r"1 player1 .*7♥", text) and "7♥ in reserve" in text
            assert re.search(r"3 player3 .* 1008", text)
            hand_line = next(line for line in text.splitlines() if line.startswith(" 1 "))
            assert hand_line.startswith(" 1  JOKER ")
            await t.press(" ", lambda: "you may not open a window again this round" in t.text(), "barred")
            assert not t.log.events("slap")
            await t.press("s", lambda: t.screen.scores_open, "scores open")
            await t.shows("in front of each player")
            text = t.text()
            assert re.search(r"player3 +JOKER 8♣", text) and re.search(r"player1 +7♥ in reserve", text)

    run(scene)


def test_a_first_seven_is_offered_for_the_reserve_and_n_counts_it() -> None:
    """RULES 2.5: the hand's line asks the drawer of a first 7, y keeps it and n counts it (the screen
    part alone, on a scripted table: which 7 is drawn first comes from a shuffle no test chooses)."""
    scripted = ScriptedKilo(4, {"reserve_answer_ms": 600_000}, variants=["seven_in_reserve"])
    scripted.start(pile_top=["7H"])
    scripted.deal(KINGS_AT_0)
    scripted.everyone_slaps(0, SEAT_2_LAST)
    sent: list[Event] = []

    class Seat2:
        """What the screen part reads of the table screen, for seat 2."""

        seat, lang = 2, "en"

        def view(self) -> SeatView:
            return scripted.engine.view(2, scripted.deck.knowledge(scripted.state, 2))

        def say(self, key: str, **fields: object) -> str:
            words = {**reserve_screen.WORDS, **{k: (k, k) for k in ("hint_scores", "hint_help", "hint_quit")}}
            return words[key][0].format(**fields)

        def act(self, event: Event) -> bool:
            sent.append(event)
            return True

    screen = cast(Screen, Seat2())
    assert reserve_screen.hand_status(screen, screen.view()) == (
        "class:turn",
        "keep 7♥ in reserve? y keeps it (0 kg), n counts it (7 kg)",
    )
    assert reserve_screen.hints(screen, screen.view(), ["x"])[0] == "y/n keep the 7?"
    assert not reserve_screen.answer(screen, "o")  # not yes in English
    assert reserve_screen.answer(screen, "n") and sent == [KeepSeven(seat=2, keep=False)]
    scripted.act(sent[0])
    assert reserve_screen.hand_status(screen, screen.view()) is None and scripted.state.scores[2] == 7


# --- the whole screen ---------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [4, 10])
def test_a_variant_table_fits_80x24_without_colour(monkeypatch: pytest.MonkeyPatch, players: int) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    terminal = io.StringIO()
    output = Vt100_Output(terminal, lambda: Size(rows=24, columns=80), term="xterm-256color")

    async def scene() -> None:
        variants = ["piles", "all_at_once", "classic", "seven_in_reserve", "jokers"]
        options = {"go_interval_ms": 30000}
        async with table(output=output, variants=variants, options=options, players=players) as t:
            kilo.table(t.state).barred.append(players - 1)  # a mark on the last row, which must show
            await t.press("1\r", lambda: bool(t.log.events("pass", seat=0)), "a card chosen")
            await t.shows("cards chosen: 1/")
            lines = t.text().splitlines()
            assert len(lines) == 24 and lines[0].startswith(" kdm table «kitchen»")
            sizes = r"\s+".join(f"{pile}:\\d+" for pile in range(1, players))
            left_column = " ".join(line[:LEFT_COLUMN] for line in lines)  # the piles may take two lines
            assert re.search(rf"piles:\s+{sizes}", left_column), t.text()
            assert re.search(r"GO in \d+ s \(the table calls it\)", t.text())
            assert re.search(r"0 player0 \(you\) .*✓", t.text())
            assert re.search(rf"{players - 1} player{players - 1} .*⊘", t.text())
            assert lines[-1].rstrip().endswith("q quit") and lines[-5].startswith(" Your hand")

    run(scene)
    assert not re.search(r"\x1b\[[0-9;]*(38|48);5;", terminal.getvalue())  # no colour at all


# --- kdm play -----------------------------------------------------------------------------------------


def test_play_checks_variants_and_options_before_taking_the_terminal() -> None:
    with pytest.raises(UsageError, match="unknown variant 'nosuch'"):
        run_play(play_args("--bots", "3", "--variant", "nosuch"))
    with pytest.raises(UsageError, match="joker_kilos"):
        run_play(play_args("--bots", "3", "--variant", "jokers", "--option", "joker_kilos=heavy"))
    with pytest.raises(UsageError, match="choose one"):
        run_play(play_args("--bots", "3", "--variant", "spoons", "--variant", "piles"))
    # Good ones pass the check and reach the next: pytest's stdin is not a terminal.
    with pytest.raises(UsageError, match="needs a terminal"):
        run_play(play_args("--bots", "3", "--variant", "spoons", "--option", "grab_grace_ms=0"))


def test_play_says_a_bad_option_in_one_line_with_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["play", "--bots", "3", "--variant", "all_at_once", "--option", "go_interval_ms=5"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith("kdm play: error: option go_interval_ms")


def test_at_a_spoons_table_no_line_of_the_base_game_says_slap() -> None:
    """Spoons grabs instead of slapping: every word of the base game's screen that says "slap" is said
    otherwise there, but for the slap's banner (spoons flashes its own grab) and the help (spoons adds
    its line); a full run once dealt four queens, and the hand said "a combo: slap now!"."""
    slapping = {key for key, (english, _french) in KILO_WORDS.items() if "slap" in english.lower()}
    assert slapping - set(SPOONS_RENAMES) == {"slap_banner", "help"}
