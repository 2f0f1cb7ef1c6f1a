"""The lobby's state: the tables on the LAN, the join-by-address line and the new-table form.

Pure logic, no prompt_toolkit (``lobby_app`` draws it and binds its keys). The lobby ends with a
choice, ``Join(target)`` or ``Create(...)``, or None when the player leaves; the caller then runs the
session, and opens the lobby again, with the reason, if that fails: a mistake never ends the program.
A table where this player holds a seat (``kdm.identity.SeatMemory``) is marked, chosen first, and
Enter returns to it. The form's fields come from the installed plugins: the game (every game mode
installed, by the name its plugin gives it, ``KDM_TITLE``), one on/off field per house rule of that
game (``kdm.manager.game_of``: a rule that requires no game goes with any), and one field per table
option of the game and the chosen rules, in the player's language (``TableOption.label``), each
changed with ←/→; a table the rules refuse is explained in the form, which stays open. The form also
takes the player's own name, which the caller remembers with the table's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from kdm.errors import KdmError
from kdm.manager import Rules, default_mode, game_of, installed_plugins
from kdm.net.admission import check_pin
from kdm.net.discovery import TableAd, parse_contact
from kdm.options import TableOption
from kdm.tui.text import say

MIN_PLAYERS, MAX_PLAYERS = 3, 10
#: The form's fields that are typed rather than stepped with ←/→.
TYPED_FIELDS = ("name", "player", "pin")


@dataclass(frozen=True)
class Join:
    """Join ``target`` (``HOST:PORT[~KEY]`` or a name); ``addresses`` (``HOST:PORT~KEY``) are tried
    first, in order."""

    target: str
    addresses: tuple[str, ...] = ()
    #: The table's PIN, when it has one (asked before joining a table advertised with one, or after
    #: a table refused to let this player in without it).
    pin: str = ""
    #: The table's name, to ask for its PIN by.
    name: str = ""


@dataclass(frozen=True)
class Create:
    table: str
    players: int
    bots: int
    options: dict[str, Any]
    variants: list[str]
    #: The PIN joiners must prove ("": anyone may join).
    pin: str = ""
    #: The name the player sits under ("": the one they had).
    player: str = ""


@dataclass
class Field:
    """One line of the new-table form: a label, a value, the values ←/→ step through, and the help
    shown under it while it is chosen."""

    key: str
    label: str
    value: Any
    option: TableOption | None = None
    help: str = ""


def step_of(option: TableOption) -> int:
    """An int option's ←/→ step: about a hundredth of its default's size (4000 ms steps by 100)."""
    default = option.default if isinstance(option.default, int) else 1
    return int(10 ** max(0, len(str(abs(default))) - 2))


def stepped(option: TableOption, value: Any, direction: int) -> Any:
    """``option``'s value one step from ``value`` (bools flip, choices and words cycle, ints step)."""
    if option.type is bool:
        return not value
    if option.choices:
        index = option.choices.index(value) if value in option.choices else 0
        return option.choices[(index + direction) % len(option.choices)]
    if option.type is int:
        low = option.minimum if option.minimum is not None else 0
        if isinstance(value, str):  # a word ("pile"): stepping leaves it for the numbers
            return low if direction > 0 else option.maximum or low
        number = value + direction * step_of(option)
        if number < low:
            return option.words[0] if option.words else low
        if option.maximum is not None and number > option.maximum:
            return option.maximum
        return number
    return value


class LobbyState:
    """What the lobby shows and how its keys change it."""

    def __init__(
        self,
        lang: str = "en",
        table_name: str = "",
        options: dict[str, Any] | None = None,
        variants: list[str] | None = None,
        on_change: Callable[[], None] | None = None,
        message: str = "",
        held: Mapping[str, Mapping[str, Any]] | None = None,
        ask_pin: Join | None = None,
        player: str = "",
    ) -> None:
        self.lang = lang
        self.on_change = on_change or (lambda: None)
        self.tables: list[TableAd] = []
        self.selected = 0
        self.mode = "list"  # "list", "address", "create" or "pin"
        self.address = ""
        #: The table whose PIN the player is typing (mode "pin"), and what they typed.
        self.pin_for: Join | None = None
        self.pin = ""
        self.message = message
        #: The tables (by id) where this player holds a seat: table id -> {"name", "seat"}.
        self.held = dict(held or {})
        self.choice: Join | Create | None = None
        self.done = False
        self.fields: list[Field] = []
        self.field_index = 0
        self._given = dict(options or {})
        self._table_name = table_name
        self._player = player
        self._variants = list(variants or [])
        plugins = installed_plugins()
        #: The games a table may play (the base game first) and the house rules one may add.
        self.default_game = default_mode(plugins)
        modes = sorted(name for name, info in plugins.items() if info.mode and name != self.default_game)
        self.games = [self.default_game, *modes]
        self.installed = sorted(name for name, info in plugins.items() if not info.mode)
        #: Each plugin's name as people say it ("Kilo de merde"), and the game each house rule plays.
        self.titles = {name: info.title for name, info in plugins.items()}
        self._game_of = {name: game_of(name, plugins) for name in self.installed}
        chosen = [name for name in self._variants if name in self.games]
        self._game = chosen[0] if chosen else self.default_game
        if ask_pin is not None:
            self.ask_pin(ask_pin)

    def say(self, key: str, **fields: object) -> str:
        return say(self.lang, key, **fields)

    def title(self, plugin: str) -> str:
        """``plugin``'s name as people say it, or the name itself if it is not installed here."""
        return self.titles.get(plugin, plugin)

    def rules_of(self, game: str) -> list[str]:
        """The house rules a table of ``game`` may add: its own, and those that name no game."""
        return [name for name in self.installed if self._game_of[name] in (game, None)]

    # --- tables -----------------------------------------------------------------------------------

    def set_tables(self, tables: list[TableAd]) -> None:
        first_time = not self.tables
        self.tables = tables
        mine = [index for index, ad in enumerate(tables) if self.holds_seat(ad)]
        if mine and first_time:
            self.selected = mine[0]  # the table this player has a seat at comes first
        self.selected = max(0, min(self.selected, len(tables) - 1))
        self.on_change()

    def holds_seat(self, ad: TableAd) -> bool:
        """Whether this player has a seat at ``ad``'s table (as last seen on this machine)."""
        return ad.table_id in self.held and ad.state != "over"

    def hint(self) -> str:
        """What Enter does on the chosen table, when it is more than joining."""
        if self.mode != "list" or not self.tables:
            return ""
        ad = self.tables[self.selected]
        if self.holds_seat(ad):
            return self.say("return_to_seat", table=ad.name)
        if ad.state == "playing" or ad.seats_taken >= ad.seats_total:
            return self.say("enter_to_watch", table=ad.name)
        return ""

    def move(self, step: int) -> None:
        if self.mode == "create" and self.fields:
            self.field_index = (self.field_index + step) % len(self.fields)
        elif self.tables:
            self.selected = (self.selected + step) % len(self.tables)
        self.on_change()

    def join_selected(self) -> None:
        if self.tables:
            ad = self.tables[self.selected]
            join = Join(ad.contacts[0], ad.contacts, name=ad.name)
            if ad.pin and not self.holds_seat(ad):  # back to a seat, the seat's key is proof enough
                self.ask_pin(join)
            else:
                self._finish(join)

    def ask_pin(self, join: Join) -> None:
        """Ask for the PIN of the table ``join`` goes to, then join it."""
        self.mode, self.pin_for, self.pin = "pin", join, ""
        self.on_change()

    # --- typing an address ------------------------------------------------------------------------

    def start_address(self) -> None:
        self.mode, self.address, self.message = "address", "", ""
        self.on_change()

    def type_text(self, text: str) -> None:
        """Printable keys: the address line, a PIN, or the table name or PIN in the form."""
        digits = "".join(c for c in text if c.isascii() and c.isdigit())
        if self.mode == "address":
            self.address, self.message = self.address + text, ""
        elif self.mode == "pin":
            self.pin, self.message = (self.pin + digits)[:12], ""
        elif self.mode == "create" and self.fields[self.field_index].key in ("name", "player"):
            self.fields[self.field_index].value += text
        elif self.mode == "create" and self.fields[self.field_index].key == "pin":
            self.fields[self.field_index].value = (self.fields[self.field_index].value + digits)[:12]
        self.on_change()

    def backspace(self) -> None:
        if self.mode == "address":
            self.address, self.message = self.address[:-1], ""
        elif self.mode == "pin":
            self.pin, self.message = self.pin[:-1], ""
        elif self.mode == "create" and self.fields[self.field_index].key in TYPED_FIELDS:
            self.fields[self.field_index].value = self.fields[self.field_index].value[:-1]
        self.on_change()

    def submit(self) -> None:
        if self.mode == "list":
            self.join_selected()
        elif self.mode == "address" and self.address.strip():
            target = self.address.strip()
            problem = mistyped_address(target)
            if problem:
                self.message = problem  # stays here, to be corrected
                self.on_change()
            else:
                self._finish(Join(target))
        elif self.mode == "create":
            self._create()
        elif self.mode == "pin" and self.pin_for is not None:
            try:
                check_pin(self.pin)
            except ValueError:
                self.message = self.say("bad_pin")
                self.on_change()
                return
            self._finish(replace(self.pin_for, pin=self.pin))

    def back(self) -> None:
        self.mode, self.message, self.pin_for, self.pin = "list", "", None, ""
        self.on_change()

    def leave(self) -> None:
        self._finish(None)

    def _finish(self, choice: Join | Create | None) -> None:
        self.choice, self.done = choice, True
        self.on_change()

    # --- the new-table form -----------------------------------------------------------------------

    def start_create(self) -> None:
        self.mode, self.message, self.field_index = "create", "", 0
        self._build_fields(
            {"name": self._table_name, "player": self._player, "game": self._game, "players": 4, "bots": 0}
        )
        self.on_change()

    def _build_fields(self, kept: dict[str, Any]) -> None:
        """The form for the chosen game and house rules, keeping the values already set."""
        game = kept.get("game", self._game)
        offered = self.rules_of(game)
        variants = [name for name in offered if kept.get(f"variant:{name}", name in self._variants)]
        self.message = ""
        try:
            declared = Rules.for_table(self._table_plugins(game, variants)).options()
        except KdmError as error:
            self.message, declared = str(error), []
        self.fields = [
            Field("name", self.say("field_name"), kept.get("name", "")),
            Field("player", self.say("field_player"), kept.get("player", "")),
            Field("game", self.say("field_game"), game),
            Field("players", self.say("field_players"), kept.get("players", 4)),
            Field("bots", self.say("field_bots"), kept.get("bots", 0)),
            Field("pin", self.say("field_pin"), kept.get("pin", ""), help=self.say("field_pin_help")),
        ]
        self.fields += [
            Field(f"variant:{name}", self.say("field_variant", name=self.title(name)), name in variants)
            for name in offered
        ]
        for option in declared:
            given = self._given.get(option.name, option.default)
            try:
                value = kept.get(f"option:{option.name}", option.parse(given))
            except KdmError:
                value = option.default
            label, described = option.label(self.lang), option.described(self.lang)
            self.fields.append(Field(f"option:{option.name}", label, value, option, described))

    def change(self, direction: int) -> None:
        """←/→ on the chosen field."""
        if self.mode != "create":
            return
        current = self.fields[self.field_index]
        values = {f.key: f.value for f in self.fields}
        if current.key == "players":
            current.value = max(MIN_PLAYERS, min(MAX_PLAYERS, current.value + direction))
            bots = next(f for f in self.fields if f.key == "bots")
            bots.value = min(bots.value, current.value - 1)
        elif current.key == "bots":
            current.value = max(0, min(values["players"] - 1, current.value + direction))
        elif current.key == "game":
            current.value = self.games[(self.games.index(current.value) + direction) % len(self.games)]
            values[current.key] = current.value
            self._build_fields(values)  # another game: other options
        elif current.key.startswith("variant:"):
            current.value = not current.value
            values[current.key] = current.value
            self._build_fields(values)  # a variant brings (or takes away) its options
        elif current.option is not None:
            current.value = stepped(current.option, current.value, direction)
        self.on_change()

    def _create(self) -> None:
        values = {f.key: f.value for f in self.fields}
        name, player = str(values["name"]).strip(), str(values["player"]).strip()
        if not name or not player:
            self.message = self.say("field_name" if not name else "field_player") + " ?"
            self.on_change()
            return
        pin = str(values["pin"])
        if pin and not 4 <= len(pin) <= 12:
            self.message = self.say("bad_pin")
            self.on_change()
            return
        options = {f.option.name: f.value for f in self.fields if f.option is not None}
        variants = [key.split(":", 1)[1] for key, on in values.items() if key.startswith("variant:") and on]
        plugins = self._table_plugins(str(values["game"]), variants)
        try:
            # The rules' own refusal (Kem's is for 4, 6 or 8), said here: the form stays open.
            Rules.for_table(plugins).resolve(int(values["players"]), dict(options))
        except KdmError as error:
            self.message = str(error)
            self.on_change()
            return
        self._finish(Create(name, int(values["players"]), int(values["bots"]), options, plugins, pin, player))

    def _table_plugins(self, game: str, variants: list[str]) -> list[str]:
        """What ``Rules.for_table`` takes: the game unless it is the base game, then the house rules."""
        return ([game] if game != self.default_game else []) + variants


def mistyped_address(text: str) -> str:
    """Why ``text`` is neither a table name nor ``HOST:PORT[~KEY]`` (empty when it may be either): a
    name has no colon, so anything with one must be a good address."""
    if ":" not in text:
        return ""
    try:
        parse_contact(text)
    except ValueError as error:
        return str(error)
    return ""
