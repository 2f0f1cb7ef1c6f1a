"""Snap's words for people: a line for each effect (``kdm_describe``, for the log of the table screen,
``kdm sim`` and ``kdm host --headless``) and the rules (``kdm_rules_text``, for the ``?`` screen), in
English and French.
"""

from __future__ import annotations

from collections.abc import Callable

from kdm.cards import pretty
from kdm.engine import Effect
from kdm.hookspecs import hookimpl
from kdm.names import SeatNames, counted

Line = Callable[[Effect, SeatNames], str | None]


def _each(effect: Effect, lang: str) -> str:
    piles = sorted(set(effect["piles"]))
    joined = (" ou " if lang == "fr" else " or ").join(str(n) for n in piles)
    return joined


def _judged(effect: Effect, names: SeatNames, lang: str) -> str:
    fr = lang == "fr"
    if effect["pair"]:
        if fr:
            return f"{names[effect['first']]}, le plus rapide, prend les {effect['taken']} cartes du centre"
        return f"{names[effect['first']]} was quickest and takes the {effect['taken']} cards of the centre"
    paid = names.listed(effect["paid"])
    if not paid:
        return "pas de paire !" if fr else "no pair!"
    if fr:
        verb = "glissent" if len(effect["paid"]) > 1 else "glisse"
        return f"pas de paire ! {paid} {verb} une carte sous le centre"
    return f"no pair! {paid} put{'s' if len(effect['paid']) == 1 else ''} a card under the centre"


def _over(effect: Effect, names: SeatNames, lang: str) -> str:
    winners = effect["winners"]
    cards = effect["cards"][winners[0]] if winners else 0
    who = names.listed(winners)
    if lang == "fr":
        why = "plus qu'un joueur en jeu" if effect["reason"] == "last" else "tous les tours sont joués"
        verb = "gagnent" if len(winners) > 1 else "gagne"
        return f"partie terminée ({why}) : {who} {verb} avec {counted(cards, 'fr', 'carte', 'cartes')}"
    why = "one player left in" if effect["reason"] == "last" else "every turn is played"
    verb = "win" if len(winners) > 1 else "wins"
    return f"game over ({why}): {who} {verb} with {counted(cards, 'en', 'card', 'cards')}"


ENGLISH: dict[str, Line] = {
    "dealt": lambda e, n: f"the deck is dealt face down: {_each(e, 'en')} cards each",
    "turned": lambda e, n: f"{n[e['seat']]} turns {pretty(e['card'], 'en')}",
    "slapped": lambda e, n: f"{n[e['seat']]}: Snap! ({e['rt']:.0f} ms)",
    "slap_judged": lambda e, n: _judged(e, n, "en"),
    "player_out": lambda e, n: f"{n[e['seat']]} has no card left and is out",
    "redealt": lambda e, n: (
        f"every pile is empty: the centre is shuffled and dealt again, {_each(e, 'en')} cards each"
    ),
    "game_over": lambda e, n: _over(e, n, "en"),
}
FRENCH: dict[str, Line] = {
    "dealt": lambda e, n: f"le paquet est distribué face cachée : {_each(e, 'fr')} cartes chacun",
    "turned": lambda e, n: f"{n[e['seat']]} retourne {pretty(e['card'], 'fr')}",
    "slapped": lambda e, n: f"{n[e['seat']]} : Snap ! ({e['rt']:.0f} ms)",
    "slap_judged": lambda e, n: _judged(e, n, "fr"),
    "player_out": lambda e, n: f"{n[e['seat']]} n'a plus de carte : hors jeu",
    "redealt": lambda e, n: (
        f"tous les tas sont vides : le centre est mélangé et redistribué, {_each(e, 'fr')} cartes chacun"
    ),
    "game_over": lambda e, n: _over(e, n, "fr"),
}
LANGUAGES = {"en": ENGLISH, "fr": FRENCH}


@hookimpl
def kdm_describe(effect: Effect, lang: str, names: SeatNames) -> str | None:
    line = LANGUAGES.get(lang, ENGLISH).get(effect["kind"])
    return None if line is None else line(effect, names)


#: What a player reads of the game on the table's rules screen (``kdm_rules_text``).
RULES_TEXT = {
    "en": """Snap
The whole deck is dealt face down: each player has a pile. In turn, each turns the top card of their
pile face up onto the centre pile (Enter).

When the centre's top two cards have the same rank, slap it (Space): the quickest slap, measured from
the moment the card showed on each player's screen, takes the whole centre under their pile. A slap
with no pair costs a card: it goes face down under the centre.

A player whose turn comes with no card is out; one with no card left may still slap a pair to come
back, but a false slap then puts them out. When every pile is empty, the centre is shuffled and dealt
again. The last player in wins; after max_turns cards turned (option), the most cards wins, and equal
piles share the win.""",
    "fr": """Snap
Tout le paquet est distribué face cachée : chacun a son tas. À tour de rôle, chacun retourne la carte
du dessus de son tas sur le tas du centre (Entrée).

Quand les deux cartes du dessus du centre sont de même rang, tapez (Espace) : la tape la plus rapide,
comptée depuis l'instant où la carte est apparue sur l'écran de chacun, prend tout le centre sous son
tas. Une tape sans paire coûte une carte : elle va face cachée sous le centre.

Qui n'a plus de carte quand son tour vient est hors jeu ; sans carte, on peut encore taper une paire
pour revenir, mais une fausse tape met alors hors jeu. Quand tous les tas sont vides, le centre est
mélangé et redistribué. Le dernier en jeu gagne ; après max_turns cartes retournées (option), le plus
de cartes gagne, et des tas égaux partagent la victoire.""",
}


@hookimpl
def kdm_rules_text(lang: str) -> str:
    return RULES_TEXT.get(lang, RULES_TEXT["en"])
