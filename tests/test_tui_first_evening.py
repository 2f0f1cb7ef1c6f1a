"""The issue « A first evening that works », on the table screen: the waiting room says where others join
only when they can (not at a loopback address), shows its founder the PIN to give out, Esc acts at
once, a screen at rest does not poll the terminal, and a French table writes French (headless, in the
scenes of ``test_tui``)."""

from __future__ import annotations

import threading

from prompt_toolkit.input import create_pipe_input

from kdm.net.clock import monotonic_ms
from kdm.plugins.kilo.events import Slap
from kdm.tui.keys import ESCAPE_WAIT_S
from kdm.tui.layout import POLLED_SIZE_EVERY_S, size_polling_interval
from kdm.tui.lobby import LobbyState
from kdm.tui.lobby_app import lobby_application
from tests.helpers.tui import Screen80x24, run, table, until


def test_a_table_on_loopback_invites_no_one_and_says_it_is_local_only() -> None:
    async def scene() -> None:
        async with table(seated=2) as t:
            t.screen.invitation, t.screen.advertised = ["127.0.0.1:43723"], False
            t.screen.on_change()
            await t.shows("this machine only")
            assert "kdm play 127.0.0.1" not in t.text() and "others join with" not in t.text()
            # Advertised by name on loopback alone, the name reaches no other laptop either.
            t.screen.advertised = True
            t.screen.on_change()
            await t.shows("no one else can join it")
            assert "others join with" not in t.text()

    run(scene)


def test_a_table_on_the_lan_still_invites_at_its_other_addresses_than_loopback() -> None:
    async def scene() -> None:
        async with table(seated=2) as t:
            t.screen.invitation = ["127.0.1.1:41000", "192.168.1.20:41000"]
            t.screen.on_change()
            await t.shows("192.168.1.20:41000")  # under "others join with: kdm play", wrapped
            assert "others join with: kdm play" in t.text() and "127.0.1.1" not in t.text()

    run(scene)


def test_the_founders_waiting_room_shows_the_pin_to_give_out_and_a_joiners_does_not() -> None:
    async def scene() -> None:
        async with table(seated=2) as t:
            t.screen.invitation, t.screen.pin = ["192.168.1.20:41000"], "4821"
            t.screen.on_change()
            await t.shows("PIN to give your friends: 4821")
            await t.close()
            t.open(1)  # a joiner's screen, even one that knows the PIN, does not show it
            t.screen.invitation, t.screen.pin = ["192.168.1.20:41000"], "4821"
            t.screen.on_change()
            await t.shows("player1 (you)")
            await t.shows("others join with")
            assert "4821" not in t.text()

    run(scene)


def test_esc_acts_within_fifty_ms_at_the_table_and_in_the_lobby() -> None:
    # prompt_toolkit waits ttimeoutlen (0.5 s by default) to tell a lone Esc from an escape sequence.
    assert ESCAPE_WAIT_S <= 0.05

    async def scene() -> None:
        async with table() as t:
            assert t.app.application.ttimeoutlen == ESCAPE_WAIT_S
            assert t.app.application.timeoutlen == ESCAPE_WAIT_S

    run(scene)
    with create_pipe_input() as pipe:
        lobby = lobby_application(LobbyState("en", "kitchen"), pipe, Screen80x24())
        assert lobby.ttimeoutlen == ESCAPE_WAIT_S and lobby.timeoutlen == ESCAPE_WAIT_S


def test_the_screens_ask_the_terminal_its_size_only_where_no_signal_says_it() -> None:
    """prompt_toolkit polls the terminal's size every 0.5 s by default: two wake-ups a second of every
    screen at rest. In the main thread SIGWINCH says when it changes (``test_tui_tmux`` resizes one)."""

    async def scene() -> None:
        async with table() as t:
            assert t.app.application.terminal_size_polling_interval is None

    run(scene)
    with create_pipe_input() as pipe:
        lobby = lobby_application(LobbyState("en", "kitchen"), pipe, Screen80x24())
        assert lobby.terminal_size_polling_interval is None
    elsewhere: list[float | None] = []
    thread = threading.Thread(target=lambda: elsewhere.append(size_polling_interval()))
    thread.start()
    thread.join()
    assert elsewhere == [POLLED_SIZE_EVERY_S]  # (no SIGWINCH outside the main thread)


def test_a_french_table_says_the_round_is_over_with_a_space_before_the_colon() -> None:
    async def scene() -> None:
        async with table(lang="fr") as t:
            await t.others_pass_until_my_turn()
            await t.press(" ", lambda: len(t.log.events("slap", seat=0)) == 1, "our slap proposed")
            opener = t.state.rules["kilo"].window.opened_by
            await until(lambda: opener in t.screen.painted, "the opener painted")
            for seat in (1, 2, 3):
                await t.act(seat, Slap(seat=seat, t_sync=monotonic_ms(), trigger=opener, rt=100.0 * seat))
            await t.shows("fin de la manche 1 : player")  # whoever drew, and what it weighed
            assert "manche 1:" not in t.text()

    run(scene)
