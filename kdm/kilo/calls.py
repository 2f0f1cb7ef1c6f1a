"""What the table says to people: one line per effect of the base game and the built-in variants,
in English or French.

The table calls are part of the fun (« Dame de cœur ! À vous l'honneur ! », « 1, 2, 3, GO ! »), so they
stay French in both languages; everything else follows ``lang``.
"""

from __future__ import annotations

from collections.abc import Callable

from kdm.cards import pretty
from kdm.effects import Effect
from kdm.hookspecs import hookimpl

QUEENS_CALL = "« Dame de cœur ! À vous l'honneur ! Dame de pique, à vous la suite ! »"
GO_CALL = "« 1, 2, 3, GO ! »"

Line = Callable[[Effect], str]


def _seat(n: int) -> str:
    return f"seat {n}"


def _cards(cards: list[str], lang: str = "en") -> str:
    return " ".join(pretty(c, lang) for c in cards)


#: Why a slap window was judged so (``Judged.reason``), after the verdict.
WHY_EN = {
    "no_combo": "{first} had no combo",
    "not_four": "not every hand held four cards",
    "late": "too late, the checkpoint had passed",
    "feint": "fooled by a feint",
}
WHY_FR = {
    "no_combo": "{first} n'avait pas de combinaison",
    "not_four": "les mains n'étaient pas toutes à quatre cartes",
    "late": "trop tard, le moment était passé",
    "feint": "piégé par une feinte",
}


def _why(effect: Effect, reasons: dict[str, str], first: str) -> str:
    why = reasons.get(effect.get("reason", ""))
    return f" ({why.format(first=first)})" if why else ""


def _order(order: list[tuple[int, float]]) -> str:
    return ", ".join(f"{seat}@{eff:.0f}ms" for seat, eff in order)


def _reserve_en(effect: Effect) -> str:
    reserve = effect.get("reserve")
    if reserve == "kept":
        return ": a first 7, kept in reserve (0 kilos)"
    if reserve == "flushed":
        return ": « la chasse ! » with the 7 in reserve, both go under the pile"
    return ": « la chasse ! » kilos flushed" if effect["flush"] else ""


def _reserve_fr(effect: Effect) -> str:
    reserve = effect.get("reserve")
    if reserve == "kept":
        return " : un premier 7, gardé en réserve (0 kilo)"
    if reserve == "flushed":
        return " : « la chasse ! » avec le 7 en réserve, les deux retournent sous le tas"
    return " : « la chasse ! » ses kilos retournent sous le tas" if effect["flush"] else ""


def _picked(effect: Effect, text: str) -> str:
    return f" ({text} {', '.join(map(str, effect['picked']))})" if effect["picked"] else ""


ENGLISH: dict[str, Line] = {
    "game_started": lambda e: (
        f"{e['players']} players; the pile holds {e['pile']} cards; "
        + (
            f"{e['rounds']} rounds"
            if e["rounds"] != "pile"
            else f"play until the pile is empty, or {e['max_rounds']} rounds at most"
        )
    ),
    "dealt": lambda e: f"round {e['round']}: cards dealt",
    "announced": lambda e: f"{_seat(e['seat'])} holds {pretty(e['card'])}",
    "passing_started": lambda e: f"{QUEENS_CALL} {_seat(e['starter'])} starts, passing {e['direction']}",
    "passed": lambda e: (
        f"{_seat(e['seat'])} passes to {_seat(e['to'])}" + ("  (everyone holds 4)" if e["checkpoint"] else "")
    ),
    "slapped": lambda e: f"SLAP! {_seat(e['seat'])}" + (" opens a window" if e["opened"] else ""),
    "feinted": lambda e: f"{_seat(e['seat'])} feints…",
    "window_closed": lambda e: f"window closed: {_order(e['order'])}",
    "hand_shown": lambda e: (
        f"{_seat(e['seat'])} shows {_cards(e['cards'])}" + (": a combo!" if e["combo"] else ": no combo")
    ),
    "judged": lambda e: (
        ("valid slap" if e["valid"] else f"false slap by {_seat(e['first'])}")
        + _why(e, WHY_EN, _seat(e["first"]))
        + "; draws: "
        + ", ".join(_seat(s) for s in e["losers"])
    ),
    "drew": lambda e: f"{_seat(e['seat'])} draws {pretty(e['card'])}" + _reserve_en(e),
    "passing_resumed": lambda e: "passing goes on",
    "chose": lambda e: f"{_seat(e['seat'])} has chosen a card",
    "steered": lambda e: f"{_seat(e['seat'])} chooses to pass {e['direction']}",
    "went": lambda e: f"{GO_CALL} everyone passes" + _picked(e, "the table picks for seats"),
    "grabbed": lambda e: f"GRAB! {_seat(e['seat'])} takes an object" + (" first" if e["opened"] else ""),
    "pile_chosen": lambda e: f"{_seat(e['seat'])} draws from pile {e['pile'] + 1}",  # counted from 1
    "round_over": lambda e: f"round {e['round']} over; kilos: {e['scores']}",
    "game_over": lambda e: (
        ("game over; winner: " if len(e["winners"]) == 1 else "game over; winners: ")
        + ", ".join(_seat(s) for s in e["winners"])
        + f"; kilos: {e['scores']}"
    ),
}

FRENCH: dict[str, Line] = {
    "game_started": lambda e: (
        f"{e['players']} joueurs ; le tas de merde a {e['pile']} cartes ; "
        + (
            f"{e['rounds']} manches"
            if e["rounds"] != "pile"
            else f"on joue jusqu'à vider le tas, ou {e['max_rounds']} manches au plus"
        )
    ),
    "dealt": lambda e: f"manche {e['round']} : cartes distribuées",
    "announced": lambda e: f"la place {e['seat']} a la {pretty(e['card'], 'fr')}",
    "passing_started": lambda e: (
        f"{QUEENS_CALL} la place {e['starter']} commence, vers la "
        + ("gauche" if e["direction"] == "left" else "droite")
    ),
    "passed": lambda e: (
        f"la place {e['seat']} passe à la place {e['to']}"
        + ("  (tout le monde a 4 cartes)" if e["checkpoint"] else "")
    ),
    "slapped": lambda e: f"PAF ! la place {e['seat']}" + (" tape le tas" if e["opened"] else ""),
    "feinted": lambda e: f"la place {e['seat']} feinte…",
    "window_closed": lambda e: f"fin des tapes : {_order(e['order'])}",
    "hand_shown": lambda e: (
        f"la place {e['seat']} montre {_cards(e['cards'], 'fr')}"
        + (" : combinaison !" if e["combo"] else " : pas de combinaison")
    ),
    "judged": lambda e: (
        ("tape valable" if e["valid"] else f"fausse tape de la place {e['first']}")
        + _why(e, WHY_FR, f"la place {e['first']}")
        + " ; piochent : "
        + ", ".join(str(s) for s in e["losers"])
    ),
    "drew": lambda e: f"la place {e['seat']} pioche {pretty(e['card'], 'fr')}" + _reserve_fr(e),
    "passing_resumed": lambda e: "on continue de passer",
    "chose": lambda e: f"la place {e['seat']} a choisi sa carte",
    "steered": lambda e: (
        f"la place {e['seat']} fait passer vers la " + ("gauche" if e["direction"] == "left" else "droite")
    ),
    "went": lambda e: f"{GO_CALL} tout le monde passe" + _picked(e, "la table choisit pour les places"),
    "grabbed": lambda e: (
        f"HOP ! la place {e['seat']} attrape un objet" + (" en premier" if e["opened"] else "")
    ),
    "pile_chosen": lambda e: f"la place {e['seat']} pioche dans le tas {e['pile'] + 1}",
    "round_over": lambda e: f"fin de la manche {e['round']} ; kilos : {e['scores']}",
    "game_over": lambda e: (
        ("fin de la partie ; vainqueur : " if len(e["winners"]) == 1 else "fin de la partie ; vainqueurs : ")
        + ", ".join(f"la place {s}" for s in e["winners"])
        + f" ; kilos : {e['scores']}"
    ),
}

LANGUAGES = {"en": ENGLISH, "fr": FRENCH}


@hookimpl
def kdm_describe(effect: Effect, lang: str) -> str | None:
    line = LANGUAGES.get(lang, ENGLISH).get(effect["kind"])
    return None if line is None else line(effect)
