"""The ``piles`` variant at the terminal table: its ``ScreenPart`` (``kdm_tui``), as a third party's
house rule would add one.

Each pile's size at the top of the table panel, and who chooses a pile; when this seat must choose the
pile it draws from, the digits choose it (the hand's status line and the footer say so), in English
and French.
"""

from __future__ import annotations

from kdm.engine import SeatView
from kdm.hookspecs import hookimpl
from kdm.plugins.piles import NAME, ChoosePile, PilesView
from kdm.tui.extension import Fragments, Key, Screen, ScreenPart, view_part
from kdm.tui.text import packed

#: Up to nine piles: ten players cut the pile into N-1.
PILE_KEYS = tuple("123456789")

WORDS = {
    "piles": ("piles:", "tas :"),
    "choose_pile": ("your draw: choose a pile, 1-{last}", "vous piochez : choisissez un tas, 1-{last}"),
    "chooses_pile": ("{name} chooses a pile", "{name} choisit un tas"),
    "no_pile_choice": ("no pile to choose now", "pas de tas à choisir maintenant"),
    "empty_pile": ("pile {pile} is empty", "le tas {pile} est vide"),
    "no_such_pile": ("there is no pile {pile}", "il n'y a pas de tas {pile}"),
    "pile_sent": ("drawing from pile {pile}…", "vous piochez dans le tas {pile}…"),
    "hint_pile": ("1-{last} choose a pile", "1-{last} choix du tas"),
    "help_piles": (
        "1 to 9       choose the pile you draw from (when asked)",
        "1 à 9        choisir le tas où piocher (quand on vous le demande)",
    ),
}


def piles(view: SeatView | None) -> PilesView | None:
    return view_part(view, NAME, PilesView)


def picking_pile(screen: Screen) -> bool:
    """Whether this seat is the one to choose the pile it draws from (the digits then choose piles)."""
    part = piles(screen.view())
    return part is not None and part.choosing is not None and part.choosing == screen.seat


def choose_pile(screen: Screen, key: str) -> bool:
    """Draw from the pile the digit ``key`` names (people count piles from 1)."""
    view, seat, index = screen.view(), screen.seat, int(key) - 1
    part = piles(view)
    if view is None or seat is None or part is None or part.choosing != seat:
        return screen.tell("no_pile_choice")
    if not 0 <= index < len(part.sizes):
        return screen.tell("no_such_pile", pile=index + 1)
    if not part.sizes[index]:
        return screen.tell("empty_pile", pile=index + 1)
    screen.message = screen.say("pile_sent", pile=index + 1)
    return screen.act(ChoosePile(seat=seat, pile=index))


def status(screen: Screen, view: SeatView, width: int) -> Fragments:
    """Each pile's size, packed to ``width``, and who chooses a pile."""
    part = piles(view)
    if part is None:
        return []
    sizes = [f"{index}:{size}" for index, size in enumerate(part.sizes, 1)]
    fragments: Fragments = [("", "\n".join(packed([screen.say("piles"), *sizes], width)) + "\n")]
    if part.choosing is not None and part.choosing != screen.seat:
        fragments.append(("class:dim", screen.say("chooses_pile", name=screen.name(part.choosing)) + "\n"))
    return fragments


def hand_status(screen: Screen, view: SeatView) -> tuple[str, str] | None:
    part = piles(view)
    if part is not None and picking_pile(screen):
        return "class:turn", screen.say("choose_pile", last=len(part.sizes))
    return None


def hints(screen: Screen, view: SeatView | None, given: list[str]) -> list[str]:
    """While this seat chooses a pile, the digits are the only play keys."""
    part = piles(view)
    if part is None or not picking_pile(screen):
        return given
    return [screen.say("hint_pile", last=len(part.sizes))] + [
        screen.say(key) for key in ("hint_scores", "hint_help", "hint_quit")
    ]


@hookimpl
def kdm_tui() -> ScreenPart:
    return ScreenPart(
        name=NAME,
        keys=(Key(PILE_KEYS, choose_pile, when=picking_pile),),
        status=status,
        hand_status=hand_status,
        hints=hints,
        log_styles={"pile_chosen": "result"},
        help=("help_piles",),
        words=WORDS,
    )
