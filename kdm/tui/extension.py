"""What a plugin adds to the terminal table: its ``ScreenPart``, answered through the ``kdm_tui`` hook.

A house rule that gives players something to do needs a way for a person to do it: a key, a line on the
table saying what is going on, maybe a mark beside a player's name, a line of help, all in English and
French. A plugin says so with one ``ScreenPart``; the table screen (``kdm.tui``) asks every plugin of
the table for theirs and weaves them in. The built-in variants use this exactly as a third party's
package does, from their own modules (``kdm.plugins.piles_screen`` ...).

A game brings more: its whole table screen (``GameScreen``, which is prompt_toolkit's containers and
key bindings), shown instead of the waiting room while the seat's view has the game's part. The base
game's (``kdm.plugins.kilo.screen``) and Kem's (``kdm.plugins.kems.screen``) are made so.

Everything else here is plain data and functions of the ``Screen``, the part of the table screen a
plugin may use: no prompt_toolkit. Text goes on screen as *fragments*, ``(style, text)`` pairs where
the style is one of the screen's classes (``"class:turn"``, ``"class:dim"``, ``"class:call"``,
``"bold"``, ``""``).
Words are looked up by key: the plugin's own ``words`` (key → (English, French)) after the screen's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from kdm.engine import Effect, SeatView
from kdm.events import Event

if TYPE_CHECKING:
    from prompt_toolkit.key_binding import KeyBindingsBase
    from prompt_toolkit.layout import AnyContainer

    from kdm.notices import Notice
    from kdm.tui.state import TableScreen

Fragments = list[tuple[str, str]]
Part = TypeVar("Part")


class Screen(Protocol):
    """What a plugin's screen part may use of its game's screen (the base game's ``KiloPlay`` is one)."""

    @property
    def lang(self) -> str:
        """The player's language."""
        ...

    #: One line of feedback under the hand, until the next action.
    message: str
    #: The index of the hand card the player has chosen (arrows, digits).
    selected: int
    #: The hand's cards that are new to it (tokens), marked until this seat passes.
    fresh: set[int]
    #: What the table last called out loud, shown on the table panel.
    call: str

    @property
    def seat(self) -> int | None:
        """This player's seat, or None (a spectator, or not seated yet)."""
        ...

    def view(self) -> SeatView | None:
        """What this seat sees now (None before the game)."""
        ...

    def say(self, key: str, **fields: object) -> str:
        """The words for ``key`` in the player's language, with ``fields`` filled in."""
        ...

    def tell(self, key: str, **fields: object) -> bool:
        """Show ``say(key, **fields)`` as an error line; returns False (a key handler's "not sent")."""
        ...

    def name(self, seat: int) -> str:
        """The name of whoever plays ``seat``."""
        ...

    def act(self, event: Event) -> bool:
        """Send ``event`` to the table for this seat; returns True (a key handler's "sent")."""
        ...

    def due_in_ms(self, kind: str) -> float | None:
        """How long until the table's own timer ``kind`` fires (ms, 0 once due), or None when the table
        awaits no such timer."""
        ...


def always(screen: Screen) -> bool:
    return True


@dataclass(frozen=True)
class Key:
    """A key a plugin adds: ``keys`` (prompt_toolkit names: ``"a"``, ``"<"``, ``"c-g"``; several keys
    share one handler, which is told which was pressed), live while ``when`` says so.

    ``act(screen, key)`` returns True when it sent an event (the screen redraws with its commit) and
    False when it told the player why not (``screen.tell``). A key the base game uses (a digit while it
    chooses cards) belongs to the plugin only while its ``when`` holds."""

    keys: tuple[str, ...]
    act: Callable[[Screen, str], bool]
    when: Callable[[Screen], bool] = always


@dataclass(frozen=True)
class GameScreen:
    """A game mode's whole table screen, made for one ``TableScreen`` once the table is known.

    ``container`` and ``bindings`` (prompt_toolkit's) replace the waiting room's while ``active()``
    holds; ``on_notice`` hears every notice of the peer, after the table screen; ``state`` is the game's
    own screen state (tests press keys and look at it); ``given`` the ``Screen`` the game gives its
    plugins' parts (their keys, lines and countdowns), if it weaves them in."""

    container: AnyContainer
    bindings: KeyBindingsBase
    active: Callable[[], bool]
    on_notice: Callable[[Notice], None]
    state: object = None
    given: Screen | None = None


@dataclass(frozen=True)
class ScreenPart:
    """Everything one plugin adds to the table screen; every field may be left out.

    - ``keys``: its keys;
    - ``status(screen, view, width)``: lines at the top of the table panel, at most ``width`` wide;
    - ``marks(view, seat)``: a mark after a player's row, and ``legend(screen, view)``: what the marks
      shown now mean, at the foot of the table panel;
    - ``hand_status(screen, view)``: what the rule asks of this seat now, for the hand's status line
      (``(style, text)``, or None to leave it to the game), and ``card_marks(screen, view)``: a short
      mark under some of the hand's cards (token → mark);
    - ``header(screen, view, words)``: the header's parts after the table's name (round, pile,
      direction), in words: return them changed;
    - ``redraw_in(screen)``: seconds until its lines change by themselves (a countdown), or None;
    - ``follow(screen, effect)``: sees every effect applied at the table, after the screen did;
    - ``hints(screen, view, hints)``: the footer's key hints (in words, as the game put them): return
      them changed, with yours while your keys are live, within the footer's 79 columns;
    - ``in_front(screen, view, seat)``: what lies in front of a player on the scores screen, instead
      of their kilos (None: their kilos);
    - ``help``: the word keys of its lines in the help screen, and ``marks_help`` those of its marks,
      for the help's line of marks;
    - ``words``: key → (English, French), and ``renames``: the screen's own word keys this plugin's
      table says otherwise (a key of its ``words``), or not at all (None: its own lines say it);
    - ``sends(event)``: what an event its game's screen sends becomes at this plugin's table (spoons: a slap
      is a grab), and ``flashes``: the kinds of its effects that flash like a slap (effect kind → the
      prefix of its banner's word keys, ``<prefix>_banner`` and ``<prefix>_opens``), and
      ``log_styles``: how the log shows its effects (effect kind → ``slap``, ``feint``, ``result``,
      ``call`` or ``round``; the rest are plain);
    - ``screen(table_screen)``: a game mode's own whole screen (``GameScreen``), made once the table
      is known.
    """

    name: str
    keys: tuple[Key, ...] = ()
    status: Callable[[Screen, SeatView, int], Fragments] | None = None
    marks: Callable[[SeatView, int], str] | None = None
    legend: Callable[[Screen, SeatView], list[str]] | None = None
    hand_status: Callable[[Screen, SeatView], tuple[str, str] | None] | None = None
    card_marks: Callable[[Screen, SeatView], Mapping[int, str]] | None = None
    header: Callable[[Screen, SeatView, list[str]], list[str]] | None = None
    redraw_in: Callable[[Screen], float | None] | None = None
    follow: Callable[[Screen, Effect], None] | None = None
    hints: Callable[[Screen, SeatView | None, list[str]], list[str]] | None = None
    in_front: Callable[[Screen, SeatView, int], Fragments | None] | None = None
    help: tuple[str, ...] = ()
    marks_help: tuple[str, ...] = ()
    words: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    renames: Mapping[str, str | None] = field(default_factory=dict)
    sends: Callable[[Event], Event] | None = None
    flashes: Mapping[str, str] = field(default_factory=dict)
    log_styles: Mapping[str, str] = field(default_factory=dict)
    screen: Callable[[TableScreen], GameScreen] | None = None


def view_part(view: SeatView | None, name: str, kind: type[Part]) -> Part | None:
    """A plugin's part of a seat view (``view.rules[name]``) if it is a ``kind``, else None."""
    part: Any = view.rules.get(name) if view is not None else None
    return part if isinstance(part, kind) else None
