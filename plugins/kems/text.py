"""What a Kem's table says to people: one line per effect, in English or French, and gesture names.

The table calls (« La chasse est ouverte ! », « Balayage ? », « Kem's ! ») stay French in both languages.
"""

from __future__ import annotations

from collections.abc import Callable

from kdm.cards import pretty
from kdm.effects import Effect
from kdm.hookspecs import hookimpl

Line = Callable[[Effect], str]
HUNT_CALL = "« La chasse est ouverte ! »"
SWEEP_CALL = "« Balayage ? »"
CALL_NAMES = {"kems": "« Kem's ! »", "double": "« Double Kem's ! »", "contre": "« Contre Kem's ! »"}

#: RULES 3.2's catalogue, for people.
GESTURE_NAMES: dict[str, tuple[str, str]] = {
    "scratch_head": ("scratches their head", "se gratte la tête"),
    "touch_nose": ("touches their nose", "se touche le nez"),
    "wink": ("winks", "fait un clin d'œil"),
    "yawn": ("yawns", "bâille"),
    "cough": ("coughs", "tousse"),
    "sigh": ("sighs", "soupire"),
    "tap_table": ("taps the table", "tapote la table"),
    "look_ceiling": ("looks at the ceiling", "regarde le plafond"),
    "adjust_glasses": ("adjusts their glasses", "ajuste ses lunettes"),
    "shrug": ("shrugs", "hausse les épaules"),
    "smile": ("smiles", "sourit"),
    "rub_eyes": ("rubs their eyes", "se frotte les yeux"),
}


def gesture_name(gesture: str, lang: str = "en") -> str:
    names = GESTURE_NAMES.get(gesture)
    return gesture if names is None else names[lang == "fr"]


def _cards(cards: list[str], lang: str = "en") -> str:
    return " ".join(pretty(c, lang) for c in cards)


def _call(e: Effect, lang: str) -> str:
    name = CALL_NAMES[e["call"]]
    if e["call"] != "contre":
        return name
    return f"{name} ({'contre la place' if lang == 'fr' else 'against seat'} {e['target']})"


RESULTS = {
    "confirmed": ("confirmed", "confirmé"),
    "failed": ("failed", "raté"),
    "void": ("void: it met a double", "nul : c'était un double"),
}


def _points(e: Effect) -> str:
    return f"{e['points']:+d}"


ENGLISH: dict[str, Line] = {
    "dealt": lambda e: f"deal {e['round']}: seat {e['dealer']} deals",
    "team_ready": lambda e: f"seat {e['seat']}'s team has agreed its signs",
    "signs_closed": lambda e: (
        "the signs are agreed: the game begins"
        + (f" (no sign for team {', '.join(map(str, e['missing']))})" if e["missing"] else "")
    ),
    "hand_kept": lambda e: f"seat {e['seat']} keeps their hand",
    "redrawn": lambda e: f"seat {e['seat']} shows {_cards(e['cards'])} and draws again",
    "talon_shuffled": lambda e: (
        "the bin is shuffled: it is the talon now" if e["from"] == "bin" else "the talon is shuffled"
    ),
    "turned": lambda e: f"turned up: {_cards(e['cards'])}",
    "binned": lambda e: (
        f"{_cards(e['cards'])} go to the bin" + (" (three of a rank)" if e["reason"] == "three" else "")
    ),
    "hunt_open": lambda e: f"{HUNT_CALL} {_cards(e['table'])}",
    "hunt_resumed": lambda e: "the hunt goes on",
    "exchanged": lambda e: f"seat {e['seat']} gives {_cards(e['gave'])}, takes {_cards(e['took'])}",
    "quiet": lambda e: "nobody exchanges: a sweep may be asked",
    "sweep_asked": lambda e: f"seat {e['seat']}: {SWEEP_CALL}",
    "sweep_answered": lambda e: (
        f"seat {e['seat']} " + ("agrees" if e["accept"] else "refuses, and must exchange")
    ),
    "gestured": lambda e: f"seat {e['seat']} {gesture_name(e['gesture'])}",
    "said": lambda e: f"seat {e['seat']}: “{e['text']}”",
    "called": lambda e: f"seat {e['seat']}: {_call(e, 'en')}",
    "call_judged": lambda e: (
        f"seat {e['seat']}'s call counts"
        + (f"; too late: {', '.join(map(str, e['void']))}" if e["void"] else "")
    ),
    "hand_shown": lambda e: f"seat {e['seat']} shows {_cards(e['cards'])}" + (": four!" if e["four"] else ""),
    "shown_privately": lambda e: f"seat {e['by']} shows two cards to seat {e['to']}",
    "call_result": lambda e: (
        f"{_call(e, 'en')} by seat {e['seat']}: {RESULTS[e['result']][0]}, {_points(e)}; scores {e['scores']}"
    ),
    "round_over": lambda e: f"end of deal {e['round']}; team scores {e['scores']}",
    "game_over": lambda e: f"team {e['team']} wins (seats {', '.join(map(str, e['winners']))})",
}

FRENCH: dict[str, Line] = {
    "dealt": lambda e: f"donne {e['round']} : la place {e['dealer']} distribue",
    "team_ready": lambda e: f"l'équipe de la place {e['seat']} a choisi ses signes",
    "signs_closed": lambda e: (
        "les signes sont choisis : la partie commence"
        + (f" (pas de signe pour l'équipe {', '.join(map(str, e['missing']))})" if e["missing"] else "")
    ),
    "hand_kept": lambda e: f"la place {e['seat']} garde sa main",
    "redrawn": lambda e: f"la place {e['seat']} montre {_cards(e['cards'], 'fr')} et repioche",
    "talon_shuffled": lambda e: (
        "la poubelle est mélangée : c'est la pioche" if e["from"] == "bin" else "la pioche est mélangée"
    ),
    "turned": lambda e: f"retournées : {_cards(e['cards'], 'fr')}",
    "binned": lambda e: (
        f"{_cards(e['cards'], 'fr')} à la poubelle" + (" (brelan)" if e["reason"] == "three" else "")
    ),
    "hunt_open": lambda e: f"{HUNT_CALL} {_cards(e['table'], 'fr')}",
    "hunt_resumed": lambda e: "la chasse continue",
    "exchanged": lambda e: (
        f"la place {e['seat']} donne {_cards(e['gave'], 'fr')}, prend {_cards(e['took'], 'fr')}"
    ),
    "quiet": lambda e: "plus d'échange : on peut demander un balayage",
    "sweep_asked": lambda e: f"la place {e['seat']} : {SWEEP_CALL}",
    "sweep_answered": lambda e: (
        f"la place {e['seat']} " + ("accepte" if e["accept"] else "refuse, et doit échanger")
    ),
    "gestured": lambda e: f"la place {e['seat']} {gesture_name(e['gesture'], 'fr')}",
    "said": lambda e: f"la place {e['seat']} : « {e['text']} »",
    "called": lambda e: f"la place {e['seat']} : {_call(e, 'fr')}",
    "call_judged": lambda e: (
        f"l'annonce de la place {e['seat']} compte"
        + (f" ; trop tard : {', '.join(map(str, e['void']))}" if e["void"] else "")
    ),
    "hand_shown": lambda e: (
        f"la place {e['seat']} montre {_cards(e['cards'], 'fr')}" + (" : carré !" if e["four"] else "")
    ),
    "shown_privately": lambda e: f"la place {e['by']} montre deux cartes à la place {e['to']}",
    "call_result": lambda e: (
        f"{_call(e, 'fr')} de la place {e['seat']} : {RESULTS[e['result']][1]}, {_points(e)} ; "
        f"scores {e['scores']}"
    ),
    "round_over": lambda e: f"fin de la donne {e['round']} ; scores des équipes {e['scores']}",
    "game_over": lambda e: f"l'équipe {e['team']} gagne (places {', '.join(map(str, e['winners']))})",
}

LANGUAGES = {"en": ENGLISH, "fr": FRENCH}


@hookimpl
def kdm_describe(effect: Effect, lang: str) -> str | None:
    line = LANGUAGES.get(lang, ENGLISH).get(effect["kind"])
    return None if line is None else line(effect)
