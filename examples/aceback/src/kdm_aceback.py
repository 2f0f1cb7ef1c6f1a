"""Ace back, a house rule for kdm: once per game, a player may send an ace lying in front of them
back under the pile, while cards are being passed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from kdm.agents import Bot, Decision
from kdm.cards import pretty, rank_of
from kdm.deck import Knowledge
from kdm.effects import Hints
from kdm.engine import Effect, Engine, IllegalAction, SeatView
from kdm.events import Event
from kdm.hookspecs import hookimpl
from kdm.names import SeatNames
from kdm.plugins.kilo import rules as kilo
from kdm.state import TableState
from kdm.tui.extension import Fragments, Key, Screen, ScreenPart, view_part

NAME = "aceback"
#: A house rule of the base game: a table that picks it plays Kilo de merde.
KDM_REQUIRES = ("kilo",)


@dataclass(frozen=True)
class ReturnAce(Event):
    """``seat`` sends the ace ``token``, lying in front of it, back under the pile."""

    kind: ClassVar[str] = "return_ace"
    seat: int
    token: int


@hookimpl
def kdm_event_types() -> list[type[Event]]:
    return [ReturnAce]


@dataclass
class AceBackTable:
    """The seats that have sent their ace back this game."""

    used: list[int] = field(default_factory=list)


@hookimpl
def kdm_setup_table(state: TableState) -> None:
    state.rules[NAME] = AceBackTable()


def aceback(state: TableState) -> AceBackTable:
    data: AceBackTable = state.rules[NAME]
    return data


@hookimpl
def kdm_check_table(players: int, options: dict[str, Any], plugins: list[str]) -> str | None:
    if options.get("ace_kilos") == 0:  # lightaces is at the table and its aces weigh nothing
        return "aceback with lightaces at ace_kilos=0: nothing to send back; set ace_kilos or drop one"
    return None


class AceReturned(Hints):
    """Seat ``seat`` sent ``card`` back under the pile; ``kilos`` are what lies in front of it now."""

    kind: Literal["ace_returned"]
    seat: int
    card: str
    kilos: int


@hookimpl
def kdm_apply(engine: Engine, event: Event) -> list[AceReturned] | None:
    if not isinstance(event, ReturnAce):
        return None  # not ours: the plugins registered before apply it
    state = engine.state
    # Every check comes before the first change: a refused event must leave the table as it was.
    if state.phase != "passing":
        raise IllegalAction("an ace goes back only while cards are being passed")
    if event.seat in aceback(state).used:
        raise IllegalAction(f"seat {event.seat} has already sent an ace back this game")
    in_front = state.zones.get(kilo.kilos_zone(event.seat), [])
    if event.token not in in_front or rank_of(state.faces[event.token]) != "A":
        raise IllegalAction(f"seat {event.seat} has no such ace in front of it")
    in_front.remove(event.token)
    state.zones[kilo.table(state).drawn_from].insert(0, event.token)  # index 0 is the bottom
    kilo.record_kilos(engine, event.seat, kilo.kilos_of(engine, event.seat))
    aceback(state).used.append(event.seat)
    card = state.faces[event.token]
    return [{"kind": "ace_returned", "seat": event.seat, "card": card, "kilos": state.scores[event.seat]}]


@dataclass(slots=True)
class AceBackView:
    """The aces this seat may still send back (tokens), and the seats that have used their turn."""

    aces: tuple[int, ...]
    used: tuple[int, ...]


@hookimpl
def kdm_view(state: TableState, seat: int, knowledge: Knowledge) -> tuple[str, Any]:
    used = aceback(state).used
    in_front = state.zones.get(kilo.kilos_zone(seat), [])
    aces = () if seat in used else tuple(t for t in in_front if rank_of(state.faces[t]) == "A")
    return NAME, AceBackView(aces, tuple(used))


@hookimpl
def kdm_bot_decide(view: SeatView, bot: Bot) -> Decision | None:
    part: AceBackView = view.rules[NAME]
    if view.phase != "passing" or not part.aces:
        return None  # nothing to send back: the game's own bot plays
    return Decision(ReturnAce(seat=view.seat, token=part.aces[0]), bot.think_ms())


LINES = {
    "en": "{who} sends {card} back under the pile (now {kilos} kg)",
    "fr": "{who} renvoie {card} sous le tas (reste {kilos} kg)",
}


@hookimpl
def kdm_describe(effect: Effect, lang: str, names: SeatNames) -> str | None:
    if effect["kind"] != "ace_returned":
        return None
    line = LINES.get(lang, LINES["en"])
    return line.format(who=names[effect["seat"]], card=pretty(effect["card"], lang), kilos=effect["kilos"])


RULES_TEXT = {
    "en": """Ace back
Once a game, while cards are passed, you may send an ace lying in front of you back under the pile:
its 100 kilos go with it (key a).""",
    "fr": """L'as renvoyé
Une fois par partie, pendant qu'on passe des cartes, vous pouvez renvoyer sous le tas un as posé devant
vous : ses 100 kilos partent avec lui (touche a).""",
}


@hookimpl
def kdm_rules_text(lang: str) -> str:
    return RULES_TEXT.get(lang, RULES_TEXT["en"])


RETURNED_MARK = "↩"
WORDS = {
    "aceback_ready": ("a: send {card} back under the pile", "a : renvoyer {card} sous le tas"),
    "aceback_used": ("your ace went back already", "votre as est déjà reparti"),
    "aceback_none": ("no ace of yours to send back", "aucun as devant vous à renvoyer"),
    "aceback_not_now": ("an ace goes back while cards are passed", "un as repart quand on passe des cartes"),
    "aceback_sent": ("sending {card} back…", "vous renvoyez {card}…"),
    "aceback_mark": ("↩ sent an ace back", "↩ a renvoyé un as"),
    "hint_aceback": ("a ace back", "a as renvoyé"),
    "help_aceback": (
        "a            send an ace in front of you back under the pile (once a game)",
        "a            renvoyer sous le tas un as devant vous (une fois par partie)",
    ),
}


def ready(view: SeatView | None) -> AceBackView | None:
    """This seat's part of the view when it may send an ace back now."""
    part = view_part(view, NAME, AceBackView)
    return part if view is not None and part is not None and part.aces and view.phase == "passing" else None


def send_ace_back(screen: Screen, key: str) -> bool:
    view, seat = screen.view(), screen.seat
    part = view_part(view, NAME, AceBackView)
    if view is None or seat is None or part is None:
        return screen.tell("aceback_none")
    if seat in part.used:
        return screen.tell("aceback_used")
    if not part.aces:
        return screen.tell("aceback_none")
    if ready(view) is None:
        return screen.tell("aceback_not_now")
    screen.message = screen.say("aceback_sent", card=pretty(view.faces[part.aces[0]]))
    return screen.act(ReturnAce(seat=seat, token=part.aces[0]))


def status(screen: Screen, view: SeatView, width: int) -> Fragments:
    part = ready(view)
    if part is None or screen.seat is None:
        return []
    return [("class:call", screen.say("aceback_ready", card=pretty(view.faces[part.aces[0]]))[:width] + "\n")]


def marks(view: SeatView, seat: int) -> str:
    part = view_part(view, NAME, AceBackView)
    return RETURNED_MARK if part is not None and seat in part.used else ""


def legend(screen: Screen, view: SeatView) -> list[str]:
    part = view_part(view, NAME, AceBackView)
    return [screen.say("aceback_mark")] if part is not None and part.used else []


def hints(screen: Screen, view: SeatView | None, given: list[str]) -> list[str]:
    if ready(view) is None:
        return given
    mine = screen.say("hint_aceback")
    for optional in ("hint_feint", "hint_scores"):  # the footer is 79 columns; the help has them all
        if len("  ".join([*given, mine])) <= 79:
            break
        given = [hint for hint in given if hint != screen.say(optional)]
    return [*given, mine]


@hookimpl
def kdm_tui() -> ScreenPart:
    return ScreenPart(
        name=NAME,
        keys=(Key(("a",), send_ace_back),),
        status=status,
        marks=marks,
        legend=legend,
        hints=hints,
        help=("help_aceback",),
        words=WORDS,
    )
