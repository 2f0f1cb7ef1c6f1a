"""The terminal table's logic, headless: pipe input, an 80×24 ``DummyOutput``, and a fake consensus.

Four peers share a log that commits every proposal at once (``kdm.testing.FakeLog``); seat 0 is played
from the keyboard through the real ``TableApp``, the other seats act when a test tells them to, so every
scene is exact (``tests/helpers/tui.py``). What the player would see is read from the renderer's last
screen.
"""

from __future__ import annotations

import io
import os
import re
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output.vt100 import Vt100_Output

from kdm.agents import Bot
from kdm.cards import pretty
from kdm.errors import UsageError
from kdm.net.clock import monotonic_ms
from kdm.notices import Applied
from kdm.peer import Peer
from kdm.plugins.kilo.events import Feint, Pass, Slap
from kdm.plugins.kilo.screen.text import WORDS as KILO_WORDS
from kdm.plugins.kilo.screen.text import say
from kdm.tui.command import run_play, stderr_to
from kdm.tui.panels import LEFT_COLUMN
from kdm.tui.state import BACK_LOOK_S, LOST_AFTER_MS
from kdm.tui.text import CATALOGUE, as_argument
from tests.helpers.deals import dealing_no_combos
from tests.helpers.tui import (
    Screen80x24,
    assert_both_languages,
    hand_faces,
    play_args,
    run,
    table,
    until,
)

# --- the table screen -------------------------------------------------------------------------------


def test_a_pass_chosen_with_a_digit_and_enter_reaches_the_log_and_the_hand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dealing_no_combos(monkeypatch)  # a combo at the deal would ask seat 0 to slap, not to pass

    async def scene() -> None:
        async with table() as t:
            await t.others_pass_until_my_turn()
            await t.shows("your turn: pass a card")
            before = list(t.state.hands[0])
            await t.press("2", lambda: t.play.selected == 1, "the second card chosen")
            await t.press("\r", lambda: len(t.log.events("pass", seat=0)) == 1, "our pass proposed")
            assert t.log.events("pass", seat=0)[0]["token"] == before[1]
            await until(lambda: before[1] not in t.state.hands[0], "our pass applied")
            await t.shows("player0 passes to player")
            assert "your turn" not in t.text()
            t.keys.send_text("\r")  # not our turn any more: nothing is sent, the player is told
            await t.shows("not your turn to pass")
            assert len(t.log.events("pass", seat=0)) == 1

    run(scene)


def test_arrows_choose_and_the_hand_shows_suits() -> None:
    async def scene() -> None:
        async with table() as t:
            await t.press("\x1b[C", lambda: t.play.selected == 1, "→ moves right")
            await t.press("\x1b[D\x1b[D", lambda: t.play.selected == len(hand_faces(t)) - 1, "← wraps")
            suits = set("♠♥♦♣")
            hand_line = next(line for line in t.text().splitlines() if line.startswith(" 1 "))
            assert len([c for c in hand_line if c in suits]) == len(hand_faces(t))

    run(scene)


def test_a_slap_is_timed_shown_at_once_and_the_window_result_follows() -> None:
    async def scene() -> None:
        async with table() as t:
            if t.state.rules["kilo"].checkpoint:  # after the deal, before any pass: a checkpoint
                await t.shows("● everyone holds 4: a combo? slap!")
            await t.others_pass_until_my_turn()
            if t.state.rules["kilo"].checkpoint:
                # We started the passing, so our turn came back at a checkpoint, where the deal may have
                # given us a real combo: pass once, so that a hand of 5 makes the slap false whatever we hold.
                await t.away_from_checkpoint()
            await until(lambda: "everyone holds 4" not in t.text(), "the checkpoint's marker gone")
            before = monotonic_ms()
            await t.press(" ", lambda: len(t.log.events("slap", seat=0)) == 1, "our slap proposed")
            slap = t.log.events("slap", seat=0)[0]
            # No slap or feint was shown before: no trigger, the press time on the agreed clock.
            assert slap["trigger"] is None and slap["rt"] is None
            assert before + 1000.0 <= slap["t_sync"] <= monotonic_ms() + 1000.0
            await t.shows("✋ SLAP! player0 opens a window")
            opener = t.state.rules["kilo"].window.opened_by
            await until(lambda: opener in t.screen.painted, "the opener painted")
            for seat in (1, 2, 3):
                await t.act(seat, Slap(seat=seat, t_sync=monotonic_ms(), trigger=opener, rt=100.0 * seat))
            # A slap when every hand did not hold 4 (or without a combo) is false: its instigator draws.
            await t.shows("false slap by player0")
            result = t.play.result
            # Not every hand held 4: "late" when the slap follows the pass that left a checkpoint.
            assert result is not None and result.reason in ("late", "not_four")
            await t.shows(say("en", f"why_{result.reason}", name="player0"))  # the reason, under the verdict
            text = t.text()
            # Followers are ordered by reaction time to the opener: eff = eff(opener) + rt.
            for entry in ("1. player0 +0ms", "2. player1 +100ms", "3. player2 +200ms", "4. player3 +300ms"):
                assert entry in text, text
            assert "draws: player0" in text and "player0 draws" in text

    run(scene)


def test_a_press_before_the_clock_is_agreed_again_is_held_back_with_a_word_then_counts() -> None:
    """A process started again knows the leader's clock only after its first sample: a press stamped on
    its own clock before that would be refused by the leader or placed wrongly in the window."""

    async def scene() -> None:
        async with table() as t:
            await t.sit(1)
            unsampled = types.SimpleNamespace(offset_ms=None)  # the clock of a process just started again
            t.peers[1].node.clock = unsampled  # type: ignore[attr-defined]
            t.keys.send_text(" ")
            await t.shows(say("en", "clock_settling"))
            t.keys.send_text("f")
            await until(lambda: t.screen.message == say("en", "clock_settling"), "the feint held back too")
            assert t.log.events("slap", seat=1) == [] and t.log.events("feint", seat=1) == []
            unsampled.offset_ms = 0.0  # the first pong from the leader
            await t.press(" ", lambda: len(t.log.events("slap", seat=1)) == 1, "the slap proposed")

    run(scene)


def test_a_feint_shows_distinctly_and_a_slap_after_it_names_it_as_trigger() -> None:
    async def scene() -> None:
        async with table() as t:
            await t.act(1, Feint(seat=1, t_sync=monotonic_ms()))
            feint = t.state.rules["kilo"].last_feint
            await t.shows("✋ … player1 raises a hand")
            assert "SLAP" not in t.text()
            await until(lambda: feint in t.screen.painted, "the feint painted")
            painted_at = t.peers[0].driver.shown[feint]
            await t.press(" ", lambda: len(t.log.events("slap", seat=0)) == 1, "our slap proposed")
            slap = t.log.events("slap", seat=0)[0]
            assert slap["trigger"] == feint
            assert 0.0 <= slap["rt"] <= monotonic_ms() - painted_at
            await t.press("f", lambda: len(t.log.events("feint", seat=0)) == 1, "our feint proposed")

    run(scene)


def test_the_bell_rings_when_another_opens_a_window_not_for_a_feint_or_our_own_slap() -> None:
    async def scene() -> None:
        async with table() as t:
            rings: list[int] = []
            t.screen.bell = lambda: rings.append(t.state.seq)
            await t.act(1, Feint(seat=1, t_sync=monotonic_ms()))
            await t.shows("✋ … player1 raises a hand")
            await t.act(2, Slap(seat=2, t_sync=monotonic_ms()))
            await t.shows("✋ SLAP! player2 opens a window")
            assert rings == [t.state.rules["kilo"].window.opened_by + 1]  # once, for the window
            await t.press(" ", lambda: len(t.log.events("slap", seat=0)) == 1, "our slap proposed")
            await until(lambda: t.state.rules["kilo"].window.slapped(0), "our slap applied")
            assert len(rings) == 1  # joining a window rings nothing

    run(scene)


def test_slash_opens_a_chat_line_said_to_the_table_with_the_speakers_name() -> None:
    async def scene() -> None:
        async with table() as t:
            await t.press("/", lambda: t.screen.chat_draft == "", "the chat line open")
            await t.shows("say: ▏  Enter sends · Esc cancels")
            await t.press("qs hi!", lambda: t.screen.chat_draft == "qs hi!", "typed, not keys")
            assert not t.screen.confirm_quit and not t.screen.scores_open
            await t.press("\x7f\r", lambda: t.screen.chat_draft is None, "sent")
            await t.shows("player0: qs hi")
            assert all(record.chat == [(0, "qs hi")] for record in (p.record for p in t.peers))
            await t.press("/nope\x1b", lambda: t.screen.chat_draft is None, "Esc drops the line")
            t.peers[1].say("bonjour")
            await t.shows("player1: bonjour")
            t.peers[2].say("\x1b[2Jwiped")  # a control sequence: refused on every peer, never shown
            await until(
                lambda: any(e.get("t") == "chat" and e.get("seat") == 2 for e in t.log.decoded()), "said"
            )
            assert all(len(p.record.chat) == 2 for p in t.peers) and "wiped" not in t.text()

    run(scene)


def test_page_up_scrolls_the_log_back_and_page_down_returns_to_the_newest() -> None:
    async def scene() -> None:
        async with table() as t:
            await t.others_pass_until_my_turn()
            while len(t.screen.log) <= 10:  # a page and more (when we start, our pass comes first)
                await t.act(t.me, Pass(seat=t.me, token=t.state.hands[t.me][0]))
                await t.others_pass_until_my_turn()
            newest = t.screen.log[-1].text[:16]  # what fits the log panel's first row of it
            await t.shows(newest)
            await t.press("\x1b[5~", lambda: t.screen.log_back == 8, "PgUp")  # the terminal's PgUp
            await t.shows("↓ 8 newer lines: PgDn")
            await t.press("\x1b[6~", lambda: t.screen.log_back == 0, "PgDn")
            await until(lambda: "newer lines" not in t.text(), "back to the newest")
            await t.shows(newest)

    run(scene)


def test_an_event_is_shown_when_the_redraw_that_paints_it_ends() -> None:
    """Where a screen paints the table, the driver's shown time of an event has one writer, the paint
    (issue 26): nothing is stamped when it is applied, and a peer without a screen stamps at apply."""

    async def scene() -> None:
        async with table() as t:
            applied: dict[int, float | None] = {}
            t.peers[0].on_notice = _spy(t.peers[0].on_notice, applied, t.peers[0])
            before = monotonic_ms()
            await t.act(2, Feint(seat=2, t_sync=monotonic_ms()))
            feint = t.state.rules["kilo"].last_feint
            await until(lambda: feint in t.screen.painted, "the feint painted")
            assert applied[feint] is None  # applied: not shown yet
            assert before <= t.peers[0].driver.shown[feint] <= monotonic_ms()  # the paint's stamp
            assert t.peers[1].driver.shown[feint] >= before  # no screen there: shown when applied

    run(scene)


def _spy(previous: Any, applied: dict[int, float | None], peer: Peer) -> Callable[[Any], None]:
    def spy(notice: Any) -> None:
        if isinstance(notice, Applied):
            applied[notice.seq] = peer.driver.shown.get(notice.seq)
        previous(notice)

    return spy


def test_help_opens_and_closes() -> None:
    async def scene() -> None:
        async with table() as t:
            await t.press("?", lambda: t.screen.help_open, "help open")
            await t.shows("Space        slap the pile")
            await t.press("?", lambda: not t.screen.help_open, "help closed")
            await until(lambda: "slap the pile" not in t.text(), "help gone from screen")
            await t.press("s", lambda: t.screen.scores_open, "scores open")
            await t.shows("total")

    run(scene)


def test_quit_asks_first() -> None:
    async def scene() -> None:
        async with table() as t:
            await t.press("q", lambda: t.screen.confirm_quit, "asked")
            await t.shows("The game goes on without you. Leave? (y/n")
            await t.press(" ", lambda: not t.screen.confirm_quit, "any other key says no")
            assert not t.log.events("slap") and not t.screen.left
            await t.press("qy", lambda: t.screen.left, "left")

    run(scene)


@pytest.mark.parametrize("again", ["q", "\x03"], ids=["q", "ctrl-c"])
def test_quit_twice_quits(again: str) -> None:
    async def scene() -> None:
        async with table() as t:
            await t.press("\x03", lambda: t.screen.confirm_quit, "Ctrl-C asks")
            await t.press(again, lambda: t.screen.left, "the same key again leaves")

    run(scene)


def test_french_table() -> None:
    async def scene() -> None:
        async with table(lang="fr") as t:
            await t.shows("tapez : Espace")  # a checkpoint: a slap may count now
            for face in hand_faces(t):  # the court cards as French players read them: R, D, V
                assert pretty(face, "fr") in t.text()
            await t.press("q", lambda: t.screen.confirm_quit, "asked")
            await t.shows("Partir ? (o/n")
            await t.press("o", lambda: t.screen.left, "oui")

    run(scene)


def test_no_color_uses_attributes_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    terminal = io.StringIO()
    output = Vt100_Output(terminal, lambda: Size(rows=24, columns=80), term="xterm-256color")

    async def scene() -> None:
        async with table(output=output) as t:
            await t.others_pass_until_my_turn()
            await t.press(" ", lambda: bool(t.log.events("slap")), "slap")
            await until(lambda: "PAF" in terminal.getvalue() or "SLAP" in terminal.getvalue(), "slap drawn")

    run(scene)
    written = terminal.getvalue()
    assert "\x1b[7m" in written or ";7m" in written  # reverse video marks the chosen card and the slap
    assert not re.search(r"\x1b\[[0-9;]*(38|48);5;", written)  # and no colour at all


def test_every_string_exists_in_both_languages_with_the_same_fields() -> None:
    assert_both_languages(CATALOGUE)
    assert_both_languages(KILO_WORDS)
    assert not set(CATALOGUE) & set(KILO_WORDS)  # a word is every table's or the base game's
    assert say("fr", "seated", name="Zoé", seat=2) == "Zoé prend la place 2"


def test_the_waiting_room_lists_seats_and_adds_a_bot() -> None:
    added: list[bool] = []

    def add_bot() -> bool:
        added.append(True)
        return True

    async def scene() -> None:
        async with table(seated=2, add_bot=add_bot) as t:
            t.screen.invitation, t.screen.advertised = ["10.0.0.2:41000", "192.168.1.20:41000"], True
            t.screen.on_change()
            await t.shows("or by address: 10.0.0.2:41000,")
            text = t.text()
            assert "2 of 4 seats taken" in text
            assert say("fr", "seats_taken", taken=1, total=4) == "places prises : 1 sur 4"  # no "1 places"
            assert "player0 (you) · host" in text and "player1" in text and text.count("free seat") == 2
            assert "others join with: kdm play kitchen" in text and "b add a bot" in text
            # Issue 13: the panel wraps between words, never inside one ("ta│ken").
            left = [line[:LEFT_COLUMN] for line in text.splitlines()]
            rows = [row.strip() for row in left]
            assert "the game starts when every seat is" in rows and "taken" in rows
            assert all(len(row.rstrip()) < LEFT_COLUMN for row in left[1:]), left
            # A table's name with a space is quoted in the command to type.
            assert as_argument("Ana's table") == '"Ana\'s table"' and as_argument("kitchen") == "kitchen"
            await t.press("b", lambda: bool(added), "a bot asked for")
            await t.shows("a bot is on its way")
            await t.press("q", lambda: t.screen.left, "leaving a table that has not started: no question")

    run(scene)


def test_lost_and_returning_peers_and_a_seat_taken_over() -> None:
    async def scene() -> None:
        async with table() as t:
            t.log.silent_for["n2"] = 5000.0
            t.screen.check_liveness()
            await t.shows("player2 is not answering")
            assert re.search(r"2 player2 .* lost", t.text())
            t.log.silent_for["n2"] = 10.0
            t.screen.check_liveness()
            await t.shows("player2 is back")
            assert not re.search(r"2 player2 .* lost", t.text())
            t.peers[1].take_over(2, Bot(2, "greedy", seed=b"t"))
            await t.shows("player2 is away: bot 2 plays for them")
            assert re.search(r"2 player2 .* away", t.text())

    run(scene)


def test_the_screen_looks_for_silent_peers_when_one_could_be_lost_and_not_before() -> None:
    """No look every half second: the next one is due when the process heard longest ago passes
    LOST_AFTER_MS (the leader hears everyone), and while one is lost, every BACK_LOOK_S."""

    async def scene() -> None:
        async with table() as t:
            t.log.silent_for.update({"n1": 200.0, "n2": 1200.0, "n3": 0.0})
            assert t.screen.next_liveness_look_s() == pytest.approx(
                (LOST_AFTER_MS - 1200.0) / 1000, abs=0.002
            )
            t.log.silent_for.update({"n2": 0.0})
            assert t.screen.next_liveness_look_s() == pytest.approx((LOST_AFTER_MS - 200.0) / 1000, abs=0.002)
            # Nobody asks the screen to look: its own loop finds the silence, then the return.
            t.log.silent_for["n2"] = 5000.0
            await t.shows("player2 is not answering")
            assert t.screen.next_liveness_look_s() == BACK_LOOK_S
            t.log.silent_for["n2"] = 10.0
            await t.shows("player2 is back")

    run(scene)


def test_the_screen_follows_a_resize() -> None:
    output = Screen80x24()

    async def scene() -> None:
        async with table(output=output) as t:
            output.size = Size(rows=40, columns=120)
            t.app.invalidate()
            await until(
                lambda: len(t.text().splitlines()) == 40 and "q quit" in t.text().splitlines()[-1], "40 rows"
            )
            assert any(len(line) > 80 for line in t.text().splitlines())

    run(scene)


def test_the_final_ranking_and_leaving_after_the_game() -> None:
    async def scene() -> None:
        async with table(rounds=1) as t:
            await t.others_pass_until_my_turn()
            await t.press(" ", lambda: t.state.phase == "window", "our slap opened a window")
            opener = t.state.rules["kilo"].window.opened_by
            for seat in (1, 2, 3):
                await t.act(
                    seat, Slap(seat=seat, t_sync=monotonic_ms(), trigger=opener, rt=100.0 + 50.0 * seat)
                )
            await t.shows("Final ranking")
            text = t.text()
            assert re.search(r"1\. player\d .*★ winner", text) and re.search(r"4\. player0 \(you\)", text)
            await t.press("\r", lambda: t.screen.left, "Enter leaves")

    run(scene)


# --- the command line -------------------------------------------------------------------------------


def test_play_parser() -> None:
    args = play_args("--bots", "3", "--lang", "fr", "--option", "rounds=2", "10.0.0.1:4000")
    assert (args.bots, args.lang, args.option, args.target) == (3, "fr", ["rounds=2"], "10.0.0.1:4000")
    assert args.run is run_play


def test_play_refuses_bad_bot_counts_and_a_missing_terminal() -> None:
    with pytest.raises(UsageError, match="--bots must be 0 to 3"):
        run_play(play_args("--bots", "4", "--players", "4"))
    with pytest.raises(UsageError, match=r"^--bots -1 is not a number of bots: give 0 or more$"):
        run_play(play_args("--bots", "-1"))
    with pytest.raises(UsageError, match=r"^--bots 99 makes a table of 100: players must be 3 to 10$"):
        run_play(play_args("--bots", "99"))
    with pytest.raises(UsageError, match=r"^players must be 3 to 10$"):  # the flag given is named
        run_play(play_args("--bots", "1", "--players", "11"))
    with pytest.raises(UsageError, match="for a table you host"):
        run_play(play_args("--bots", "2", "10.0.0.1:4000"))
    with pytest.raises(UsageError, match="needs a terminal"):
        run_play(play_args("--bots", "3"))  # pytest's stdin is not a terminal


def test_stderr_goes_to_the_log_while_the_screen_is_up(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "play.log"
    with stderr_to(log):
        os.write(2, b"a warning the table must not show\n")
    assert log.read_text() == "a warning the table must not show\n"
    assert os.fstat(2).st_ino != os.stat(log).st_ino  # fd 2 is ours again


def test_the_rules_screen_shows_each_plugins_rules_and_scrolls_at_80x24() -> None:
    """Issue 13: ? shows the keys, then the game's rules and each house rule's in its own words
    (``kdm_rules_text``), with the options the table changed; taller than 24 rows, it scrolls."""

    async def scene() -> None:
        async with table(variants=["jokers"], options={"joker_kilos": 50}) as t:
            await t.press("?", lambda: t.screen.help_open, "help open")
            await t.shows("Space        slap the pile")
            await t.shows("↑↓ PgUp PgDn: more (lines 1-")
            assert "Jokers" not in t.text()  # below the fold
            await t.press("\x1b[6~", lambda: t.screen.overlay_down > 0, "PgDn")
            await t.shows("Kilo de merde")
            for _ in range(60):  # one line down at a time, to the end
                if "joker_kilos 50" in t.text():
                    break
                down = t.screen.overlay_down
                await t.press("\x1b[B", lambda down=down: t.screen.overlay_down > down, "↓")
                await until(lambda: f"(lines {t.screen.overlay_down + 1}-" in t.text(), "the window redrawn")
            text = t.text()
            assert "Two jokers are added to the pile" in text and "Options at this table" in text
            assert "rounds 3" in text  # this table plays 3 rounds, not the default 10
            await t.press("\x1b[5~\x1b[5~\x1b[5~", lambda: t.screen.overlay_down == 0, "PgUp back to the top")
            await t.shows("Space        slap the pile")
            await t.press("\x1b", lambda: not t.screen.help_open, "Esc closes")

    run(scene)
