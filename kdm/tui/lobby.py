"""The lobby's state: the tables on the LAN, the join-by-address line and the new-table form.

Pure logic, no prompt_toolkit (``lobby_view`` draws it and binds its keys). The lobby ends with a
choice, ``Join(target)`` or ``Create(...)``, or None when the player leaves; the caller then runs the
session. The form's fields come from the installed plugins: one on/off field per variant, and one field
per table option of the base game and the chosen variants, each changed with ←/→.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kdm.errors import KdmError
from kdm.manager import Rules, installed_plugins
from kdm.net.discovery import TableAd
from kdm.options import TableOption
from kdm.tui.text import say

MIN_PLAYERS, MAX_PLAYERS = 3, 10


@dataclass(frozen=True)
class Join:
    target: str


@dataclass(frozen=True)
class Create:
    table: str
    players: int
    bots: int
    options: dict[str, Any]
    variants: list[str]


@dataclass
class Field:
    """One line of the new-table form: a label, a value, and the values ←/→ step through."""

    key: str
    label: str
    value: Any
    option: TableOption | None = None


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
    ) -> None:
        self.lang = lang
        self.on_change = on_change or (lambda: None)
        self.tables: list[TableAd] = []
        self.selected = 0
        self.mode = "list"  # "list", "address" or "create"
        self.address = ""
        self.message = ""
        self.choice: Join | Create | None = None
        self.done = False
        self.fields: list[Field] = []
        self.field_index = 0
        self._given = dict(options or {})
        self._table_name = table_name
        self._variants = list(variants or [])
        # Variants only: a table plays the base game (another game mode is chosen with --variant).
        self.installed = sorted(name for name, info in installed_plugins().items() if not info.mode)

    def say(self, key: str, **fields: object) -> str:
        return say(self.lang, key, **fields)

    # --- tables -----------------------------------------------------------------------------------

    def set_tables(self, tables: list[TableAd]) -> None:
        self.tables = tables
        self.selected = max(0, min(self.selected, len(tables) - 1))
        self.on_change()

    def move(self, step: int) -> None:
        if self.mode == "create" and self.fields:
            self.field_index = (self.field_index + step) % len(self.fields)
        elif self.tables:
            self.selected = (self.selected + step) % len(self.tables)
        self.on_change()

    def join_selected(self) -> None:
        if self.tables:
            ad = self.tables[self.selected]
            self._finish(Join(f"{ad.host}:{ad.port}"))

    # --- typing an address ------------------------------------------------------------------------

    def start_address(self) -> None:
        self.mode, self.address, self.message = "address", "", ""
        self.on_change()

    def type_text(self, text: str) -> None:
        """Printable keys: the address line, or the table name in the form."""
        if self.mode == "address":
            self.address += text
        elif self.mode == "create" and self.fields[self.field_index].key == "name":
            self.fields[self.field_index].value += text
        self.on_change()

    def backspace(self) -> None:
        if self.mode == "address":
            self.address = self.address[:-1]
        elif self.mode == "create" and self.fields[self.field_index].key == "name":
            self.fields[self.field_index].value = self.fields[self.field_index].value[:-1]
        self.on_change()

    def submit(self) -> None:
        if self.mode == "list":
            self.join_selected()
        elif self.mode == "address" and self.address.strip():
            self._finish(Join(self.address.strip()))
        elif self.mode == "create":
            self._create()

    def back(self) -> None:
        self.mode, self.message = "list", ""
        self.on_change()

    def leave(self) -> None:
        self._finish(None)

    def _finish(self, choice: Join | Create | None) -> None:
        self.choice, self.done = choice, True
        self.on_change()

    # --- the new-table form -----------------------------------------------------------------------

    def start_create(self) -> None:
        self.mode, self.message, self.field_index = "create", "", 0
        self._build_fields({"name": self._table_name, "players": 4, "bots": 0})
        self.on_change()

    def _build_fields(self, kept: dict[str, Any]) -> None:
        """The form for the chosen variants, keeping the values already set."""
        variants = [name for name in self.installed if kept.get(f"variant:{name}", name in self._variants)]
        try:
            declared = Rules.for_table(variants).options()
        except KdmError as error:
            self.message, declared = str(error), []
        self.fields = [
            Field("name", self.say("field_name"), kept.get("name", "")),
            Field("players", self.say("field_players"), kept.get("players", 4)),
            Field("bots", self.say("field_bots"), kept.get("bots", 0)),
        ]
        self.fields += [
            Field(f"variant:{name}", self.say("field_variant", name=name), name in variants)
            for name in self.installed
        ]
        for option in declared:
            given = self._given.get(option.name, option.default)
            try:
                value = kept.get(f"option:{option.name}", option.parse(given))
            except KdmError:
                value = option.default
            self.fields.append(Field(f"option:{option.name}", option.name, value, option))

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
        elif current.key.startswith("variant:"):
            current.value = not current.value
            values[current.key] = current.value
            self._build_fields(values)  # a variant brings (or takes away) its options
        elif current.option is not None:
            current.value = stepped(current.option, current.value, direction)
        self.on_change()

    def _create(self) -> None:
        values = {f.key: f.value for f in self.fields}
        name = str(values["name"]).strip()
        if not name:
            self.message = self.say("field_name") + " ?"
            self.on_change()
            return
        options = {f.option.name: f.value for f in self.fields if f.option is not None}
        variants = [key.split(":", 1)[1] for key, on in values.items() if key.startswith("variant:") and on]
        self._finish(Create(name, int(values["players"]), int(values["bots"]), options, variants))
