"""What a Kem's table says to people: one line per effect, in English or French, and gesture names.

The table calls (« La chasse est ouverte ! », « Balayage ? », « Kem's ! ») stay French in both languages.
"""

from __future__ import annotations

from collections.abc import Callable

from kdm.cards import pretty
from kdm.effects import Effect
from kdm.hookspecs import hookimpl
from kdm.names import SeatNames

#: One line about an effect, calling the seats by their names.
Line = Callable[[Effect, SeatNames], str]
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


def _call(e: Effect, n: SeatNames) -> str:
    name = CALL_NAMES[e["call"]]
    if e["call"] != "contre":
        return name
    return f"{name} ({'contre' if n.lang == 'fr' else 'against'} {n[e['target']]})"


def _team(team: int, n: SeatNames, teams: int = 0) -> str:
    """Team ``team`` by its players' names (RULES 3.1: partners sit opposite each other)."""
    half = teams or len(n) // 2
    return n.listed([team, team + half]) if half else ("l'équipe" if n.lang == "fr" else "team") + f" {team}"


def _scores(scores: list[int], n: SeatNames) -> str:
    """The teams' totals: plain numbers (a sign is for what a call gains, ``_points``)."""
    return ", ".join(f"{_team(team, n, len(scores))} {points}" for team, points in enumerate(scores))


RESULTS = {
    "confirmed": ("confirmed", "confirmé"),
    "failed": ("failed", "raté"),
    "void": ("void: it met a double", "nul : c'était un double"),
}


def _points(e: Effect) -> str:
    """What a call gains or costs its team: signed, in points (a total is a plain number, ``_scores``)."""
    points = e["points"]
    return f"{points:+d} point" + ("" if abs(points) == 1 else "s")


ENGLISH: dict[str, Line] = {
    "dealt": lambda e, n: f"deal {e['round']}: {n[e['dealer']]} deals",
    "team_ready": lambda e, n: f"{n[e['seat']]}'s team has agreed its signs",
    "signs_closed": lambda e, n: (
        "the signs are agreed: the game begins"
        + (f" (no signs for {'; '.join(_team(t, n) for t in e['missing'])})" if e["missing"] else "")
    ),
    # RULES 3.3: a hand is checked for three of a rank at every deal; one without says nothing new (a
    # line per seat, unexplained, only filled the log), one with is shown and drawn again.
    "hand_kept": lambda e, n: "",
    "redrawn": lambda e, n: (
        f"{n[e['seat']]} shows {_cards(e['cards'])}, three or more of a rank: back to the talon, and "
        "draws again"
    ),
    "talon_shuffled": lambda e, n: (
        "the bin is shuffled: it is the talon now" if e["from"] == "bin" else "the talon is shuffled"
    ),
    "turned": lambda e, n: f"turned up: {_cards(e['cards'])}",
    "binned": lambda e, n: (
        f"{_cards(e['cards'])} go to the bin" + (" (three of a rank)" if e["reason"] == "three" else "")
    ),
    "hunt_open": lambda e, n: f"{HUNT_CALL} {_cards(e['table'])}",
    "hunt_resumed": lambda e, n: "the hunt goes on",
    "exchanged": lambda e, n: f"{n[e['seat']]} gives {_cards(e['gave'])}, takes {_cards(e['took'])}",
    "quiet": lambda e, n: "nobody exchanges: a sweep may be asked",
    "sweep_asked": lambda e, n: f"{n[e['seat']]}: {SWEEP_CALL}",
    "sweep_answered": lambda e, n: (
        f"{n[e['seat']]} " + ("agrees" if e["accept"] else "refuses, and must exchange")
    ),
    "gestured": lambda e, n: f"{n[e['seat']]} {gesture_name(e['gesture'])}",
    "said": lambda e, n: f"{n[e['seat']]}: “{e['text']}”",
    "called": lambda e, n: f"{n[e['seat']]}: {_call(e, n)}",
    "call_judged": lambda e, n: (
        f"{n[e['seat']]}'s call counts" + (f"; too late: {n.listed(e['void'])}" if e["void"] else "")
    ),
    "hand_shown": lambda e, n: (
        f"{n[e['seat']]} shows {_cards(e['cards'])}" + (": four!" if e["four"] else "")
    ),
    "shown_privately": lambda e, n: f"{n[e['by']]} shows two cards to {n[e['to']]}",
    "call_result": lambda e, n: (
        f"{_call(e, n)} by {n[e['seat']]}: {RESULTS[e['result']][0]}, {_points(e)}; "
        f"totals: {_scores(e['scores'], n)}"
    ),
    "team_charged": lambda e, n: (
        f"{n[e['seat']]} held the deal up: their team loses 1; totals: {_scores(e['scores'], n)}"
    ),
    "round_over": lambda e, n: f"end of deal {e['round']}; totals: {_scores(e['scores'], n)}",
    "game_over": lambda e, n: f"{n.listed(e['winners'])} win the game",
}

FRENCH: dict[str, Line] = {
    "dealt": lambda e, n: f"donne {e['round']} : {n[e['dealer']]} distribue",
    "team_ready": lambda e, n: f"l'équipe de {n[e['seat']]} a choisi ses signes",
    "signs_closed": lambda e, n: (
        "les signes sont choisis : la partie commence"
        + (f" (pas de signes pour {' ; '.join(_team(t, n) for t in e['missing'])})" if e["missing"] else "")
    ),
    "hand_kept": lambda e, n: "",
    "redrawn": lambda e, n: (
        f"{n[e['seat']]} montre {_cards(e['cards'], 'fr')}, un brelan ou plus : retour à la pioche, "
        "et repioche"
    ),
    "talon_shuffled": lambda e, n: (
        "la poubelle est mélangée : c'est la pioche" if e["from"] == "bin" else "la pioche est mélangée"
    ),
    "turned": lambda e, n: f"retournées : {_cards(e['cards'], 'fr')}",
    "binned": lambda e, n: (
        f"{_cards(e['cards'], 'fr')} à la poubelle" + (" (brelan)" if e["reason"] == "three" else "")
    ),
    "hunt_open": lambda e, n: f"{HUNT_CALL} {_cards(e['table'], 'fr')}",
    "hunt_resumed": lambda e, n: "la chasse continue",
    "exchanged": lambda e, n: (
        f"{n[e['seat']]} donne {_cards(e['gave'], 'fr')}, prend {_cards(e['took'], 'fr')}"
    ),
    "quiet": lambda e, n: "plus d'échange : on peut demander un balayage",
    "sweep_asked": lambda e, n: f"{n[e['seat']]} : {SWEEP_CALL}",
    "sweep_answered": lambda e, n: (
        f"{n[e['seat']]} " + ("accepte" if e["accept"] else "refuse, et doit échanger")
    ),
    "gestured": lambda e, n: f"{n[e['seat']]} {gesture_name(e['gesture'], 'fr')}",
    "said": lambda e, n: f"{n[e['seat']]} : « {e['text']} »",
    "called": lambda e, n: f"{n[e['seat']]} : {_call(e, n)}",
    "call_judged": lambda e, n: (
        f"l'annonce de {n[e['seat']]} compte" + (f" ; trop tard : {n.listed(e['void'])}" if e["void"] else "")
    ),
    "hand_shown": lambda e, n: (
        f"{n[e['seat']]} montre {_cards(e['cards'], 'fr')}" + (" : carré !" if e["four"] else "")
    ),
    "shown_privately": lambda e, n: f"{n[e['by']]} montre deux cartes à {n[e['to']]}",
    "call_result": lambda e, n: (
        f"{_call(e, n)} de {n[e['seat']]} : {RESULTS[e['result']][1]}, {_points(e)} ; "
        f"totaux : {_scores(e['scores'], n)}"
    ),
    "team_charged": lambda e, n: (
        f"{n[e['seat']]} a retenu la donne : son équipe perd 1 ; totaux : {_scores(e['scores'], n)}"
    ),
    "round_over": lambda e, n: f"fin de la donne {e['round']} ; totaux : {_scores(e['scores'], n)}",
    "game_over": lambda e, n: f"{n.listed(e['winners'])} gagnent la partie",
}

LANGUAGES = {"en": ENGLISH, "fr": FRENCH}


@hookimpl
def kdm_describe(effect: Effect, lang: str, names: SeatNames) -> str | None:
    line = LANGUAGES.get(lang, ENGLISH).get(effect["kind"])
    return None if line is None else line(effect, names)


#: What a player reads of this rule on the table's rules screen (``kdm_rules_text``).
RULES_TEXT = {
    "en": """Kem's
Teams of two: partners sit opposite each other. Before the first deal each team agrees a secret sign,
one gesture (t); after that, no private word between partners.

Four cards are turned up on the table: « La chasse est ouverte ! ». At any time, give cards of your hand
for as many table cards. When nobody has exchanged for a while, anyone may ask « Balayage ? »: if
everyone agrees, four new cards are turned; whoever refuses must exchange.

Four of a kind? Make your sign: your partner calls « Kem's ! » (+1 if you hold it, -1 if not). Holding
four too, they call « Double Kem's ! » (+2 or -2). Think an opponent holds four? Call « Contre Kem's ! »
on them: +1 if so (nothing if their partner holds four too); if not, -1, they show you two cards, and
you may not contre again this deal. Everyone sees every gesture: bluff. The first team to 10 points wins
(option target).""",
    "fr": """Kem's
Par équipes de deux : les partenaires sont face à face. Avant la première donne chaque équipe choisit un
signe secret, un geste (t) ; ensuite, plus un mot en privé entre partenaires.

Quatre cartes sont retournées sur la table : « La chasse est ouverte ! ». À tout moment, donnez des
cartes de votre main contre autant de cartes de la table. Quand plus personne n'échange, chacun peut
demander « Balayage ? » : si tout le monde accepte, quatre nouvelles cartes sont retournées ; qui refuse
doit échanger.

Un carré ? Faites votre signe : votre partenaire annonce « Kem's ! » (+1 si vous l'avez, -1 sinon). S'il
a aussi un carré, il annonce « Double Kem's ! » (+2 ou -2). Un adversaire a un carré ? Annoncez « Contre
Kem's ! » contre lui : +1 si oui (rien si son partenaire en a un aussi) ; sinon -1, il vous montre deux
cartes, et vous ne pouvez plus contrer de la donne. Tout le monde voit tous les gestes : bluffez. La
première équipe à 10 points gagne (option target).""",
}


@hookimpl
def kdm_rules_text(lang: str) -> str:
    return RULES_TEXT.get(lang, RULES_TEXT["en"])
