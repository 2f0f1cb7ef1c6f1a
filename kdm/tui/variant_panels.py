"""What the house rules add to the table screen's panels: functions of the ``TableScreen`` and its view.

Status lines at the top of the table panel (the spoons left and who holds one, who steers and who calls
GO, the table's countdown to its GO, the cards chosen); marks on the players' rows (✓ card chosen for
GO) and their legend, at the foot of the table panel; the hand's status line when a variant asks something of
this seat; the footer's key hints, which follow what the keys do now; and the help's lines for the
variants at the table.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.formatted_text import StyleAndTextTuples

from kdm.cards import pretty
from kdm.engine import SeatView
from kdm.kilo.rules import NAME as KILO
from kdm.peer import local_time_ms
from kdm.plugins.all_at_once import NAME as ALL_AT_ONCE
from kdm.tui import variants
from kdm.tui.state import TableScreen
from kdm.tui.text import packed

Fragments = StyleAndTextTuples
#: The footer's width for hints (the screen's 80 columns, less its margin).
FOOTER_WIDTH = 79
#: The hints left out first when the footer is too narrow for all (each is in the help).
OPTIONAL_HINTS = ("hint_scores", "hint_feint", "hint_choose")
CHOSEN_MARK = "✓"


def status_lines(screen: TableScreen, view: SeatView, width: int) -> Fragments:
    """The variants' lines at the top of the table panel, then the plugins' (``ScreenPart.status``)."""
    lines: Fragments = []
    at_once = variants.all_at_once(view)
    if at_once is not None and view.phase == "passing":
        lines += _go_lines(screen, view)
    for part in screen.parts:
        if part.status is not None:
            lines += part.status(screen, view, width)
    return lines


def _go_lines(screen: TableScreen, view: SeatView) -> Fragments:
    at_once, me = variants.all_at_once(view), screen.peer.seat
    assert at_once is not None
    lines: Fragments = []
    if at_once.steering == me:
        lines.append(("class:turn", screen.say("go_steer_you") + "\n"))
    elif at_once.steering is not None:
        lines.append(("class:dim", screen.say("go_steering", name=screen.name(at_once.steering)) + "\n"))
    if at_once.caller is None:
        seconds = screen.go_clock.seconds_left(local_time_ms())
        line = screen.say("go_table") if seconds is None else screen.say("go_in", seconds=seconds)
        lines.append(("class:call", line + "\n"))
    elif at_once.caller == me:
        lines.append(("class:call", screen.say("go_caller_you") + "\n"))
    else:
        lines.append(("class:call", screen.say("go_caller", name=screen.name(at_once.caller)) + "\n"))
    count = sum(at_once.chosen)
    lines.append(("", screen.say("go_chosen", count=count, total=len(at_once.chosen)) + "\n"))
    return lines


# --- the players' rows --------------------------------------------------------------------------------


def seat_marks(screen: TableScreen, view: SeatView, seat: int) -> str:
    """The marks after a seat's row: ✓ card chosen for GO, and the plugins' own (``ScreenPart.marks``)."""
    marks = "".join(part.marks(view, seat) for part in screen.parts if part.marks is not None)
    at_once = variants.all_at_once(view)
    if at_once is not None and view.phase == "passing" and at_once.chosen[seat]:
        marks += CHOSEN_MARK
    return marks


def legend(screen: TableScreen, view: SeatView, width: int) -> list[str]:
    """What the marks on the rows mean, for the marks shown now (none: no legend)."""
    words = [word for part in screen.parts if part.legend is not None for word in part.legend(screen, view)]
    at_once = variants.all_at_once(view)
    if at_once is not None and view.phase == "passing" and any(at_once.chosen):
        words.append(screen.say("mark_chosen"))
    return packed(words, width)


# --- the hand, the footer and the help ------------------------------------------------------------


def hand_status(screen: TableScreen, view: SeatView) -> tuple[str, str] | None:
    """What a variant asks of this seat now, for the hand's status line (None: the base game's)."""
    for part in screen.parts:
        asked = part.hand_status(screen, view) if part.hand_status is not None else None
        if asked is not None:
            return asked
    at_once = variants.all_at_once(view)
    if at_once is None or view.phase != "passing":
        return None
    if at_once.steering is not None and at_once.steering == screen.peer.seat:
        return "class:turn", screen.say("go_steer_you")
    faces = dict(view.hand)
    if at_once.my_choice is None or at_once.my_choice not in faces:
        return "class:turn", screen.say("pick_for_go")
    face = faces[at_once.my_choice]
    return "", screen.say("picked_for_go", card=pretty(face) if face else "?")


def footer_hints(screen: TableScreen, view: SeatView | None) -> list[str]:
    """The keys that work at the table now, as many as fit the footer."""
    me = screen.peer.seat
    at_once = variants.all_at_once(view)
    names = ["hint_choose", "hint_pick" if at_once else "hint_pass", "hint_slap"]
    names += ["hint_feint", "hint_scores", "hint_help", "hint_quit"]
    if at_once is not None and at_once.steering is not None and at_once.steering == me:
        names.insert(0, "hint_steer")
    elif at_once is not None and at_once.caller is not None and at_once.caller == me:
        names.insert(2, "hint_go")
    hints = fitted_hints(names, OPTIONAL_HINTS, screen.say)
    for part in screen.parts:
        if part.hints is not None:
            hints = part.hints(screen, view, hints)
    return hints


def fitted_hints(names: list[str], optional: tuple[str, ...], say: Callable[[str], str]) -> list[str]:
    """The hints ``names`` in words, less the ``optional`` ones (in that order) until they fit the footer."""
    names = list(names)
    for name in optional:
        if len("  ".join(say(hint) for hint in names)) <= FOOTER_WIDTH:
            break
        if name in names:
            names.remove(name)
    return [say(hint) for hint in names]


def help_lines(screen: TableScreen) -> str:
    """The help's part for the variants at this table (empty at a base-game table)."""
    names = [name for name in screen.peer.record.rules.names if name != KILO]
    if not names:
        return ""
    lines = ["", "", screen.say("help_variants", names=", ".join(names))]  # after a blank line
    lines += [screen.say(f"help_{name}") for name in (ALL_AT_ONCE,) if name in names]
    lines += [screen.say(key) for part in screen.parts for key in part.help]
    marks = [screen.say("mark_chosen")] if ALL_AT_ONCE in names else []
    marks += [screen.say(key) for part in screen.parts for key in part.marks_help]
    if marks:
        lines.append(screen.say("help_marks", marks="  ".join(marks)))
    return "\n".join(lines)
