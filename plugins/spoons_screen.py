"""The ``spoons`` variant at the terminal table: its ``ScreenPart`` (``kdm_tui``).

Space grabs a spoon instead of slapping the pile (the same key, stamped the same way: the screen's slap
becomes a ``Grab`` on its way to the table); the screen's words for slaps say grabs; the table panel
says how many spoons are left and who holds one (the earliest grabs by effective time), which replaces
the base game's line of who slapped.
"""

from __future__ import annotations

import dataclasses

from kdm.engine import SeatView
from kdm.events import Event
from kdm.hookspecs import hookimpl
from kdm.plugins.kilo.events import Slap
from kdm.plugins.kilo.rules import NAME as KILO
from kdm.plugins.kilo.rules import KiloView
from kdm.plugins.spoons import NAME, Grab, SpoonsView
from kdm.tui.extension import Fragments, Screen, ScreenPart, view_part

WORDS = {
    "grab_banner": ("✋ GRAB! {name}", "✋ HOP ! {name}"),
    "grab_opens": ("grabs first", "en premier"),
    "valid_grab": ("valid grab by {name}", "prise valable de {name}"),
    "false_grab": ("false grab by {name}", "fausse prise de {name}"),
    "hint_grab": ("Space grab", "Espace attrape"),
    "hint_grab_now": ("grab now: Space", "attrapez : Espace"),
    "already_grabbed": ("you have already grabbed", "vous avez déjà attrapé"),
    "no_grabbing": ("no grabbing now", "on n'attrape pas maintenant"),
    "checkpoint_grab": (
        "● everyone holds 4: a combo? grab a spoon!",
        "● chacun en a 4 : un carré ? attrapez !",
    ),
    "grab_now": ("✋ grab a spoon now! (Space)", "✋ attrapez une cuillère ! (Espace)"),
    "combo_grab_now": ("✋ a combo: grab a spoon now! (Space)", "✋ une combinaison : attrapez ! (Espace)"),
    "you_grabbed": ("you grabbed: the others are grabbing", "vous avez attrapé : les autres attrapent"),
    "spoons_on_table": ("spoons on the table: {count}", "cuillères sur la table : {count}"),
    "spoons_left": ("spoons left: {left} of {total}", "cuillères restantes : {left} sur {total}"),
    "spoons_held": ("held by {names}", "tenues par {names}"),
    "help_spoons": (
        "Space        grab a spoon (instead of slapping the pile)",
        "Espace       attraper une cuillère (au lieu de taper le tas)",
    ),
}

#: The table screen's words for slaps, and what this table says instead (None: the spoons' own status
#: lines say it).
RENAMES: dict[str, str | None] = {
    "hint_slap": "hint_grab",
    "hint_slap_now": "hint_grab_now",
    "no_slapping": "no_grabbing",
    "already_slapped": "already_grabbed",
    "slap_now": "grab_now",
    "checkpoint": "checkpoint_grab",
    "combo_slap_now": "combo_grab_now",
    "you_slapped": "you_grabbed",
    "valid_slap": "valid_grab",
    "false_slap": "false_grab",
    "slapped_so_far": None,
}


def status(screen: Screen, view: SeatView, width: int) -> Fragments:
    """The spoons left and who holds one while a window is open; the spoons on the table otherwise."""
    spoons, kilo = view_part(view, NAME, SpoonsView), view_part(view, KILO, KiloView)
    if spoons is None or kilo is None:
        return []
    if not kilo.window_open:
        return [("", screen.say("spoons_on_table", count=spoons.objects) + "\n")]
    left = spoons.objects - len(spoons.holders)
    lines: Fragments = [("bold", screen.say("spoons_left", left=left, total=spoons.objects) + "\n")]
    if spoons.holders:
        names = ", ".join(screen.name(seat) for seat in spoons.holders)
        lines.append(("", screen.say("spoons_held", names=names) + "\n"))
    return lines


def sends(event: Event) -> Event:
    """A slap from the screen is a grab at this table (the same timing)."""
    if type(event) is Slap:
        return Grab(**{f.name: getattr(event, f.name) for f in dataclasses.fields(Slap)})
    return event


@hookimpl
def kdm_tui() -> ScreenPart:
    return ScreenPart(
        NAME,
        status=status,
        sends=sends,
        flashes={"grabbed": "grab"},
        log_styles={"grabbed": "slap"},
        renames=RENAMES,
        help=("help_spoons",),
        words=WORDS,
    )
