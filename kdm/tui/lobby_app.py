"""The lobby on screen: its layout, its keys, and ``run_lobby``, which browses the LAN while it shows.

The table list updates live from a ``TableBrowser``; where multicast is unavailable the lobby still
offers to create a table or to join one by ``HOST:PORT``. The new-table form is taller than 80×24 with
a game's every house rule and option: it scrolls to keep the chosen field and its help in view, with
a scroll bar that says there is more.
"""

from __future__ import annotations

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import HSplit, Layout, ScrollOffsets, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.margins import ScrollbarMargin
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.widgets import Frame

from kdm.identity import SeatMemory
from kdm.net.discovery import TableBrowser
from kdm.session import SessionConfig
from kdm.tui.keys import answer_escape_at_once
from kdm.tui.layout import size_polling_interval, table_style
from kdm.tui.lobby import TYPED_FIELDS, Create, Join, LobbyState

Fragments = StyleAndTextTuples
#: The width of the form's labels (a longer one is cut: the catalogues' and options' labels fit).
LABEL_WIDTH = 26


async def run_lobby(
    config: SessionConfig,
    options: dict[str, object] | None = None,
    variants: list[str] | None = None,
    input: Input | None = None,
    output: Output | None = None,
    browse: bool = True,
    state: LobbyState | None = None,
    message: str = "",
    ask_pin: Join | None = None,
) -> Join | Create | None:
    """Show the lobby until the player chooses a table to join or to create (None if they leave).

    ``message`` says why the lobby is open again (the last choice failed); with ``ask_pin``, the lobby
    asks for that table's PIN first (it refused this player without one). ``browse=False`` leaves
    the LAN alone (tests give ``state`` its tables themselves).
    """
    held = SeatMemory(config.data_dir).held() if config.keep_identity else {}
    state = state or LobbyState(
        config.lang, config.table, dict(options or {}), variants, message=message, held=held,
        ask_pin=ask_pin, player=config.name,
    )  # fmt: skip
    app = lobby_application(state, input, output)
    browser = TableBrowser(on_change=lambda: state.set_tables(browser.tables()))
    if browse:
        try:
            await browser.start(config.interface)
        except OSError as error:  # no multicast here: HOST:PORT and creating still work
            state.message = str(error)
    try:
        await app.run_async()
    finally:
        await browser.close()
    return state.choice


def lobby_application(state: LobbyState, input: Input | None, output: Output | None) -> Application[None]:
    """The lobby's full-screen application, redrawn whenever ``state`` changes."""
    app: Application[None] = Application(
        layout=lobby_layout(state),
        key_bindings=lobby_bindings(state),
        style=table_style(),
        color_depth=ColorDepth.from_env,
        full_screen=True,
        input=input,
        output=output,
        terminal_size_polling_interval=size_polling_interval(),
    )
    answer_escape_at_once(app)
    state.on_change = app.invalidate
    return app


def lobby_layout(state: LobbyState) -> Layout:
    return Layout(
        HSplit(
            [
                Window(FormattedTextControl(lambda: header(state)), height=1, style="class:header"),
                Frame(
                    Window(
                        # The cursor (hidden) marks the chosen field: the window scrolls to it.
                        FormattedTextControl(lambda: body(state), show_cursor=False),
                        wrap_lines=True,
                        scroll_offsets=ScrollOffsets(top=1, bottom=1),
                        right_margins=[ScrollbarMargin(display_arrows=True)],
                    ),
                    title=lambda: title(state),
                ),
                Window(FormattedTextControl(lambda: prompt(state)), height=1),
                Window(FormattedTextControl(lambda: footer(state)), height=1, style="class:footer"),
            ]
        )
    )


def header(state: LobbyState) -> Fragments:
    return [("class:header.title", " kdm "), ("", state.say("lobby"))]


def title(state: LobbyState) -> str:
    return state.say("create_title" if state.mode == "create" else "lobby")


def body(state: LobbyState) -> Fragments:
    if state.mode == "create":
        return form(state)
    if not state.tables:
        return [("class:dim", state.say("no_tables"))]
    lines: Fragments = [("class:dim", state.say("lobby_columns") + "\n")]
    for index, ad in enumerate(state.tables):
        variants = [plugin.split("=", 1)[0] for plugin in ad.plugins]
        game = "+".join([state.title(ad.mode), *(name for name in variants if name != ad.mode)])
        seats = f"{ad.seats_taken}/{ad.seats_total}"
        row = f"{'▸' if index == state.selected else ' '} {ad.name[:20]:<20} {game[:20]:<20} {seats:>5}  "
        row += state.say(f"state_{ad.state}")
        if ad.pin:
            row += " · " + state.say("with_pin")
        if state.holds_seat(ad):
            row += " · " + state.say("your_seat")
        full = ad.seats_taken >= ad.seats_total
        style = "reverse" if index == state.selected else "class:dim" if full else ""
        lines += [(style, row), ("", "\n")]
        if index == state.selected and len(game) > 20:
            lines += [("class:dim", f"    {game}"), ("", "\n")]  # the whole list of house rules
        if index == state.selected and ad.fingerprint:
            lines += [("class:dim", "    " + state.say("lobby_key", fingerprint=ad.fingerprint)), ("", "\n")]
    return lines


def form(state: LobbyState) -> Fragments:
    lines: Fragments = []
    for index, entry in enumerate(state.fields):
        value = entry.value
        chosen = index == state.field_index
        if entry.option is not None:
            shown = entry.option.shown(value, state.lang)
        elif isinstance(value, bool):
            shown = state.say("on" if value else "off")
        elif entry.key == "game":
            shown = state.title(value)
        else:
            shown = str(value) + ("█" if chosen and entry.key in TYPED_FIELDS else "")
        marker = "▸" if chosen else " "
        arrows = "◂ " + shown + " ▸" if chosen and entry.key not in TYPED_FIELDS else shown
        # The cursor goes on the chosen field's last line (its help, if any), so both scroll into view.
        cursor = [("[SetCursorPosition]", "")] if chosen and not entry.help else []
        row = f"{marker} {entry.label[:LABEL_WIDTH]:<{LABEL_WIDTH}} {arrows}"
        lines += [*cursor, ("reverse" if chosen else "", row), ("", "\n")]
        if chosen and entry.help:
            lines += [("[SetCursorPosition]", ""), ("class:dim", f"    {entry.help}"), ("", "\n")]
    return lines


def prompt(state: LobbyState) -> Fragments:
    if state.mode == "address" and not state.message:
        return [("bold", " " + state.say("address_prompt")), ("", state.address + "█")]
    if state.mode == "pin" and state.pin_for is not None:
        table = state.pin_for.name or state.pin_for.target
        shown = [("class:message", "  " + state.message)] if state.message else []
        return [
            ("bold", " " + state.say("pin_prompt", table=table)),
            ("", "•" * len(state.pin) + "█"),
            *shown,
        ]
    if state.message:
        return [("class:message", " " + state.message)]
    hint = state.hint()
    return [("class:call", " " + hint)] if hint else []


def footer(state: LobbyState) -> Fragments:
    key = {"create": "create_footer", "address": "address_footer", "pin": "pin_footer"}.get(
        state.mode, "lobby_footer"
    )
    return [("", " " + state.say(key))]


def lobby_bindings(state: LobbyState) -> KeyBindings:
    bindings = KeyBindings()
    listing = Condition(lambda: state.mode == "list")
    typing = Condition(lambda: state.mode != "list")

    def finish(event: KeyPressEvent) -> None:
        if state.done:
            event.app.exit()

    @bindings.add("up")
    def _up(event: KeyPressEvent) -> None:
        state.move(-1)

    @bindings.add("down")
    def _down(event: KeyPressEvent) -> None:
        state.move(1)

    @bindings.add("left")
    def _left(event: KeyPressEvent) -> None:
        state.change(-1)

    @bindings.add("right")
    def _right(event: KeyPressEvent) -> None:
        state.change(1)

    @bindings.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        state.submit()
        finish(event)

    @bindings.add("c", filter=listing)
    def _create(event: KeyPressEvent) -> None:
        state.start_create()

    @bindings.add("a", filter=listing)
    def _address(event: KeyPressEvent) -> None:
        state.start_address()

    @bindings.add("q", filter=listing)
    @bindings.add("c-c")
    def _leave(event: KeyPressEvent) -> None:
        state.leave()
        finish(event)

    @bindings.add("escape", filter=typing)
    def _back(event: KeyPressEvent) -> None:
        state.back()

    @bindings.add("backspace", filter=typing)
    def _erase(event: KeyPressEvent) -> None:
        state.backspace()

    @bindings.add(Keys.Any, filter=typing)
    def _type(event: KeyPressEvent) -> None:
        if event.data.isprintable():
            state.type_text(event.data)

    return bindings
