"""Table options: declared by plugins, chosen when a table is created, the same on every peer.

A plugin declares its options with ``kdm_table_options``; this module parses ``NAME=VALUE`` text into
typed values and says, in one line, what is allowed when a name or a value is wrong. An option may
bring its words in French (``OptionWords``): the lobby's form and the table's help show them to a
French table; ``NAME=VALUE`` is the same in every language.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kdm.errors import OptionError


@dataclass(frozen=True)
class OptionWords:
    """An option's words in another language than English: a label for its name, its help, and
    names for its values (``(("bottom", "dessous"), ...)``; a value not named is shown as it is)."""

    label: str
    help: str
    values: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class TableOption:
    """One table option.

    ``type`` is ``int``, ``bool`` or ``str``. ``choices`` limits a ``str`` option; ``minimum`` and
    ``maximum`` bound an ``int`` option; ``words`` are extra string values an ``int`` option accepts
    (``rounds=pile``). ``french`` is how a French table words it (in English, its name and ``help``).
    """

    name: str
    type: type
    default: Any
    help: str
    plugin: str = ""
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    words: tuple[str, ...] = field(default=())
    french: OptionWords | None = None

    def label(self, lang: str) -> str:
        """What the option is called on screen in ``lang``: its name, or its French label."""
        return self.french.label if lang == "fr" and self.french is not None else self.name

    def described(self, lang: str) -> str:
        """The option's help in ``lang`` (English when it brings no French)."""
        return self.french.help if lang == "fr" and self.french is not None else self.help

    def shown(self, value: Any, lang: str) -> str:
        """``value`` as a person reads it in ``lang``: on/off (oui/non), or the value's French name."""
        if isinstance(value, bool):
            return ("oui" if value else "non") if lang == "fr" else ("on" if value else "off")
        if lang == "fr" and self.french is not None:
            return dict(self.french.values).get(str(value), str(value))
        return str(value)

    def allowed(self) -> str:
        """What values are allowed, in words."""
        if self.type is bool:
            return "on or off"
        if self.type is int:
            low = "" if self.minimum is None else f"{self.minimum}"
            high = "" if self.maximum is None else f"{self.maximum}"
            if low and high:
                text = f"an integer from {low} to {high}"
            elif low:
                text = f"an integer of at least {low}"
            else:
                text = "an integer"
            return " or ".join([text, *self.words])
        if self.choices:
            return "one of " + ", ".join(self.choices)
        return "any text"

    def parse(self, value: Any) -> Any:
        """``value`` (text from a command line, or already typed) as this option's type."""
        problem = OptionError(f"option {self.name}: {value!r} is not allowed; use {self.allowed()}")
        if self.type is bool:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("on", "true", "yes", "1"):
                return True
            if text in ("off", "false", "no", "0"):
                return False
            raise problem
        if self.type is int:
            if isinstance(value, str) and value in self.words:
                return value
            if isinstance(value, bool):
                raise problem
            try:
                number = int(value)
            except (TypeError, ValueError):
                raise problem from None
            if (self.minimum is not None and number < self.minimum) or (
                self.maximum is not None and number > self.maximum
            ):
                raise problem
            return number
        text = str(value)
        if self.choices and text not in self.choices:
            raise problem
        return text


def parse_assignments(assignments: Iterable[str]) -> dict[str, str]:
    """``["rounds=3", "flush_to=shuffle"]`` → ``{"rounds": "3", "flush_to": "shuffle"}``."""
    result: dict[str, str] = {}
    for item in assignments:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise OptionError(f"option {item!r} must be written NAME=VALUE")
        result[name.strip()] = value.strip()
    return result


def resolve_options(declared: Iterable[TableOption], given: Mapping[str, Any]) -> dict[str, Any]:
    """Every declared option with its value: the given one parsed, or its default."""
    by_name = {option.name: option for option in declared}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        raise OptionError(
            f"unknown option {unknown[0]!r}; options of this table: {', '.join(sorted(by_name))}"
        )
    return {
        name: option.parse(given[name]) if name in given else option.default
        for name, option in sorted(by_name.items())
    }
