"""What the table's plugins add to a game's screen's panels (their ``ScreenPart``, ``kdm.tui.extension``),
woven into the game's own: functions of the game's screen (a ``Weaving``: the ``Screen`` the parts are
given, with the parts and the peer) and its view, for any game's screen to use (the base game's does).

Status lines at the top of the table panel; marks on the players' rows and their legend, at the foot of
the table panel; the hand's status line when a plugin asks something of this seat; the footer's key
hints, which follow what the keys do now (as many as fit); the help's lines for the house rules at the
table, with a line of what their marks mean; and the rules screen below the keys, each plugin's rules in
its own words (``kdm_rules_text``).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from typing import Protocol

from prompt_toolkit.formatted_text import StyleAndTextTuples

from kdm.engine import SeatView
from kdm.peer import Peer
from kdm.tui.extension import Screen, ScreenPart
from kdm.tui.text import packed

Fragments = StyleAndTextTuples
#: The footer's width for hints (the screen's 80 columns, less its margin).
FOOTER_WIDTH = 79


class Said(Protocol):
    """What the rules' lines need of a screen: the table and the player's language."""

    @property
    def lang(self) -> str: ...

    @property
    def peer(self) -> Peer: ...

    def say(self, key: str, **fields: object) -> str: ...


class Weaving(Screen, Protocol):
    """A game's screen that weaves its plugins' parts in: the ``Screen`` they are given, with the parts
    and the table."""

    @property
    def parts(self) -> list[ScreenPart]: ...

    @property
    def peer(self) -> Peer: ...


def status_lines(screen: Weaving, view: SeatView, width: int) -> Fragments:
    """The plugins' lines at the top of the table panel (``ScreenPart.status``)."""
    lines: Fragments = []
    for part in screen.parts:
        if part.status is not None:
            lines += part.status(screen, view, width)
    return lines


# --- the players' rows --------------------------------------------------------------------------------


def seat_marks(screen: Weaving, view: SeatView, seat: int) -> str:
    """The plugins' marks after a seat's row (``ScreenPart.marks``)."""
    return "".join(part.marks(view, seat) for part in screen.parts if part.marks is not None)


def legend(screen: Weaving, view: SeatView, width: int) -> list[str]:
    """What the marks on the rows mean, for the marks shown now (none: no legend)."""
    words = [word for part in screen.parts if part.legend is not None for word in part.legend(screen, view)]
    return packed(words, width)


# --- the hand, the footer and the help ------------------------------------------------------------


def hand_status(screen: Weaving, view: SeatView) -> tuple[str, str] | None:
    """What a plugin asks of this seat now, for the hand's status line (None: the base game's)."""
    for part in screen.parts:
        asked = part.hand_status(screen, view) if part.hand_status is not None else None
        if asked is not None:
            return asked
    return None


def footer_hints(
    screen: Weaving, view: SeatView | None, names: Sequence[str], optional: Sequence[str] = ()
) -> list[str]:
    """The keys ``names`` (those that work at the table now), as the plugins change them, as many as
    fit the footer, leaving out the ``optional`` ones (in that order) first."""
    hints = [screen.say(name) for name in names]
    for part in screen.parts:
        if part.hints is not None:
            hints = part.hints(screen, view, hints)
    return fitted([hint for hint in hints if hint], [screen.say(name) for name in optional])


def fitted_hints(names: list[str], optional: tuple[str, ...], say: Callable[[str], str]) -> list[str]:
    """The hints ``names`` in words, less the ``optional`` ones (in that order) until they fit the footer."""
    return fitted([say(hint) for hint in names], [say(hint) for hint in optional])


def fitted(hints: list[str], optional: list[str]) -> list[str]:
    """``hints``, less the ``optional`` ones (in that order) until they fit the footer."""
    hints = list(hints)
    for hint in optional:
        if len("  ".join(hints)) <= FOOTER_WIDTH:
            break
        if hint in hints:
            hints.remove(hint)
    return hints


def help_lines(screen: Weaving) -> str:
    """The help's part for the house rules at this table (empty at a table of the game alone)."""
    names = [info.name for info in screen.peer.record.rules.plugins if not info.mode]
    if not names:
        return ""
    lines = ["", "", screen.say("help_variants", names=", ".join(names))]  # after a blank line
    lines += [screen.say(key) for part in screen.parts for key in part.help]
    marks = [screen.say(key) for part in screen.parts for key in part.marks_help]
    if marks:
        lines.append(screen.say("help_marks", marks="  ".join(marks)))
    return "\n".join(lines)


def rules_lines(screen: Said, width: int) -> Fragments:
    """The rules of the game and of each house rule at the table, as their plugins word them
    (``kdm_rules_text``): each title in bold, its paragraphs flowed to ``width``; then the options this
    table changed from their defaults."""
    record = screen.peer.record
    if record.engine is None:
        return []
    lines: Fragments = []
    for text in record.rules.rules_texts(screen.lang):
        title, _, body = text.partition("\n")
        lines += [("", "\n\n"), ("bold", title.strip())]
        paragraphs = [" ".join(paragraph.split()) for paragraph in body.split("\n\n")]
        lines.append(("", "\n" + "\n\n".join(textwrap.fill(said, width) for said in paragraphs if said)))
    changed = table_options(screen)
    if changed:
        lines += [
            ("", "\n\n"),
            ("class:dim", textwrap.fill(screen.say("rules_options", options=changed), width)),
        ]
    return lines


def table_options(screen: Said) -> str:
    """The options this table set away from their defaults, as ``name value`` pairs in the screen's
    language ("" for none)."""
    engine = screen.peer.record.engine
    if engine is None:
        return ""
    chosen = engine.state.options
    changed = [
        f"{option.label(screen.lang)} {option.shown(chosen[option.name], screen.lang)}"
        for option in engine.rules.options()
        if option.name in chosen and chosen[option.name] != option.default
    ]
    return ", ".join(changed)
