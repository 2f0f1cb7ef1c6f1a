"""The table screen's layout and style: where each panel goes, and how the screen's classes look.

A header line; on the left the players and the table, on the right the event log; then the hand, one
line of feedback and the key footer; overlays for help, the quit question, the scoreboard and the final
ranking. ``table_layout`` lays out what a game's ``Panels`` say (the base game's screen uses it with its
own); ``build_layout`` is the waiting room every game shares, with the panels of ``panels``. Fits
80×24; a larger terminal gets a wider, longer log. Colour is decoration only: with ``NO_COLOR`` (one-bit
output) the chosen card, slaps and feints still stand out by reverse video, bold and italics.
"""

from __future__ import annotations

import signal
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice

from prompt_toolkit.application import get_app
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text.utils import split_lines
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style
from prompt_toolkit.utils import in_main_thread
from prompt_toolkit.widgets import Frame

from kdm.tui import panels as shared
from kdm.tui.panels import LEFT_COLUMN, Fragments, message_text, quit_text
from kdm.tui.state import LogLine, TableScreen

#: Rows of the terminal a window over the screen leaves free: its frame's two and one above and below.
OVERLAY_MARGIN_ROWS = 4

COLOURS = {
    "header": "bg:#1f3a5f #ffffff",
    "header.title": "bold",
    "panel": "bg:#303030 #ffffff bold",
    "rule": "#585858",
    "dim": "#888888",
    "me": "bold",
    "turn": "bold #ffd75f",
    "lost": "#ff5f5f italic",
    "card": "bg:#ffffff #000000 bold",
    "card.red": "#cc0000",
    "card.joker": "#8700af",
    "mark": "bold #87d7ff",
    "chosen": "reverse underline",
    "label": "#888888",
    "slap": "bg:#cc0000 #ffffff bold",
    "feint": "#ff8700 italic",
    "result": "#87d7ff",
    "call": "#d7afff italic",
    "round": "bold #afd787",
    "error": "#ff5f5f",
    "message": "#ffd75f",
    "footer": "bg:#303030 #d0d0d0",
    "winner": "bold #ffd75f",
}
#: Without colour (``NO_COLOR``), what colour told apart is told by attributes.
NO_COLOUR_ATTRIBUTES = {
    "header": "reverse",
    "panel": "underline bold",
    "turn": "bold underline",
    "slap": "reverse bold",
    "feint": "italic",
    "footer": "reverse",
}


def table_style(no_colour: bool | None = None) -> Style:
    """The style of every screen; without colour for one-bit output (by default when ``NO_COLOR`` is set,
    which the applications also pass on as their colour depth)."""
    if no_colour is None:
        no_colour = ColorDepth.from_env() == ColorDepth.DEPTH_1_BIT
    return Style.from_dict({**COLOURS, **NO_COLOUR_ATTRIBUTES} if no_colour else COLOURS)


#: How often prompt_toolkit asks the terminal its size by default, where no signal says it changed.
POLLED_SIZE_EVERY_S = 0.5


def size_polling_interval() -> float | None:
    """How often a screen asks the terminal its size: never where the terminal says it changed itself
    (SIGWINCH, which prompt_toolkit handles in the main thread), else prompt_toolkit's default. Polling
    woke every screen twice a second at rest, to find the same size (issue 'Light on the CPU': a screen
    that waits, the lobby, spent 0.2 % of a core, twice the target)."""
    if hasattr(signal, "SIGWINCH") and in_main_thread():  # (prompt_toolkit's own test for its handler)
        return None
    return POLLED_SIZE_EVERY_S


@dataclass(frozen=True)
class Panels:
    """What each panel of a table screen says, read at every redraw (``table_layout`` lays them out)."""

    header: Callable[[], Fragments]
    players_title: Callable[[], str]
    players: Callable[[], Fragments]
    table: Callable[[], Fragments]
    hand: Callable[[], Fragments]
    footer: Callable[[], Fragments]
    help: Callable[[], Fragments]
    scores: Callable[[], Fragments]
    ranking: Callable[[], Fragments]


def table_layout(screen: TableScreen, panels: Panels) -> FloatContainer:
    """A whole table screen: ``panels`` in their places, with the log, the message line and the
    overlays of ``screen`` (help and scores scroll; the ranking once the game is over)."""
    # Titled panels and one rule rather than Frames: every frame is three more splits to lay out, and
    # a redraw is on the path from a key press to the screen (benchmarks/input_latency.py).
    # Every seat's row stays in view: at ten players the table panel below gives up its rows first.
    players_rows = Window(
        FormattedTextControl(panels.players), height=lambda: Dimension.exact(rows_of(panels.players()))
    )
    players = titled(panels.players_title, players_rows)
    table_rows = Window(FormattedTextControl(panels.table), wrap_lines=True)
    table = titled(lambda: screen.say("table_panel"), table_rows)
    body = HSplit(
        [
            Window(FormattedTextControl(panels.header), height=1, style="class:header"),
            VSplit(
                [
                    HSplit([players, table], width=Dimension.exact(LEFT_COLUMN)),
                    Window(width=1, char="│", style="class:rule"),
                    log_panel(screen),
                ],
                # Exact widths: prompt_toolkit shares out spare columns one at a time otherwise.
                width=lambda: Dimension.exact(columns()),
            ),
            Window(FormattedTextControl(panels.hand), height=3),
            Window(FormattedTextControl(lambda: message_text(screen)), height=1),
            Window(FormattedTextControl(panels.footer), height=1, style="class:footer"),
        ]
    )
    floats = [
        overlay(lambda: screen.say("help_title"), panels.help, lambda: screen.help_open, screen),
        overlay(lambda: screen.say("scores"), panels.scores, lambda: screen.scores_open, screen),
        overlay(
            lambda: screen.say("ranking"), panels.ranking, lambda: screen.over and not screen.scores_open
        ),
        quit_overlay(screen),
    ]
    return FloatContainer(body, floats=floats)


def build_layout(screen: TableScreen) -> Layout:
    """The waiting room every game shares (and the table of a game without a screen of its own)."""

    def of(render: Callable[[TableScreen], Fragments]) -> Callable[[], Fragments]:
        return lambda: render(screen)

    panels = Panels(
        of(shared.header_text),
        lambda: shared.players_title(screen),
        of(shared.players_text),
        of(shared.table_text),
        of(shared.hand_text),
        of(shared.footer_text),
        of(shared.help_text),
        of(shared.scores_text),
        of(shared.ranking_text),
    )
    return Layout(table_layout(screen, panels))


def columns() -> int:
    """The terminal's width."""
    return get_app().output.get_size().columns


def log_width(columns: int) -> int:
    """The log panel's width: what the left column and the rule leave (too narrow a terminal gets
    prompt_toolkit's "window too small")."""
    return max(1, columns - LEFT_COLUMN - 1)


def log_panel(screen: TableScreen) -> HSplit:
    """The event log under its title, as wide as ``log_width``."""
    panel = LogPanel(screen)
    return titled(
        lambda: screen.say("log"),
        Window(
            FormattedTextControl(panel.fragments, get_cursor_position=panel.cursor),
            wrap_lines=True,
            width=lambda: Dimension.exact(log_width(columns())),
        ),
    )


def rows_of(fragments: Fragments) -> int:
    """How many rows ``fragments`` take (their lines, unwrapped)."""
    return 1 + sum(text.count("\n") for _style, text, *_rest in fragments)


def titled(title: Callable[[], str], body: Window) -> HSplit:
    """``body`` under a one-row heading (a panel's title), lighter than a ``Frame``."""
    heading = Window(FormattedTextControl(lambda: [("", " " + title())]), height=1, style="class:panel")
    return HSplit([heading, body])


def overlay(
    title: Callable[[], str],
    render: Callable[[], Fragments],
    visible: Callable[[], bool],
    scrolled: TableScreen | None = None,
) -> Float:
    """A framed window over the screen, shown while ``visible()``. With ``scrolled``, a window taller
    than the terminal shows the lines from ``scrolled.overlay_down`` on, and says how to see the rest."""
    shown = render if scrolled is None else lambda: scrolled_lines(scrolled, render())
    frame = Frame(Window(FormattedTextControl(shown)), title=title)
    return Float(ConditionalContainer(frame, filter=Condition(visible)), transparent=False)


def scrolled_lines(screen: TableScreen, fragments: Fragments) -> Fragments:
    """The rows of ``fragments`` that fit the terminal (its height less the frame and a margin), from
    ``screen.overlay_down`` on (clamped there, so that the keys scroll from what is seen), and a last
    row saying which lines these are."""
    lines = list(split_lines(fragments))
    room = max(3, get_app().output.get_size().rows - OVERLAY_MARGIN_ROWS)
    if len(lines) <= room:
        return fragments
    first = screen.overlay_down = min(screen.overlay_down, len(lines) - room + 1)
    seen = lines[first : first + room - 1]
    more = screen.say("overlay_more", first=first + 1, last=first + len(seen), total=len(lines))
    return [*(part for line in seen for part in [*line, ("", "\n")]), ("class:dim", more)]


def quit_overlay(screen: TableScreen) -> Float:
    """The question asked before leaving a game under way, or whether to watch a table one cannot sit
    at; the same at every table."""
    return overlay(
        lambda: screen.say("watch_title" if screen.watch_offer else "quit_title"),
        lambda: quit_text(screen),
        lambda: screen.asking,
    )


class LogPanel:
    """The log's last lines, word-wrapped to the log panel (continuations indented), the newest at the
    bottom: the cursor on the last row keeps it in view. Only a screenful of rows is laid out, and each
    line is wrapped once: on the path from a key press to the screen, a redraw must stay cheap."""

    def __init__(self, screen: TableScreen) -> None:
        self.screen = screen
        self._key = (-1, -1, -1, -1)
        self._rows: list[tuple[str, str]] = []
        self._wrapped: dict[LogLine, list[tuple[str, str]]] = {}
        self._width = -1

    def rows(self) -> list[tuple[str, str]]:
        size = get_app().output.get_size()
        width = log_width(size.columns)
        back = self.screen.log_back
        if self._key == (self.screen.logged, width, size.rows, back):
            return self._rows
        if width != self._width:
            self._wrapped, self._width = {}, width
        wrapped: dict[LogLine, list[tuple[str, str]]] = {}
        # Scrolled back (PgUp): the newest ``back`` lines are left out, and the last row says so.
        rows: list[tuple[str, str]] = (
            [("class:dim", self.screen.say("log_newer_one" if back == 1 else "log_newer", count=back))]
            if back
            else []
        )
        for line in islice(reversed(self.screen.log), back, None):  # newest first, until a screenful
            if line not in wrapped:
                wrapped[line] = self._wrapped.get(line) or self._wrap(line, width)
            rows[:0] = wrapped[line]
            if len(rows) >= size.rows:
                break
        self._key, self._rows, self._wrapped = (self.screen.logged, width, size.rows, back), rows, wrapped
        return rows

    @staticmethod
    def _wrap(line: LogLine, width: int) -> list[tuple[str, str]]:
        style = f"class:{line.style}" if line.style != "info" else ""
        return [(style, row) for row in textwrap.wrap(line.text, width, subsequent_indent="  ") or [""]]

    def fragments(self) -> Fragments:
        lines: Fragments = []
        for index, (style, row) in enumerate(self.rows()):
            if index:
                lines.append(("", "\n"))
            lines.append((style, row))
        return lines

    def cursor(self) -> Point:
        return Point(0, max(0, len(self.rows()) - 1))
