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
from kdm.names import SeatNames, counted

QUEENS_CALL = "« Dame de cœur ! À vous l'honneur ! Dame de pique, à vous la suite ! »"
GO_CALL = "« 1, 2, 3, GO ! »"

#: One line about an effect, calling the seats by their names.
Line = Callable[[Effect, SeatNames], str]


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


def _order(order: list[tuple[int, float]], n: SeatNames) -> str:
    """Who slapped, first to last, each after the first by how much later (the times are the table's
    clock, meaningless alone)."""
    if not order:
        return "—"
    (first, at), later = order[0], order[1:]
    return ", ".join([n[first], *(f"{n[seat]} +{eff - at:.0f} ms" for seat, eff in later)])


def _kilos(scores: list[int], n: SeatNames) -> str:
    return ", ".join(f"{n[seat]} {kilos} kg" for seat, kilos in enumerate(scores))


def _reserve_en(effect: Effect) -> str:
    reserve = effect.get("reserve")
    if reserve == "offered":
        return ": a first 7, kept in reserve unless they count it (0 kilos while kept)"
    if reserve == "flushed":
        return ": « la chasse ! » with the 7 in reserve, both go under the pile"
    return ": « la chasse ! » kilos flushed" if effect["flush"] else ""


def _reserve_fr(effect: Effect) -> str:
    reserve = effect.get("reserve")
    if reserve == "offered":
        return " : un premier 7, gardé en réserve à moins de le compter (0 kilo tant qu'il est gardé)"
    if reserve == "flushed":
        return " : « la chasse ! » avec le 7 en réserve, les deux retournent sous le tas"
    return " : « la chasse ! » ses kilos retournent sous le tas" if effect["flush"] else ""


def _losers(seats: list[int], n: SeatNames, nobody: str, one: str, several: str) -> str:
    """Who draws after a judgement, as the end of the verdict's sentence."""
    said = nobody if not seats else (one if len(seats) == 1 else several).format(who=n.listed(seats))
    return f": {said}" if n.lang != "fr" else f" : {said}"


def _picked(effect: Effect, text: str, n: SeatNames) -> str:
    return f" ({text} {n.listed(effect['picked'])})" if effect["picked"] else ""


ENGLISH: dict[str, Line] = {
    "game_started": lambda e, n: (
        f"{e['players']} players; the pile holds {e['pile']} cards; "
        + (
            counted(e["rounds"], "en", "round", "rounds")
            if e["rounds"] != "pile"
            else "play until the pile is empty, or "
            + counted(e["max_rounds"], "en", "round", "rounds")
            + " at most"
        )
    ),
    "dealt": lambda e, n: f"round {e['round']}: cards dealt",
    "announced": lambda e, n: f"{n[e['seat']]} holds {pretty(e['card'])}",
    "passing_started": lambda e, n: f"{QUEENS_CALL} {n[e['starter']]} starts, passing {e['direction']}",
    "passed": lambda e, n: (
        f"{n[e['seat']]} passes to {n[e['to']]}" + ("  (everyone holds 4)" if e["checkpoint"] else "")
    ),
    "slapped": lambda e, n: f"SLAP! {n[e['seat']]}" + (" opens a window" if e["opened"] else ""),
    "feinted": lambda e, n: f"{n[e['seat']]} feints…",
    "window_closed": lambda e, n: f"window closed: {_order(e['order'], n)}",
    "hand_shown": lambda e, n: (
        f"{n[e['seat']]} shows {_cards(e['cards'])}" + (": a combo!" if e["combo"] else ": no combo")
    ),
    "judged": lambda e, n: (
        ("valid slap" if e["valid"] else f"false slap by {n[e['first']]}")
        + _why(e, WHY_EN, n[e["first"]])
        + _losers(e["losers"], n, "nobody draws", "{who} draws", "{who} draw")
    ),
    "drew": lambda e, n: f"{n[e['seat']]} draws {pretty(e['card'])}" + _reserve_en(e),
    "charged": lambda e, n: f"{n[e['seat']]} is charged {e['kilos']} kg for holding the round up",
    "passing_resumed": lambda e, n: "passing goes on",
    "chose": lambda e, n: f"{n[e['seat']]} has chosen a card",
    "steered": lambda e, n: f"{n[e['seat']]} chooses to pass {e['direction']}",
    "went": lambda e, n: f"{GO_CALL} everyone passes" + _picked(e, "the table picks for", n),
    "grabbed": lambda e, n: f"GRAB! {n[e['seat']]} takes an object" + (" first" if e["opened"] else ""),
    "pile_chosen": lambda e, n: f"{n[e['seat']]} draws from pile {e['pile'] + 1}",  # counted from 1
    "reserve_answered": lambda e, n: (
        f"{n[e['seat']]} keeps the 7 in reserve" if e["keep"] else f"{n[e['seat']]} counts the 7: 7 kilos"
    ),
    "round_over": lambda e, n: f"round {e['round']} over: {_kilos(e['scores'], n)}",
    "game_over": lambda e, n: (
        f"game over: {n.listed(e['winners'])} win{'s' if len(e['winners']) == 1 else ''}; "
        + _kilos(e["scores"], n)
    ),
}

FRENCH: dict[str, Line] = {
    "game_started": lambda e, n: (
        f"{e['players']} joueurs ; le tas de merde a {e['pile']} cartes ; "
        + (
            counted(e["rounds"], "fr", "manche", "manches")
            if e["rounds"] != "pile"
            else "on joue jusqu'à vider le tas, ou "
            + counted(e["max_rounds"], "fr", "manche", "manches")
            + " au plus"
        )
    ),
    "dealt": lambda e, n: f"manche {e['round']} : cartes distribuées",
    "announced": lambda e, n: f"{n[e['seat']]} a la {pretty(e['card'], 'fr')}",
    "passing_started": lambda e, n: (
        f"{QUEENS_CALL} {n[e['starter']]} commence, vers la "
        + ("gauche" if e["direction"] == "left" else "droite")
    ),
    "passed": lambda e, n: (
        f"{n[e['seat']]} passe à {n[e['to']]}" + ("  (tout le monde a 4 cartes)" if e["checkpoint"] else "")
    ),
    "slapped": lambda e, n: f"PAF ! {n[e['seat']]}" + (" tape le tas" if e["opened"] else ""),
    "feinted": lambda e, n: f"{n[e['seat']]} feinte…",
    "window_closed": lambda e, n: f"fin des tapes : {_order(e['order'], n)}",
    "hand_shown": lambda e, n: (
        f"{n[e['seat']]} montre {_cards(e['cards'], 'fr')}"
        + (" : combinaison !" if e["combo"] else " : pas de combinaison")
    ),
    "judged": lambda e, n: (
        ("tape valable" if e["valid"] else f"fausse tape de {n[e['first']]}")
        + _why(e, WHY_FR, f"{n[e['first']]}")
        + _losers(e["losers"], n, "personne ne pioche", "{who} pioche", "{who} piochent")
    ),
    "drew": lambda e, n: f"{n[e['seat']]} pioche {pretty(e['card'], 'fr')}" + _reserve_fr(e),
    "charged": lambda e, n: f"{n[e['seat']]} écope de {e['kilos']} kg pour avoir retenu la manche",
    "passing_resumed": lambda e, n: "on continue de passer",
    "chose": lambda e, n: f"{n[e['seat']]} a choisi sa carte",
    "steered": lambda e, n: (
        f"{n[e['seat']]} fait passer vers la " + ("gauche" if e["direction"] == "left" else "droite")
    ),
    "went": lambda e, n: f"{GO_CALL} tout le monde passe" + _picked(e, "la table choisit pour", n),
    "grabbed": lambda e, n: f"HOP ! {n[e['seat']]} attrape un objet" + (" en premier" if e["opened"] else ""),
    "pile_chosen": lambda e, n: f"{n[e['seat']]} pioche dans le tas {e['pile'] + 1}",
    "reserve_answered": lambda e, n: (
        f"{n[e['seat']]} garde le 7 en réserve" if e["keep"] else f"{n[e['seat']]} compte le 7 : 7 kilos"
    ),
    "round_over": lambda e, n: f"fin de la manche {e['round']} : {_kilos(e['scores'], n)}",
    "game_over": lambda e, n: (
        f"fin de la partie : {n.listed(e['winners'])} "
        + ("gagne" if len(e["winners"]) == 1 else "gagnent")
        + f" ; {_kilos(e['scores'], n)}"
    ),
}

LANGUAGES = {"en": ENGLISH, "fr": FRENCH}


@hookimpl
def kdm_describe(effect: Effect, lang: str, names: SeatNames) -> str | None:
    line = LANGUAGES.get(lang, ENGLISH).get(effect["kind"])
    return None if line is None else line(effect, names)


#: What a player reads of this rule on the table's rules screen (``kdm_rules_text``).
RULES_TEXT = {
    "en": """Kilo de merde
Each round deals 4 cards to everyone. Whoever holds Q♥ starts: they pass one card, face down, to the
next player, who now holds 5 and passes one on, and so on around the table, toward whoever holds Q♠
(option direction).

When everyone holds 4 cards (● on the table: the checkpoint) and you hold four of a rank or four of a
suit, slap the pile! Everyone then slaps: the last one draws. A slap at any other moment draws, and so
does one fooled by a feint.

A drawn card lies in front of you and weighs its kilos: 2 to 10 as marked, J 11, Q 12, K 13, A 100. A 7
drawn onto kilos sends them all back under the pile with it (« la chasse ! »). After the last round
(option rounds, 10 by default) the lightest player wins.""",
    "fr": """Kilo de merde
Chaque manche donne 4 cartes à chacun. Qui a la D♥ commence : il passe une carte, face cachée, au joueur
suivant, qui en a alors 5 et en passe une à son tour, et ainsi de suite, vers qui a la D♠ (option
direction).

Quand tout le monde a 4 cartes (● sur la table : le bon moment) et que vous avez un carré ou quatre
cartes d'une couleur, tapez sur le tas ! Tout le monde tape alors : le dernier pioche. Taper à un autre
moment fait piocher, comme se faire avoir par une feinte.

Une carte piochée reste devant vous et pèse ses kilos : 2 à 10 comme marqué, V 11, D 12, R 13, A 100. Un
7 pioché sur des kilos les renvoie tous sous le tas avec lui (« la chasse ! »). Après la dernière manche
(option rounds, 10 par défaut) le plus léger gagne.""",
}


@hookimpl
def kdm_rules_text(lang: str) -> str:
    return RULES_TEXT.get(lang, RULES_TEXT["en"])
