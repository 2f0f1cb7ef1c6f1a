"""The ``all_at_once`` variant at the terminal table: its ``ScreenPart`` (``kdm_tui``).

Enter chooses the card to pass at the next GO, on any turn, as often as one likes (a ``GO`` mark under
it); the starter steers with ``<`` and ``>`` and calls « 1, 2, 3, GO ! » with ``g``, unless the table
calls it (a countdown, redrawn as it shows one second less, to the table's own timer). The table panel
says who steers, who calls GO and how many cards are chosen; a ✓ after each row whose card is chosen.
Until the starter steers, the header names no direction.
"""

from __future__ import annotations

import math

from kdm.cards import pretty
from kdm.engine import Effect, SeatView
from kdm.hookspecs import hookimpl
from kdm.plugins.all_at_once import NAME, AllAtOnceView, Go, Steer
from kdm.plugins.kilo.calls import GO_CALL
from kdm.plugins.kilo.events import Pass
from kdm.tui.extension import Fragments, Key, Screen, ScreenPart, view_part

CHOSEN_MARK = "✓"
#: The steering keys and the direction each one sends.
STEER_KEYS = {"<": "left", ">": "right"}

WORDS = {
    "hint_pick": ("Enter pick for GO", "Entrée choix du GO"),
    "hint_steer": ("< left  > right", "< gauche  > droite"),
    "hint_go": ("g GO!", "g GO !"),
    "go_caller": ("GO: {name} calls it", "GO : {name} l'annonce"),
    "go_caller_you": ("GO: you call it, with g", "GO : c'est vous qui l'annoncez, avec g"),
    "go_in": ("GO in {seconds} s (the table calls it)", "GO dans {seconds} s (la table l'annonce)"),
    "go_table": ("GO: the table calls it", "GO : la table l'annonce"),
    "go_steering": ("{name} chooses the direction", "{name} choisit le sens"),
    "go_steer_you": ("choose the direction: < left  > right", "choisissez le sens : < gauche  > droite"),
    "go_chosen": ("cards chosen: {count}/{total}", "cartes choisies : {count}/{total}"),
    "pick_for_go": ("choose a card for GO, then Enter", "choisissez une carte pour le GO, puis Entrée"),
    "picked_for_go": ("you pass {card} at GO", "vous passez {card} au GO"),
    "pick_sent": ("{card} for the next GO…", "{card} pour le prochain GO…"),
    "no_steering": ("the direction is not yours to choose now", "ce n'est pas à vous de choisir le sens"),
    "steer_first": ("choose the direction first: < or >", "choisissez d'abord le sens : < ou >"),
    "not_caller": ("{name} calls GO, not you", "c'est {name} qui annonce le GO"),
    "table_calls": ("the table calls GO on its own", "la table annonce le GO toute seule"),
    "no_go": ("no GO now", "pas de GO maintenant"),
    "mark_chosen": (f"{CHOSEN_MARK} card chosen", f"{CHOSEN_MARK} carte choisie"),
    "help_all_at_once": (
        "Enter        choose the card you pass at the next GO\n"
        "< >          the starter passes left or right\n"
        "g            the starter calls « 1, 2, 3, GO ! »",
        "Entrée       choisir la carte à passer au prochain GO\n"
        "< >          le premier joueur fait passer à gauche ou à droite\n"
        "g            le premier joueur annonce « 1, 2, 3, GO ! »",
    ),
}


def all_at_once(view: SeatView | None) -> AllAtOnceView | None:
    return view_part(view, NAME, AllAtOnceView)


def passing(screen: Screen) -> AllAtOnceView | None:
    """This table's part while cards are being passed, else None."""
    view = screen.view()
    return all_at_once(view) if view is not None and view.phase == "passing" else None


# --- keys ---------------------------------------------------------------------------------------------


def pick(screen: Screen, _key: str) -> bool:
    """Enter: the chosen card is the one this seat passes at the next GO (on any turn, again and again)."""
    view, seat = screen.view(), screen.seat
    if view is None or seat is None:
        return screen.tell("not_seated")
    if view.phase != "passing" or not view.hand:
        return screen.tell("no_passing")
    token, face = view.hand[screen.selected % len(view.hand)]
    screen.message = screen.say("pick_sent", card=pretty(face, screen.lang) if face else "?")
    return screen.act(Pass(seat=seat, token=token))


def steer(screen: Screen, key: str) -> bool:
    """Choose the round's passing direction: the starter's call, once a round."""
    part, seat = all_at_once(screen.view()), screen.seat
    if seat is None or part is None or part.steering != seat:
        return screen.tell("no_steering")
    return screen.act(Steer(seat=seat, direction=STEER_KEYS[key]))


def call_go(screen: Screen, _key: str) -> bool:
    """« 1, 2, 3, GO ! »: every chosen card moves on; the starter's call unless the table times it."""
    view, seat = screen.view(), screen.seat
    part = all_at_once(view)
    if view is None or seat is None or part is None or view.phase != "passing":
        return screen.tell("no_go")
    if part.caller is None:
        return screen.tell("table_calls")
    if part.caller != seat:
        return screen.tell("not_caller", name=screen.name(part.caller))
    if part.steering is not None:
        return screen.tell("steer_first")
    return screen.act(Go(seat=seat))


def at_this_table(screen: Screen) -> bool:
    return all_at_once(screen.view()) is not None


# --- the table's countdown to GO ------------------------------------------------------------------------


def seconds_left(ms_left: float) -> int:
    """The whole seconds shown for a GO ``ms_left`` away, rounded up (0 once due)."""
    return max(0, math.ceil(ms_left / 1000.0))


def next_change_s(ms_left: float) -> float | None:
    """Seconds until ``seconds_left`` shows one less, or None once it shows 0."""
    if ms_left <= 0:
        return None
    return (ms_left - 1000.0 * math.floor((ms_left - 1e-6) / 1000.0)) / 1000.0


def redraw_in(screen: Screen) -> float | None:
    ms_left = screen.due_in_ms(Go.kind) if passing(screen) is not None else None
    return None if ms_left is None else next_change_s(ms_left)


# --- what the screen shows ------------------------------------------------------------------------------


def follow(screen: Screen, effect: Effect) -> None:
    """A pick for GO is taken (its message is done); at GO, what came to this seat is new, and the call
    is on the table."""
    kind = effect["kind"]
    if kind == "chose" and effect["seat"] == screen.seat:
        screen.message = ""
    elif kind == "went":
        screen.fresh = {token for _seat, to, token in effect["moves"] if to == screen.seat}
        screen.call = GO_CALL


def status(screen: Screen, view: SeatView, width: int) -> Fragments:
    """Who steers, who calls GO (or the table's countdown), and how many cards are chosen."""
    part, me = all_at_once(view), screen.seat
    if part is None or view.phase != "passing":
        return []
    lines: Fragments = []
    if part.steering == me:
        lines.append(("class:turn", screen.say("go_steer_you") + "\n"))
    elif part.steering is not None:
        lines.append(("class:dim", screen.say("go_steering", name=screen.name(part.steering)) + "\n"))
    if part.caller is None:
        ms_left = screen.due_in_ms(Go.kind)
        if ms_left is None:
            lines.append(("class:call", screen.say("go_table") + "\n"))
        else:
            lines.append(("class:call", screen.say("go_in", seconds=seconds_left(ms_left)) + "\n"))
    elif part.caller == me:
        lines.append(("class:call", screen.say("go_caller_you") + "\n"))
    else:
        lines.append(("class:call", screen.say("go_caller", name=screen.name(part.caller)) + "\n"))
    count = sum(part.chosen)
    lines.append(("", screen.say("go_chosen", count=count, total=len(part.chosen)) + "\n"))
    return lines


def marks(view: SeatView, seat: int) -> str:
    part = all_at_once(view)
    return CHOSEN_MARK if part is not None and view.phase == "passing" and part.chosen[seat] else ""


def legend(screen: Screen, view: SeatView) -> list[str]:
    part = all_at_once(view)
    chosen = part is not None and view.phase == "passing" and any(part.chosen)
    return [screen.say("mark_chosen")] if chosen else []


def card_marks(screen: Screen, view: SeatView) -> dict[int, str]:
    """``GO`` under the card this seat passes at the next GO."""
    part = all_at_once(view)
    if part is None or view.phase != "passing" or part.my_choice is None:
        return {}
    return {part.my_choice: "GO"}


def hand_status(screen: Screen, view: SeatView) -> tuple[str, str] | None:
    part = all_at_once(view)
    if part is None or view.phase != "passing":
        return None
    if part.steering is not None and part.steering == screen.seat:
        return "class:turn", screen.say("go_steer_you")
    faces = dict(view.hand)
    if part.my_choice is None or part.my_choice not in faces:
        return "class:turn", screen.say("pick_for_go")
    face = faces[part.my_choice]
    return "", screen.say("picked_for_go", card=pretty(face, screen.lang) if face else "?")


def hints(screen: Screen, view: SeatView | None, given: list[str]) -> list[str]:
    """Enter picks for GO; the starter's keys while they are the starter's to press."""
    part, me = all_at_once(view), screen.seat
    if part is None:
        return given
    changed = [screen.say("hint_pick") if hint == screen.say("hint_pass") else hint for hint in given]
    if part.steering is not None and part.steering == me:
        changed.insert(0, screen.say("hint_steer"))
    elif part.caller is not None and part.caller == me:
        changed.insert(min(2, len(changed)), screen.say("hint_go"))
    return changed


def header(screen: Screen, view: SeatView, given: list[str]) -> list[str]:
    """No direction in the header until the starter has chosen one."""
    part = all_at_once(view)
    if part is None or part.steering is None:
        return given
    directions = {screen.say("left"), screen.say("right")}
    return [words for words in given if words not in directions]


@hookimpl
def kdm_tui() -> ScreenPart:
    return ScreenPart(
        NAME,
        keys=(
            Key(("enter",), pick, when=lambda screen: passing(screen) is not None),
            Key(tuple(STEER_KEYS), steer, when=at_this_table),
            Key(("g",), call_go, when=at_this_table),
        ),
        status=status,
        marks=marks,
        legend=legend,
        card_marks=card_marks,
        hand_status=hand_status,
        hints=hints,
        header=header,
        redraw_in=redraw_in,
        follow=follow,
        log_styles={"steered": "call", "went": "call"},
        help=("help_all_at_once",),
        marks_help=("mark_chosen",),
        words=WORDS,
    )
