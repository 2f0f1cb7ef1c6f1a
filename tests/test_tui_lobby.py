"""The lobby, headless: choosing a table (or returning to one's seat), joining by address, creating a
table of any game installed, and staying in the lobby after a mistake."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input

from kdm import session
from kdm.errors import PinRefused, UsageError
from kdm.identity import SeatMemory
from kdm.manager import Rules, installed_plugins, plugin_from
from kdm.net.discovery import TableAd
from kdm.session import SessionConfig
from kdm.settings import Settings
from kdm.tui import command
from kdm.tui import lobby as lobby_module
from kdm.tui.app import TableUI
from kdm.tui.lobby import Create, Join, LobbyState, stepped
from kdm.tui.lobby_app import LABEL_WIDTH, body, lobby_application, run_lobby
from kdm.tui.text import say
from tests.helpers.tui import DEADLINE_S, Screen80x24, until

DOWN, RIGHT, LEFT = "\x1b[B", "\x1b[C", "\x1b[D"


def ad(name: str, port: int, taken: int = 1, state: str = "lobby", mode: str = "kilo") -> TableAd:
    return TableAd(name=name, host="10.0.0.7", port=port, node_id=f"10.0.0.7:{port}~ab", version=1,
                   mode=mode, plugins=(f"{mode}=0.1.0",), seats_taken=taken, seats_total=4,
                   state=state, addresses=("10.0.0.7", "192.168.1.7"))  # fmt: skip


def lobby(keys: str, tables: list[TableAd] | None = None, **state_fields: Any) -> Join | Create | None:
    return run_keys(keys, tables, **state_fields)[0]


def run_keys(
    keys: str, tables: list[TableAd] | None = None, **state_fields: Any
) -> tuple[Join | Create | None, LobbyState]:
    async def scene() -> tuple[Join | Create | None, LobbyState]:
        with create_pipe_input() as pipe:
            config = SessionConfig(interface="127.0.0.1", name="kitchen")
            state = LobbyState(config.lang, config.name, **{"player": "Ana", **state_fields})
            state.set_tables(list(tables or []))
            task = asyncio.get_running_loop().create_task(
                run_lobby(config, input=pipe, output=Screen80x24(), browse=False, state=state)
            )
            pipe.send_text(keys)
            return await asyncio.wait_for(task, DEADLINE_S), state

    return asyncio.run(scene())


def test_lobby_joins_the_chosen_table_at_every_address_it_advertises() -> None:
    choice = lobby(DOWN + "\r", [ad("attic", 4001), ad("kitchen", 4002)])
    assert choice == Join("10.0.0.7:4002~ab", ("10.0.0.7:4002~ab", "192.168.1.7:4002~ab"), name="kitchen")


def test_a_table_with_a_pin_asks_for_it_masked_then_joins_with_it() -> None:
    locked = TableAd(**{**ad("attic", 4001).__dict__, "pin": True})
    choice, state = run_keys("\r" + "12ab" + "\r" + "34" + "\r", [locked])
    assert choice == Join("10.0.0.7:4001~ab", locked.contacts, pin="1234", name="attic")
    assert state.message == ""  # "12" was refused (too short) and said so, then typing cleared it


def test_a_pin_too_short_is_explained_and_the_prompt_stays() -> None:
    state = LobbyState("en", "kitchen")
    state.ask_pin(Join("10.0.0.9:5000", name="attic"))
    state.type_text("12x")
    state.submit()
    assert not state.done and state.mode == "pin" and state.pin == "12"
    assert state.message == "a PIN is 4 to 12 digits"


def test_the_new_table_form_takes_a_pin() -> None:
    choice = lobby("c" + DOWN * 5 + "48x21" + "\r")
    assert isinstance(choice, Create) and choice.pin == "4821"
    assert isinstance(lobby("c\r"), Create) and lobby("c\r").pin == ""  # type: ignore[union-attr]


def test_a_table_that_wants_a_pin_brings_the_lobby_back_asking_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    choices: list[Join | None] = [Join("10.0.0.9:5000"), Join("10.0.0.9:5000", pin="1111"), None]
    asked: list[tuple[str, Join | None]] = []

    async def fake_lobby(
        *_args: Any, message: str = "", ask_pin: Join | None = None, **_kw: Any
    ) -> Join | None:
        asked.append((message, ask_pin))
        return choices.pop(0)

    async def refused(config: SessionConfig, *_args: Any, **_kwargs: Any) -> None:
        raise PinRefused("the table refused the PIN" if config.pin else "the table asks for a PIN")

    monkeypatch.setattr(command, "run_lobby", fake_lobby)
    monkeypatch.setattr(session, "join", refused)
    asyncio.run(command.from_the_lobby(SessionConfig(interface="127.0.0.1"), {}, [], TableUI()))
    assert asked == [("", None), ("", Join("10.0.0.9:5000")), ("wrong PIN: try again", Join("10.0.0.9:5000"))]


def test_lobby_joins_by_address() -> None:
    assert lobby("a10.0.0.9:5000\r") == Join("10.0.0.9:5000")


def test_a_mistyped_address_is_explained_and_the_lobby_stays() -> None:
    state = LobbyState("en", "kitchen")
    state.start_address()
    state.type_text("10.0.0.9:99999")
    state.submit()
    assert not state.done and state.mode == "address"
    assert "is not a port number from 1 to 65535" in state.message
    state.type_text("")  # typing again clears the explanation
    assert state.message == ""


def test_lobby_creates_a_table_with_options() -> None:
    # Name field: add "2"; your name and the game stay; players 4 → 5; bots 0 → 1; then create.
    choice = lobby("c2" + DOWN * 3 + RIGHT + DOWN + RIGHT + "\r")
    assert isinstance(choice, Create)
    assert (choice.table, choice.players, choice.bots, choice.variants) == ("kitchen2", 5, 1, [])
    assert choice.options["rounds"] == 10 and choice.options["direction"] == "toward-queen-of-spades"


def test_lobby_offers_every_game_installed_kems_included() -> None:
    state = LobbyState("en", "kitchen")
    assert state.games[0] == "kilo" and "kems" in state.games
    choice = lobby("c" + DOWN * 2 + RIGHT + "\r")  # the game field: the next game, Kem's
    assert isinstance(choice, Create) and choice.variants == ["kems"] and choice.players == 4
    assert choice.options["target"] == 10  # Kem's own options, not the base game's
    assert "rounds" not in choice.options


def test_a_table_the_rules_refuse_is_explained_in_the_form_which_stays_open() -> None:
    state = LobbyState("en", "kitchen", player="Ana")
    state.start_create()
    state.field_index = 2
    state.change(1)  # Kem's
    state.field_index = 3
    state.change(1)  # five players: Kem's is for 4, 6 or 8
    state.submit()
    assert not state.done and state.mode == "create" and "4, 6 or 8 players" in state.message


def test_the_lobby_shows_each_tables_game_and_house_rules() -> None:
    spoons = TableAd(name="attic", host="10.0.0.7", port=4001, node_id="a", version=1, mode="kilo",
                     plugins=("kilo=0.1.0", "spoons=0.1.0", "jokers=0.1.0", "piles=0.1.0"), seats_taken=1,
                     seats_total=4, state="lobby")  # fmt: skip
    _choice, state = run_keys("q", [spoons, ad("salon", 4003, mode="kems")])
    from kdm.tui.lobby_app import body

    text = "".join(fragment[1] for fragment in body(state))
    # The game by the name its plugin gives it, then the chosen table's whole list, under its row.
    assert "Kilo de merde+spoons+jokers+piles" in text
    assert "Kem's" in text and "kems" not in text


def test_a_table_where_this_player_has_a_seat_comes_first_and_enter_returns_to_it() -> None:
    tables = [ad("attic", 4001), ad("kitchen", 4002, taken=4, state="playing")]
    held = {"10.0.0.7:4002~ab": {"name": "kitchen", "seat": 2}}
    state = LobbyState("en", "me", held=held)
    state.set_tables(tables)
    assert state.selected == 1 and state.hint() == "Enter: return to your seat at kitchen"
    from kdm.tui.lobby_app import body

    assert "your seat" in "".join(fragment[1] for fragment in body(state))
    assert lobby("\r", tables, held=held) == Join(
        "10.0.0.7:4002~ab", ("10.0.0.7:4002~ab", "192.168.1.7:4002~ab"), name="kitchen"
    )


def test_a_player_back_to_their_seat_at_a_table_with_a_pin_is_not_asked_for_it_again() -> None:
    """The seat's key proves the player belongs (the table takes a seated player's node back without
    the PIN): the lobby asked for the PIN anyway, and the player waited while typing it."""
    locked = TableAd(**{**ad("kitchen", 4002, taken=4, state="playing").__dict__, "pin": True})
    held = {"10.0.0.7:4002~ab": {"name": "kitchen", "seat": 2}}
    choice, state = run_keys("\r", [locked], held=held)
    assert choice == Join("10.0.0.7:4002~ab", locked.contacts, name="kitchen") and state.mode == "list"


def test_a_table_playing_without_a_seat_of_ours_says_enter_watches_it() -> None:
    state = LobbyState("en", "me")
    state.set_tables([ad("kitchen", 4002, taken=4, state="playing")])
    assert state.hint() == "kitchen is playing or full: Enter to watch it"


def test_the_lobby_reads_the_seats_this_player_holds(tmp_path: Path) -> None:
    SeatMemory(tmp_path).remember("10.0.0.7:4002~ab", "kitchen", 2)

    async def scene() -> LobbyState:
        with create_pipe_input() as pipe:
            config = SessionConfig(interface="127.0.0.1", name="me", data_dir=tmp_path)
            seen: list[LobbyState] = []
            original = LobbyState.__init__

            def spy(self: LobbyState, *args: Any, **kwargs: Any) -> None:
                original(self, *args, **kwargs)
                seen.append(self)

            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(LobbyState, "__init__", spy)
                task = asyncio.get_running_loop().create_task(
                    run_lobby(config, input=pipe, output=Screen80x24(), browse=False, message="hello")
                )
                pipe.send_text("q")
                await asyncio.wait_for(task, DEADLINE_S)
            return seen[0]

    state = asyncio.run(scene())
    assert state.held == {"10.0.0.7:4002~ab": {"name": "kitchen", "seat": 2}} and state.message == "hello"


def test_lobby_quits() -> None:
    assert lobby("q") is None


def test_option_steps() -> None:
    (rounds,) = [o for o in Rules.for_table().options() if o.name == "rounds"]
    (timeout,) = [o for o in Rules.for_table().options() if o.name == "slap_timeout_ms"]
    assert stepped(rounds, 1, -1) == "pile" and stepped(rounds, "pile", 1) == 1
    assert stepped(timeout, 4000, 1) == 4100


def test_a_join_that_fails_brings_the_lobby_back_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    choices: list[Join | None] = [Join("10.0.0.9:5000"), None]
    messages: list[str] = []

    async def fake_lobby(*_args: Any, message: str = "", **_kwargs: Any) -> Join | None:
        messages.append(message)
        return choices.pop(0)

    async def refused(*_args: Any, **_kwargs: Any) -> None:
        raise UsageError("no table answered at 10.0.0.9:5000")

    monkeypatch.setattr(command, "run_lobby", fake_lobby)
    monkeypatch.setattr(session, "join", refused)
    ui = TableUI()
    asyncio.run(command.from_the_lobby(SessionConfig(interface="127.0.0.1"), {}, [], ui))
    assert messages == ["", "no table answered at 10.0.0.9:5000"]


# --- the new-table form at 80×24 (issue « A first evening that works ») ------------------------------


class LobbyOnScreen:
    """The lobby's real application on an 80×24 screen, played from a pipe of keys."""

    def __init__(self, state: LobbyState) -> None:
        self.state = state

    async def __aenter__(self) -> LobbyOnScreen:
        self._pipe_context = create_pipe_input()
        self._pipe = self._pipe_context.__enter__()
        self.app = lobby_application(self.state, self._pipe, Screen80x24())
        self._running = asyncio.get_running_loop().create_task(self.app.run_async())
        await until(lambda: bool(self.rows()), "the lobby drawn")
        return self

    async def __aexit__(self, *_exc: object) -> None:
        self.app.exit()
        await asyncio.wait_for(self._running, DEADLINE_S)
        self._pipe_context.__exit__(None, None, None)

    def rows(self) -> list[str]:
        rendered = self.app.renderer.last_rendered_screen
        if rendered is None:
            return []
        return ["".join(rendered.data_buffer[y][x].char for x in range(80)).rstrip() for y in range(24)]

    def inside_the_box(self) -> list[str]:
        """The rows between the form's top and bottom borders."""
        rows = self.rows()
        top = next(index for index, row in enumerate(rows) if row.startswith("┌"))
        bottom = next(index for index, row in enumerate(rows) if row.startswith("└"))
        return rows[top + 1 : bottom]

    async def press(self, keys: str, then: Callable[[], bool], what: str) -> None:
        self._pipe.send_text(keys)
        await until(then, f"{what}; the screen:\n" + "\n".join(self.rows()))


def form_state(lang: str = "en", game: str = "kilo", variants: list[str] | None = None) -> LobbyState:
    state = LobbyState(lang, "kitchen", variants=[game, *(variants or [])], player="Ana")
    state.start_create()
    return state


@pytest.mark.parametrize("game", ["kilo", "kems"])
def test_every_field_of_the_form_scrolls_into_the_box_with_its_help_at_80x24(game: str) -> None:
    every_rule = form_state(game=game).rules_of(game)
    state = form_state(game=game, variants=every_rule)  # the tallest form: every house rule on

    async def scene() -> None:
        async with LobbyOnScreen(state) as lobby:
            for index, field in enumerate(state.fields):
                if index:
                    await lobby.press(DOWN, lambda i=index: state.field_index == i, f"field {field.key}")
                row = f"▸ {field.label:<26}"

                def shown(row: str = row, help: str = field.help) -> bool:
                    box = lobby.inside_the_box()
                    return any(line.startswith("│" + row) for line in box) and (
                        not help or any(help[:40] in line for line in box)
                    )

                await until(shown, f"{field.key} in the box; the screen:\n" + "\n".join(lobby.rows()))
            assert lobby.rows()[21].startswith("└")  # the box ends above the prompt and footer

    asyncio.run(scene())


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_no_label_of_the_form_is_cut(lang: str) -> None:
    for game in ("kilo", "kems"):
        state = form_state(lang, game, form_state(lang, game).rules_of(game))
        assert state.fields and all(len(field.label) <= LABEL_WIDTH for field in state.fields), [
            field.label for field in state.fields if len(field.label) > LABEL_WIDTH
        ]
    pin = next(field for field in form_state(lang).fields if field.key == "pin")
    assert pin.label == say(lang, "field_pin") and "4" in pin.help and "12" in pin.help


def test_the_form_offers_only_the_house_rules_of_the_chosen_game() -> None:
    state = form_state()
    kilo_rules = {field.key for field in state.fields if field.key.startswith("variant:")}
    assert {"variant:spoons", "variant:jokers", "variant:piles"} <= kilo_rules
    state.field_index = [field.key for field in state.fields].index("game")
    state.change(1)  # Kem's: none of the base game's rules, and Kem's own options stay
    keys = [field.key for field in state.fields]
    assert not [key for key in keys if key.startswith("variant:")] and "option:target" in keys
    assert state.message == ""


def test_a_house_rule_that_names_no_game_goes_with_every_game(monkeypatch: pytest.MonkeyPatch) -> None:
    class AnyGame:
        """A rule that declares no ``KDM_REQUIRES``: nothing says which game it is for."""

        NAME = "anygame"

    installed = {**installed_plugins(), "anygame": plugin_from(AnyGame())}
    monkeypatch.setattr(lobby_module, "installed_plugins", lambda: installed)
    assert "anygame" in LobbyState("en", "kitchen").rules_of("kilo")
    assert "anygame" in LobbyState("en", "kitchen").rules_of("kems")
    assert "spoons" not in LobbyState("en", "kitchen").rules_of("kems")


def test_the_games_are_named_as_their_plugins_name_them(monkeypatch: pytest.MonkeyPatch) -> None:
    state = form_state()
    state.field_index = [field.key for field in state.fields].index("game")
    text = "".join(fragment[1] for fragment in body(state))
    assert "◂ Kilo de merde ▸" in text
    state.change(1)
    assert "◂ Kem's ▸" in "".join(fragment[1] for fragment in body(state))

    class Belote:
        """A third party's game, with its own name on screen."""

        NAME, KDM_MODE, KDM_TITLE = "belote", True, "La belote"

    assert plugin_from(Belote()).title == "La belote" and plugin_from(object()).title == "object"


def test_the_form_takes_your_name_and_the_lobby_remembers_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    choice = lobby("c" + DOWN + "\x7f" * 3 + "Zoé" + "\r")  # "Ana" erased, "Zoé" typed
    assert isinstance(choice, Create) and choice.player == "Zoé"
    empty = LobbyState("en", "kitchen")
    empty.start_create()
    empty.submit()
    assert not empty.done and empty.message == "your name ?"

    seen: list[str] = []

    async def fake_lobby(*_args: Any, **_kwargs: Any) -> Create:
        return choice

    async def host(config: SessionConfig, *_args: Any, **_kwargs: Any) -> None:
        seen.append(config.name)

    monkeypatch.setattr(command, "run_lobby", fake_lobby)
    monkeypatch.setattr(session, "host", host)
    config = SessionConfig(interface="127.0.0.1", name="Ana", data_dir=tmp_path)
    asyncio.run(command.from_the_lobby(config, {}, [], TableUI()))
    assert seen == ["Zoé"] and Settings.load(tmp_path) == Settings("Zoé", "kitchen")


def test_a_french_form_words_the_options_in_french() -> None:
    state = form_state("fr")
    state.field_index = [field.key for field in state.fields].index("option:direction")
    text = "".join(fragment[1] for fragment in body(state))
    assert "sens du passage" in text and "◂ vers la dame de pique ▸" in text
    assert "vers qui tient la dame de pique" in text  # its help
    assert "direction" not in text and "toward-queen-of-spades" not in text
    state.change(1)
    assert "◂ à gauche ▸" in "".join(fragment[1] for fragment in body(state))
    assert "couleurs" in text and "oui" in text  # suit_combos on
