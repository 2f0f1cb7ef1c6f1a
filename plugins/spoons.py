"""RULES 2.2 ``spoons`` (« La Pelle » / « Le Bouchon »): N-1 objects to grab instead of slapping the pile.

Owns the ``Grab`` event and when a grab window closes. A grab is judged exactly like a slap (the base
game's window, effective times, feints and judge): the first grab is valid only at a checkpoint with a
combo, a false first grab makes its instigator the loser, and after a valid one the seat left without an
object loses. What differs is the close: there is no need to wait for the last player, the window closes
once the N-1th object is taken.

Consensus orders grabs by commit, not by reaction: a grab logged after the N-1th may still be *earlier*
by effective time (a slow network, not a slow hand). So the N-1th grab starts a short grace,
``grab_grace_ms`` (a ``close`` timer), during which the last grab still counts; if it comes, every seat
grabbed and the latest by effective time is the one left without an object. ``grab_grace_ms=0`` closes
at the N-1th grab, as the rule text does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from kdm.agents import Bot, Decision
from kdm.deck import Knowledge
from kdm.engine import Duty, Engine, IllegalAction, SeatView
from kdm.events import Event
from kdm.hookspecs import hookimpl
from kdm.options import OptionWords, TableOption
from kdm.plugins.kilo import rules as kilo
from kdm.plugins.kilo.effects import KiloEffect, Slapping
from kdm.plugins.kilo.events import Slap
from kdm.state import TableState

NAME = "spoons"
KDM_REQUIRES = ("kilo",)  # a variant of the base game
KDM_MODULES = ("kdm.plugins.spoons_screen",)


@dataclass(frozen=True)
class Grab(Slap):
    """``seat`` grabs one of the objects on the table (timed like a slap)."""

    kind: ClassVar[str] = "grab"


class Grabbed(Slapping):
    """Seat ``seat`` grabbed an object: the base game's slap under this table's name for it."""

    kind: Literal["grabbed"]


@hookimpl
def kdm_table_options() -> list[TableOption]:
    return [
        TableOption("grab_grace_ms", int, 250,
                    "after the N-1th object is taken, a later-logged but earlier grab still counts this long",
                    minimum=0, maximum=5000,
                    french=OptionWords("grâce des objets (ms)",
                                       "une fois le N-1e objet pris, une prise inscrite plus tard"
                                       " mais faite plus tôt compte encore pendant ce temps")),
    ]  # fmt: skip


@hookimpl
def kdm_check_table(players: int, options: dict[str, Any], plugins: list[str]) -> str | None:
    if "piles" in plugins:
        return "spoons and piles both say what a slap is (grab an object, cover a pile): choose one"
    return None


@hookimpl
def kdm_event_types() -> list[type[Event]]:
    return [Grab]


@hookimpl
def kdm_apply(engine: Engine, event: Event) -> list[KiloEffect | Grabbed] | None:
    if event.kind == Grab.kind:
        assert isinstance(event, Grab)
        return [grabbed(effect) for effect in kilo.slap(engine, event)]
    if event.kind == Slap.kind:
        raise IllegalAction("at this table you grab an object (grab), you do not slap the pile")
    return None


def grabbed(effect: KiloEffect) -> KiloEffect | Grabbed:
    """The base game's ``slapped`` effect as a grab (the same fields, in the same order); the window's
    other effects as they are."""
    return {**effect, "kind": "grabbed"} if effect["kind"] == "slapped" else effect


def objects(state: TableState) -> int:
    return state.players - 1


@hookimpl
def kdm_window_complete(state: TableState, window: kilo.Window) -> bool:
    grabs = len(window.slaps)
    return grabs == state.players or (grabs == objects(state) and state.options["grab_grace_ms"] == 0)


@hookimpl
def kdm_awaiting(state: TableState) -> list[Duty] | None:
    window = kilo.table(state).window
    if state.phase != "window" or window is None or len(window.slaps) < objects(state):
        return None
    # The grace is counted from the N-1th grab: its seq tells this timer from the window's timeout.
    return [Duty("close", after_ms=state.options["grab_grace_ms"], ref=window.slaps[objects(state) - 1][2])]


@dataclass(slots=True)
class SpoonsView:
    """The objects on the table and who holds one (the earliest grabbers by effective time)."""

    objects: int
    holders: tuple[int, ...]


@hookimpl
def kdm_view(state: TableState, seat: int, knowledge: Knowledge) -> tuple[str, Any]:
    data = kilo.table(state)
    window = data.window
    holders: tuple[int, ...] = ()
    if window is not None:
        ordered = sorted(window.slaps, key=lambda s: (s[1], data.tiebreak[s[0]]))
        holders = tuple(s for s, _eff, _seq in ordered[: objects(state)])
    return NAME, SpoonsView(objects(state), holders)


@hookimpl(wrapper=True)
def kdm_bot_decide(view: SeatView, bot: Bot) -> Generator[None, Decision | None, Decision | None]:
    # Whatever plays the seat (the base bots, a variant's), its reach for the pile is a grab here.
    decision = yield
    if decision is not None and type(decision.event) is Slap:
        grab = Grab(**{f.name: getattr(decision.event, f.name) for f in dataclasses.fields(Slap)})
        return Decision(grab, decision.delay_ms)
    return decision


#: What a player reads of this rule on the table's rules screen (``kdm_rules_text``).
RULES_TEXT = {
    "en": """Spoons
Instead of slapping the pile, grab one of the spoons on the table: one fewer than the players. The first
grab counts only when a slap would (everyone holds 4, and the grabber a combo); then everyone grabs, and
whoever is left without a spoon draws. A false first grab draws.""",
    "fr": """La pelle
Au lieu de taper sur le tas, attrapez une des cuillères posées sur la table : une de moins que de
joueurs. La première prise ne vaut que quand une tape vaudrait (tout le monde a 4 cartes, et celui qui
prend a une combinaison) ; puis tout le monde attrape, et qui reste sans cuillère pioche. Une première
prise fausse fait piocher.""",
}


@hookimpl
def kdm_rules_text(lang: str) -> str:
    return RULES_TEXT.get(lang, RULES_TEXT["en"])
