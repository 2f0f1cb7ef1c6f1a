"""Every string the base game's table screen shows a player, in English and French.

The game's own lines (one per effect, and the queens' call) come from the rules (``kdm.plugins.kilo.calls``);
the words every table's screen has (the log, quitting, « you », the waiting room) from ``kdm.tui.text``.
This catalogue holds what only the base game's screen says: its header, panels, keys, hints and help,
and the slap window's summary. It is the base game's ``ScreenPart.words``, so the table screen's
``say`` finds them, and a variant may rename them (``ScreenPart.renames``) as it would the screen's
own. ``say`` works like ``kdm.tui.text.say``, with these words first.
"""

from __future__ import annotations

from kdm.tui import text
from kdm.tui.text import say_from

#: key -> (English, French)
WORDS: dict[str, tuple[str, str]] = {
    "round": ("round {round}/{rounds}", "manche {round}/{rounds}"),
    "round_open": ("round {round}", "manche {round}"),
    "pile": ("pile {cards}", "tas {cards}"),
    "left": ("passing left ↓", "on passe à gauche ↓"),
    "right": ("passing right ↑", "on passe à droite ↑"),
    "columns": ("   # name            cards  kilos", "   # nom            cartes  kilos"),
    "your_turn": ("your turn: pass a card", "à vous : passez une carte"),
    "turn_of": ("{name} is passing", "{name} passe"),
    "new_card": ("new", "nouvelle"),
    "hint_choose": ("1-5 ←→ choose", "1-5 ←→ choix"),
    "hint_pass": ("Enter pass", "Entrée passe"),
    "hint_slap": ("Space slap", "Espace tape"),
    "hint_feint": ("f feint", "f feinte"),
    "slap_banner": ("✋ SLAP! {name}", "✋ PAF ! {name}"),
    "slap_opens": ("opens a window", "tape le tas"),
    "feint_banner": ("✋ … {name} raises a hand", "✋ … {name} lève la main"),
    "slapped_so_far": ("slapped: {names}", "ont tapé : {names}"),
    "valid_slap": ("valid slap by {name}", "tape valable de {name}"),
    "false_slap": ("false slap by {name}", "fausse tape de {name}"),
    "why_no_combo": ("{name} had no combo", "{name} n'avait pas de combinaison"),
    "why_not_four": ("not every hand held four cards", "les mains n'étaient pas toutes à quatre cartes"),
    "why_late": ("too late: the checkpoint had passed", "trop tard : le moment était passé"),
    "why_feint": ("fooled by a feint", "piégé par une feinte"),
    "checkpoint": (
        "● everyone holds 4: a combo? slap!",
        "● tout le monde a 4 cartes : une combinaison ? tapez !",
    ),
    "showed": ("{name} shows {cards}", "{name} montre {cards}"),
    "order": ("order:", "ordre :"),
    "draws": ("draws: {names}", "pioche : {names}"),
    "drew": ("{name} draws {card}", "{name} pioche {card}"),
    "flushed": ("{name}: « la chasse ! »", "{name} : « la chasse ! »"),
    "nothing_drawn": ("the pile is empty: nothing drawn", "le tas est vide : rien à piocher"),
    "round_gains": (": {gains}", " : {gains}"),
    "kilos": ("{kilos} kg", "{kilos} kg"),
    "in_front": ("in front of each player", "devant chaque joueur"),
    "not_your_turn": ("not your turn to pass", "ce n'est pas à vous de passer"),
    "no_passing": ("no passing now", "on ne passe pas maintenant"),
    "pass_sent": ("passing {card}…", "vous passez {card}…"),
    "no_slapping": ("no slapping now", "on ne tape pas maintenant"),
    "already_slapped": ("you have already slapped", "vous avez déjà tapé"),
    "no_feinting": ("no feinting now", "on ne feinte pas maintenant"),
    "barred": (
        "you may not open a window again this round",
        "vous ne pouvez plus lancer de tape cette manche",
    ),
    "help": (
        "1 to 5       choose a card of your hand\n"
        "← →          choose the card to the left or right\n"
        "Enter        pass the chosen card (on your turn)\n"
        "Space        slap the pile\n"
        "f            feint: the gesture without the slap\n"
        "s            scores of every round\n"
        "/            say something to the whole table\n"
        "PgUp PgDn    scroll the log back and forth\n"
        "b            add a bot (waiting room)\n"
        "?            these keys and the rules; ? or Esc closes them\n"
        "q            leave the table (asks first)",
        "1 à 5        choisir une carte de votre main\n"
        "← →          choisir la carte à gauche ou à droite\n"
        "Entrée       passer la carte choisie (à votre tour)\n"
        "Espace       taper sur le tas\n"
        "f            feinter : le geste sans taper\n"
        "s            les scores de chaque manche\n"
        "/            dire quelque chose à toute la table\n"
        "PgUp PgDn    faire défiler le journal\n"
        "b            ajouter un robot (salle d'attente)\n"
        "?            ces touches et les règles ; ? ou Échap les ferme\n"
        "q            quitter la table (demande d'abord)",
    ),
    "hint_slap_now": ("slap now: Space", "tapez : Espace"),
    "slap_now": ("✋ slap now! (Space)", "✋ tapez ! (Espace)"),
    "combo_slap_now": ("✋ a combo: slap now! (Space)", "✋ une combinaison : tapez ! (Espace)"),
    "you_slapped": ("you slapped: the others are slapping", "vous avez tapé : les autres tapent"),
    "holding": ("your turn: pass once the checkpoint is over", "à vous : passez une fois le moment passé"),
    "next_round_soon": ("the next round is dealt in a moment", "la manche suivante arrive"),
}


def say(lang: str, key: str, **fields: object) -> str:
    """The words for ``key`` in ``lang``: the base game's screen's, else every table's."""
    return say_from(WORDS if key in WORDS else text.CATALOGUE, lang, key, **fields)
