"""The terminal table playing Kem's (RULES 3), headless, in the scenes of ``test_tui``: four peers on a log
that commits at once, one seat on screen through the real ``TableApp``, keys down a pipe, and what the
player sees read from the renderer's last 80×24 screen. Private notes (a team's sign) go straight from
one peer to the other, as ``send_direct`` does between processes.

The other seats act when a test tells them to; their duties (checking a dealt hand, turning the table's
cards, showing a hand or two cards) are fulfilled by their own peers, as at a real table. Nobody but seat
0 exchanges, so no dealt hand (which never holds three of a rank) can hold four of a kind: every call
here fails, and a Contre is answered with two cards to the caller only.
"""

from __future__ import annotations

import io
import itertools
import re
import types
from dataclasses import replace
from typing import Any

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output.vt100 import Vt100_Output

from kdm.cards import pretty, rank_of
from kdm.deck import Knowledge, PrivateNote
from kdm.errors import UsageError
from kdm.net.clock import monotonic_ms
from kdm.plugins.kems.events import Call, Gesture, Sweep, SweepAnswer
from kdm.plugins.kems.rules import GESTURES, kems, note_digest
from kdm.plugins.kems.screen.text import CATALOGUE
from kdm.plugins.kems.text import gesture_name
from kdm.plugins.kems.view import SALT_SIZE
from kdm.tui.command import run_play
from kdm.tui.panels import LEFT_COLUMN
from kdm.tui.text import say as table_say
from tests.helpers.kems import dealing_pairs
from tests.helpers.kems_screen import (
    agree_sign,
    kems_table,
    left_column,
    left_shows,
    others_agree,
    play,
)
from tests.helpers.tui import (
    Table,
    assert_both_languages,
    play_args,
    run,
    until,
)


def table_cards(t: Table) -> list[tuple[int, str]]:
    state = t.state
    return [(token, state.faces[token]) for token in state.zones["table"]]


def hand(t: Table, seat: int | None = None) -> list[tuple[int, str]]:
    """A seat's cards, faces included (the open deck knows them all)."""
    seat = t.me if seat is None else seat
    return [(token, t.peers[0].deck.faces[token]) for token in t.state.hands[seat]]


def agreed_signs(note: PrivateNote) -> dict[str, Any]:
    """What a sign note says, without its salt (random, ``Signs.salt``)."""
    assert isinstance(note.data["salt"], bytes) and len(note.data["salt"]) == SALT_SIZE
    return {key: value for key, value in note.data.items() if key != "salt"}


async def hunt_again(t: Table) -> None:
    await until(lambda: t.state.phase == "hunt", "the hunt")


# --- the sign -----------------------------------------------------------------------------------------


def test_the_first_seat_chooses_the_sign_before_play_and_only_the_partner_learns_it() -> None:
    async def scene() -> None:
        async with kems_table() as t:
            await t.shows("Only player2, your partner, will know it.")
            assert all(gesture_name(gesture) in t.text() for gesture in GESTURES)
            await agree_sign(t, "c")
            agreed = {"signs": ["wink"], "presign": None, "deal": 0}
            notes = t.peers[2].deck.notes
            await until(
                lambda: [agreed_signs(n) for n in notes.get(2, [])] == [agreed], "the note at the partner's"
            )
            assert t.peers[0].deck.notes[0] == notes[2]
            assert not t.peers[1].deck.notes and not t.peers[3].deck.notes  # opponents learn nothing
            assert all(entry["t"] != "note" and "wink" not in str(entry) for entry in t.log.decoded())
            # What the log holds of it: its digest, the one note a partner may be handed once play began.
            committed = [event["note"] for event in t.log.events("team_ready", seat=0)]
            assert committed == [note_digest(notes[2][0].data)]
            await left_shows(t, "your team's sign: winks")
            assert "player2 now knows your sign" in t.text()
            await t.sit(2)  # the partner sees it too, and may not choose it
            await left_shows(t, "your team's sign: winks")
            await t.press("t", lambda: "signs are chosen before the game" in t.text(), "told")
            assert not play(t).signs_open
            await t.sit(3)  # an opponent: their team said it agreed, but no note ever reached seat 3
            await left_shows(t, "your team's sign: none (not chosen before play)")
            assert "winks" not in t.text()
            await t.sit(0)  # no private word once the game has begun (RULES 3.2)
            await t.press("t", lambda: "signs are chosen before the game" in t.text(), "the chooser refused")
            assert not play(t).signs_open

    run(scene)


@pytest.mark.parametrize("spoken", [False, True], ids=["spoken=off", "spoken=on"])
def test_the_chat_line_is_silent_during_a_hunt_unless_spoken(spoken: bool) -> None:
    """RULES 3.2: « à la parlante » players may talk during play; otherwise only before and between."""

    async def scene() -> None:
        async with kems_table(options={"spoken": spoken}) as t:
            t.peers[1].say("good luck")  # before the game: always
            await until(lambda: t.peers[0].record.chat == [(1, "good luck")], "said before the game")
            await agree_sign(t)
            await t.shows("player1: « good luck »")  # in the feed, among the gestures
            await t.press("/", lambda: t.screen.chat_draft == "", "the chat line open")
            await t.press("seven?\r", lambda: t.screen.chat_draft is None, "said")
            if spoken:
                await t.shows("player0: « seven? »")
            else:
                await t.shows("refused: no words during a hunt at this table (spoken=off)")
                assert [text for _seat, text in t.peers[2].record.chat] == ["good luck"]

    run(scene)


def test_several_signs_and_a_pre_sign_with_signs_multi() -> None:
    async def scene() -> None:
        async with kems_table(options={"signs": "multi"}) as t:
            await t.shows("signs (up to 3): none")
            # Two signs, then Tab to the pre-sign (a sign cannot be the pre-sign), then send.
            await t.press("ac", lambda: play(t).draft_signs == ["scratch_head", "wink"], "two signs")
            await t.press(
                "\tc", lambda: "must differ from the signs" in t.text(), "a sign refused as pre-sign"
            )
            await agree_sign(t, "e")
            data = {"signs": ["scratch_head", "wink"], "presign": "cough", "deal": 0}
            notes = t.peers[2].deck.notes
            await until(lambda: [agreed_signs(n) for n in notes.get(2, [])] == [data], "the note sent")
            await left_shows(t, "your team's signs: scratches their head, winks")
            assert "pre-sign: coughs" in left_column(t)
            await t.press("g", lambda: play(t).menu_open, "the gesture menu")
            await t.shows("c  winks  ★ your sign")
            assert "e  coughs  ☆ your pre-sign" in t.text()

    run(scene)


# --- exchanges ----------------------------------------------------------------------------------------


def test_marked_hand_and_table_cards_are_exchanged_with_enter() -> None:
    async def scene() -> None:
        async with kems_table() as t:
            await agree_sign(t)
            on_table, mine = table_cards(t), hand(t)
            for _token, face in on_table + mine:
                assert pretty(face) in t.text()
            await t.press("125", lambda: len(play(t).give) == 2 and len(play(t).take) == 1, "3 marked")
            await t.shows(f"give {pretty(mine[0][1])} {pretty(mine[1][1])} · take {pretty(on_table[0][1])}")
            await t.press("\r", lambda: "give and take as many cards: 2 and 1" in t.text(), "uneven refused")
            await t.press("7", lambda: len(play(t).take) == 2, "a second table card marked")
            await t.shows(": Enter")
            await t.press("\r", lambda: bool(t.log.events("exchange")), "the exchange proposed")
            assert t.log.events("exchange") == [
                {
                    "kind": "exchange",
                    "seat": 0,
                    "give": [mine[0][0], mine[1][0]],
                    "cards": [mine[0][1], mine[1][1]],
                    "take": [on_table[0][0], on_table[2][0]],
                }
            ]
            await until(lambda: on_table[0][0] in t.state.hands[0], "the exchange applied")
            assert t.state.hands[0] == [on_table[0][0], on_table[2][0], mine[2][0], mine[3][0]]
            await t.shows(f"player0 gives {pretty(mine[0][1])} {pretty(mine[1][1])}")
            assert not play(t).give and not play(t).take
            await until(lambda: "exchanging" not in t.text(), "the message gone once the exchange is done")

    run(scene)


def first_card_not_read_yet(t: Table) -> None:
    """From now on seat 0's process does not know the face of its hand's first card, as with the fair
    deck a moment after a deal or an exchange, before the keys that show it have arrived."""
    deck = t.peers[0].deck
    knows = deck.knowledge

    def knowledge(state: Any, seat: int) -> Knowledge:
        known = knows(state, seat)
        unread = state.hands[seat][:1]
        return replace(known, faces={tk: face for tk, face in known.faces.items() if tk not in unread})

    deck.knowledge = knowledge  # type: ignore[method-assign]


def test_a_card_not_read_yet_is_not_marked_and_the_hand_shows_it_as_unknown() -> None:
    """The bug: pressing 1 while the hand showed ``?? ?? ?? ??`` replaced the table with a traceback
    (an empty face in the give/take line)."""

    async def scene() -> None:
        async with kems_table() as t:
            first_card_not_read_yet(t)
            await agree_sign(t)
            mine = hand(t)
            await t.shows(f" 1  ??   2  {pretty(mine[1][1])} ")
            await t.press("1", lambda: "card 1 is not read yet" in t.text(), "the refusal")
            assert not play(t).give
            await t.press("2", lambda: len(play(t).give) == 1, "a card read marked")
            await t.shows(f"give {pretty(mine[1][1])} · take –")

    run(scene)


def test_a_marked_card_that_is_no_longer_known_shows_as_unknown_and_is_not_given() -> None:
    async def scene() -> None:
        async with kems_table() as t:
            await agree_sign(t)
            on_table = table_cards(t)
            await t.press("15", lambda: len(play(t).give) == 1 and len(play(t).take) == 1, "2 marked")
            first_card_not_read_yet(t)
            await t.act(1, Gesture(seat=1, t_sync=monotonic_ms(), gesture="cough"))  # a fresh view
            await t.shows(f"give ?? · take {pretty(on_table[0][1])}")
            await t.press("\r", lambda: "card 1 is not read yet" in t.text(), "the exchange refused")
            assert not t.log.events("exchange")

    run(scene)


# --- gestures -----------------------------------------------------------------------------------------


def test_a_gesture_from_the_menu_is_stamped_like_a_slap_and_the_feed_shows_everyone_s() -> None:
    async def scene() -> None:
        async with kems_table() as t:
            await agree_sign(t)
            await t.act(1, Gesture(seat=1, t_sync=monotonic_ms(), gesture="cough"))
            seen = kems(t.state).gestures[-1][2]
            await until(lambda: seen in t.screen.painted, "seat 1's gesture painted")
            await t.shows("player1 coughs")
            await t.press("g", lambda: play(t).menu_open, "the gesture menu")
            await t.shows("Make a gesture (everyone sees it)")
            for key, gesture in zip("abcdefghijkl", GESTURES, strict=True):
                assert f"{key}  {gesture_name(gesture)}" in t.text()
            before = monotonic_ms()
            await t.press("d", lambda: bool(t.log.events("gesture", seat=0)), "our gesture proposed")
            (made,) = t.log.events("gesture", seat=0)
            assert made["gesture"] == "yawn" and made["trigger"] == seen
            assert 0.0 <= made["rt"] <= monotonic_ms() - t.peers[0].driver.shown[seen]
            assert before + 1000.0 <= made["t_sync"] <= monotonic_ms() + 1000.0  # on the agreed clock
            await t.shows("player0 yawns")
            feed = [line[LEFT_COLUMN + 1 :] for line in t.text().splitlines()[2:8]]
            assert feed[:2] == ["player1 coughs", "player0 yawns"], feed
            await t.act(2, Gesture(seat=2, t_sync=monotonic_ms(), gesture="wink"))
            await t.shows("player2 winks ★")  # the partner's sign, starred on this screen only
            await t.sit(3)
            await t.shows("player2 winks")
            assert "★" not in t.text()

    run(scene)


# --- calls --------------------------------------------------------------------------------------------


def test_kems_double_and_contre_keys_send_calls_stamped_like_slaps() -> None:
    async def scene() -> None:
        async with kems_table() as t:
            await agree_sign(t)
            await t.act(2, Gesture(seat=2, t_sync=monotonic_ms(), gesture="wink"))
            sign = kems(t.state).gestures[-1][2]
            await until(lambda: sign in t.screen.painted, "the partner's sign painted")
            await t.act(1, Gesture(seat=1, t_sync=monotonic_ms(), gesture="yawn"))  # seen later, not the sign
            await until(lambda: kems(t.state).gestures[-1][2] in t.screen.painted, "a decoy painted")
            sign_shown = t.peers[0].driver.shown[sign]  # (the call ends the deal: the next one forgets it)
            before = monotonic_ms()
            await t.press("k", lambda: bool(t.log.events("call", seat=0)), "Kem's called")
            (call,) = t.log.events("call", seat=0)
            assert (call["call"], call["target"], call["trigger"]) == ("kems", -1, sign)
            assert 0.0 <= call["rt"] <= monotonic_ms() - sign_shown
            assert before + 1000.0 <= call["t_sync"] <= monotonic_ms() + 1000.0
            await left_shows(t, "last: « Kem's ! » by player0: failed -1")
            assert re.search(r"0 player0 \(you\) +0 +-1", t.text())

            await hunt_again(t)
            await t.press("d", lambda: len(t.log.events("call", seat=0)) == 2, "Double Kem's called")
            assert t.log.events("call", seat=0)[1]["call"] == "double"
            await left_shows(t, "last: « Double Kem's ! » by player0: failed -2")

            await hunt_again(t)
            await t.act(3, Gesture(seat=3, t_sync=monotonic_ms(), gesture="smile"))
            smiled = kems(t.state).gestures[-1][2]
            await until(lambda: smiled in t.screen.painted, "seat 3's gesture painted")
            await t.press("c", lambda: play(t).choosing_target, "the opponent asked for")
            await t.shows("« Contre Kem's ! » against…")
            assert "1  player1" in t.text() and "3  player3" in t.text() and "2  player2" not in t.text()
            assert t.text().splitlines()[-1].startswith(" 1 3: an opponent  Esc cancel")  # not 2, our partner
            await t.press("3", lambda: len(t.log.events("call", seat=0)) == 3, "Contre Kem's called")
            contre = t.log.events("call", seat=0)[2]
            assert (contre["call"], contre["target"], contre["trigger"]) == ("contre", 3, smiled)
            # Seat 3 holds no four: it shows two cards to us alone; we lose 1 and may not Contre again.
            await left_shows(t, "player3 showed you")
            (shown,) = kems(t.state).private_shows
            faces = " ".join(pretty(t.peers[0].deck.faces[token]) for token in shown[2])
            assert f"player3 showed you {faces}" in left_column(t)
            assert re.search(r"0 player0 \(you\) +0 +-4 ⊘", t.text())
            await t.press("c", lambda: "no more Contre for you this deal" in t.text(), "barred")
            assert not play(t).choosing_target and len(t.log.events("call", seat=0)) == 3
            await t.sit(2)  # the partner sees neither the cards nor their faces
            await left_shows(t, "your team's sign: winks")
            assert "showed you" not in t.text() and faces not in t.text()

    run(scene)


def test_a_call_or_gesture_before_the_clock_is_agreed_again_is_held_back_with_a_word() -> None:
    async def scene() -> None:
        async with kems_table() as t:
            await agree_sign(t)
            unsampled = types.SimpleNamespace(offset_ms=None)  # the clock of a process just started again
            await t.sit(1)  # not the leader's seat: the leader's own clock is the agreed one
            t.peers[1].node.clock = unsampled  # type: ignore[attr-defined]
            t.keys.send_text("k")
            await t.shows(table_say("en", "clock_settling"))
            assert t.log.events("call", seat=1) == [] and t.log.events("gesture", seat=1) == []
            unsampled.offset_ms = 0.0  # the first pong from the leader
            await t.press("k", lambda: bool(t.log.events("call", seat=1)), "Kem's called")

    run(scene)


def test_calls_in_an_open_window_and_a_second_call_refused() -> None:
    async def scene() -> None:
        async with kems_table(options={"call_window_ms": 600_000}) as t:
            await agree_sign(t)
            await t.press("k", lambda: t.state.phase == "calling", "our call opened the window")
            await t.act(1, Call(seat=1, t_sync=monotonic_ms(), call="contre", target=2))
            await left_shows(t, "calls: player0 « Kem's ! », player1 « Contre Kem's ! » (against player2)")
            assert re.search(r"0 player0 \(you\) .* K!", t.text()) and re.search(
                r"1 player1 .* CK→2", t.text()
            )
            await t.press("d", lambda: "you have already called" in t.text(), "a second call refused")
            assert len(t.log.events("call", seat=0)) == 1

    run(scene)


# --- the sweep ----------------------------------------------------------------------------------------


def test_the_sweep_asked_with_b_and_a_refusal_lets_the_refuser_exchange_first() -> None:
    async def scene() -> None:
        async with kems_table(options={"sweep_after_ms": 0}) as t:
            await agree_sign(t)
            await left_shows(t, "nobody exchanges: b asks « Balayage ? »")
            assert "b sweep" in t.text().splitlines()[-1]
            await t.press("b", lambda: bool(t.log.events("sweep")), "the sweep asked")
            assert t.log.events("sweep") == [{"kind": "sweep", "seat": 0}]
            await left_shows(t, "you asked « Balayage ? »: 0 yes")
            await t.act(1, SweepAnswer(seat=1, accept=True))
            await left_shows(t, "you asked « Balayage ? »: 1 yes")
            await t.act(2, SweepAnswer(seat=2, accept=False))
            await left_shows(t, "player2 refused the sweep: they exchange")
            await t.press("15\r", lambda: "player2 refused the sweep and exchanges first" in t.text(), "wait")
            assert not t.log.events("exchange")

    run(scene)


def test_a_sweep_question_answered_with_y_and_n_and_the_exchange_it_requires() -> None:
    async def scene() -> None:
        async with kems_table(options={"sweep_after_ms": 0}) as t:
            await agree_sign(t)
            await until(lambda: kems(t.state).sweepable, "a sweep askable")
            before = table_cards(t)
            await t.act(1, Sweep(seat=1))
            await t.shows("« Balayage ? » player1 asks: y or n")
            assert t.text().splitlines()[-1].startswith(" y yes  n no")
            await t.press("y", lambda: bool(t.log.events("sweep_answer", seat=0)), "our yes")
            assert t.log.events("sweep_answer", seat=0) == [
                {"kind": "sweep_answer", "seat": 0, "accept": True}
            ]
            await left_shows(t, "« Balayage ? »: you said yes; 1 yes")
            await t.act(2, SweepAnswer(seat=2, accept=True))
            await t.act(3, SweepAnswer(seat=3, accept=True))
            await until(lambda: t.state.phase == "hunt" and kems(t.state).sweepable, "a new table")
            fresh = table_cards(t)
            assert not {token for token, _face in fresh} & {token for token, _face in before}
            await t.shows(f"5  {pretty(fresh[0][1])} ")
            await t.act(3, Sweep(seat=3))
            await t.press("n", lambda: len(t.log.events("sweep_answer", seat=0)) == 2, "our no")
            assert t.log.events("sweep_answer", seat=0)[1]["accept"] is False
            await t.shows("you refused: exchange now")
            mine = hand(t)
            await t.press("48\r", lambda: bool(t.log.events("exchange")), "the required exchange")
            assert t.log.events("exchange")[0]["give"] == [mine[3][0]]
            assert t.log.events("exchange")[0]["take"] == [fresh[3][0]]
            await until(lambda: t.state.phase == "hunt", "the hunt goes on")

    run(scene)


# --- scores, the end, the whole screen ----------------------------------------------------------------


def test_scores_and_the_final_ranking_by_team() -> None:
    async def scene() -> None:
        async with kems_table(options={"target": 10}) as t:
            await agree_sign(t)
            # Team 1 one point from the target on every peer (no shuffle can be chosen for a real four):
            # a failed call of theirs costs 1 and leaves them at the target.
            for peer in t.peers:
                assert peer.record.engine is not None
                kems(peer.record.engine.state).team_scores[1] = 11
            await t.act(1, Call(seat=1, t_sync=monotonic_ms(), call="kems"))
            await t.shows("Final ranking")
            text = t.text()
            assert re.search(r" 1\. team 1  player1 \+ player3 +10 pts  ★ winner", text), text
            assert re.search(r" 2\. team 0  player0 \+ player2 +0 pts", text)
            await t.press("s", lambda: t.screen.scores_open, "the scores")
            await t.shows("« Kem's ! »: 0 confirmed, 1 failed")
            assert "deal by deal:" in t.text() and re.search(r"deal 1 +· +\+10", t.text())
            await t.press("s\r", lambda: t.screen.left, "Enter leaves")

    run(scene)


def test_help_and_the_french_table() -> None:
    async def scene() -> None:
        async with kems_table(lang="fr", options={"sweep_after_ms": 0}) as t:
            await t.shows("Le signe secret de votre équipe")
            await t.press("c\r", lambda: not play(t).signs_open, "le signe envoyé")
            await others_agree(t)
            await left_shows(t, "le signe de votre équipe : fait un clin d'œil")
            assert "Équipes · en 10 points" in t.text() and "Entrée échanger" in t.text()
            await until(lambda: kems(t.state).sweepable, "un balayage possible")
            await t.act(1, Sweep(seat=1))
            await t.shows("« Balayage ? » demande player1 : o ou n")
            await t.press("o", lambda: bool(t.log.events("sweep_answer", seat=0)), "oui")
            assert t.log.events("sweep_answer", seat=0)[0]["accept"] is True
            await t.press("?", lambda: t.screen.help_open, "l'aide")
            await t.shows("k            « Kem's ! » : votre partenaire a un carré")

    run(scene)


@pytest.mark.parametrize("players", [4, 8])
def test_a_kems_table_fits_80x24_without_colour(monkeypatch: pytest.MonkeyPatch, players: int) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    terminal = io.StringIO()
    output = Vt100_Output(terminal, lambda: Size(rows=24, columns=80), term="xterm-256color")

    async def scene() -> None:
        async with kems_table(output=output, players=players) as t:
            await agree_sign(t)
            kems(t.state).barred.append(players - 1)  # a mark on the last row, which must show
            await t.act(1, Gesture(seat=1, t_sync=monotonic_ms(), gesture="shrug"))
            await t.press("15", lambda: len(play(t).take) == 1, "cards marked")
            await t.shows("· take")
            lines = t.text().splitlines()
            assert len(lines) == 24 and lines[0].startswith(" kdm table «kitchen» · Kem's · deal 1")
            assert re.search(rf"{players - 1} player{players - 1} .*⊘", t.text())
            assert "« La chasse est ouverte ! »" in t.text() and "your team's sign: winks" in left_column(t)
            assert "player1 shrugs" in t.text()
            assert lines[-1].rstrip().endswith("q quit") and lines[-5].startswith(" Your hand")

    run(scene)
    written = terminal.getvalue()
    assert "\x1b[7m" in written or ";7m" in written  # reverse video marks the cards to exchange
    assert not re.search(r"\x1b\[[0-9;]*(38|48);5;", written)  # and no colour at all


def test_every_kems_string_exists_in_both_languages_with_the_same_fields() -> None:
    assert_both_languages(CATALOGUE)


def test_play_takes_kems_with_4_6_or_8_players() -> None:
    with pytest.raises(UsageError, match="4, 6 or 8 players"):
        run_play(play_args("--bots", "2", "--variant", "kems"))
    for bots in ("3", "5", "7"):  # the check passes; pytest's stdin is not a terminal
        with pytest.raises(UsageError, match="needs a terminal"):
            run_play(play_args("--bots", bots, "--variant", "kems"))


# --- a Contre against us (RULES 3.5) ---------------------------------------------------------------------


def test_the_accused_chooses_the_two_cards_the_caller_sees() -> None:
    """A Contre names us without four: the screen asks for two cards, and Enter shows the two marked to
    the caller alone (not the table's choice: the last two of our hand)."""

    async def scene() -> None:
        async with kems_table(options={"show_answer_ms": 600_000}) as t:
            await agree_sign(t)
            mine = hand(t)
            assert len({rank_of(face) for _token, face in mine}) > 1, "a deal with four: pick another seed"
            pairs = itertools.combinations(mine[::-1], 2)
            pair = next((a, b) for a, b in pairs if rank_of(a[1]) != rank_of(b[1]))
            await t.act(1, Call(seat=1, t_sync=monotonic_ms(), call="contre", target=0))
            await until(lambda: t.state.phase == "answering", "the Contre answered by us")
            await t.shows("show player1 two cards: mark 1-4, Enter (600 s, then the table picks)")
            keys = "".join(str(index + 1) for index, card in enumerate(mine) if card in pair)
            await t.press(keys + "\r", lambda: bool(t.log.events("show_two")), "our two cards shown")
            shown = sorted(token for token, _face in pair)
            assert t.log.events("show_two") == [{"kind": "show_two", "seat": 0, "tokens": shown}]
            await until(lambda: t.state.phase == "hunt", "the hunt goes on")
            assert kems(t.state).private_shows == [(1, 0, tuple(shown))]

    run(scene)


def test_an_accused_who_marks_two_cards_of_one_rank_is_told_to_mark_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """RULES 3.5: the two cards are « of different ranks where they can », and a hand that is no four of a
    kind can: two of one rank marked, Enter sends nothing (the table would refuse it) and says why."""
    dealing_pairs(monkeypatch, 4)

    async def scene() -> None:
        async with kems_table(options={"show_answer_ms": 600_000}) as t:
            await agree_sign(t)
            mine = hand(t)
            assert len({rank_of(face) for _token, face in mine}) > 1, "a deal with four: pick another seed"
            first, second = next(
                (i, j)
                for i, j in itertools.combinations(range(len(mine)), 2)
                if rank_of(mine[i][1]) == rank_of(mine[j][1])
            )
            await t.act(1, Call(seat=1, t_sync=monotonic_ms(), call="contre", target=0))
            await until(lambda: t.state.phase == "answering", "the Contre answered by us")
            told = "the two cards are of different ranks: mark another"
            await t.press(f"{first + 1}{second + 1}\r", lambda: told in t.text(), "told to mark another")
            assert t.log.events("show_two") == [] and t.state.phase == "answering"

    run(scene)


def test_an_accused_who_does_not_choose_has_the_table_choose_when_the_time_is_up() -> None:
    """Our laptop answers for our seat once ``show_answer_ms`` has passed: two cards of different ranks."""

    async def scene() -> None:
        async with kems_table(options={"show_answer_ms": 300}) as t:
            await agree_sign(t)
            await t.act(1, Call(seat=1, t_sync=monotonic_ms(), call="contre", target=0))
            await until(lambda: bool(t.log.events("show_two", seat=0)), "the table's choice, in our name")
            ((first, second),) = [event["tokens"] for event in t.log.events("show_two")]
            faces = dict(hand(t))
            assert rank_of(faces[first]) != rank_of(faces[second])

    run(scene)


def test_a_spoken_line_at_a_french_table_has_a_space_before_its_colon() -> None:
    async def scene() -> None:
        async with kems_table(lang="fr") as t:
            t.peers[1].say("bonne chance")
            await until(lambda: t.peers[0].record.chat == [(1, "bonne chance")], "said before the game")
            await agree_sign(t)
            await t.shows("player1 : « bonne chance »")

    run(scene)
