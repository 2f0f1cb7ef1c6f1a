"""Every string the Kem's table screen shows a player, in English and French.

The game's own lines (one per effect), the gestures' names and the table calls (« Kem's ! »,
« Balayage ? ») come from the Kem's plugin (``kdm.plugins.kems.text``); the client's own words for
the base game (quitting, « you », a bot's name) from ``kdm.tui.text``. This catalogue holds what only
the Kem's screen says: its panels, prompts, keys and help. ``say`` works like ``kdm.tui.text.say``, and
says what this catalogue does not have (the log's title, a key hint every table has) in the table
screen's words.
"""

from __future__ import annotations

from kdm.tui import text
from kdm.tui.text import say_from

#: key -> (English, French)
CATALOGUE: dict[str, tuple[str, str]] = {
    # --- the screen -------------------------------------------------------------------------------
    "game": ("Kem's", "Kem's"),
    "deal": ("deal {deal}", "donne {deal}"),
    "talon": ("talon {cards}", "pioche {cards}"),
    "bin": ("bin {cards}", "poubelle {cards}"),
    "teams": ("Teams · to {target} points", "Équipes · en {target} points"),
    "columns": ("   # name            team  points", "   # nom           équipe  points"),
    "feed": ("Gestures", "Gestes"),
    "no_gestures": ("no gesture yet", "pas encore de geste"),
    "your_sign": ("your team's sign: {signs}", "le signe de votre équipe : {signs}"),
    "your_signs": ("your team's signs: {signs}", "les signes de votre équipe : {signs}"),
    "presign": ("pre-sign: {gesture}", "pré-signe : {gesture}"),
    "sign_none": ("none (not chosen before play)", "aucun (pas choisi avant la partie)"),
    "sign_unset": ("none yet: t to choose it", "aucun : t pour le choisir"),
    "sign_waiting": ("{name} chooses it", "{name} le choisit"),
    "shown_to_you": ("{name} showed you {cards}", "{name} vous a montré {cards}"),
    "last_call": (
        "last: {call} by {name}: {result} {points}",
        "dernière : {call} de {name} : {result} {points}",
    ),
    # The phases of a deal, for the table panel.
    "dealing": ("dealing…", "on distribue…"),
    "signing": (
        "the teams choose their secret signs: {agreed} of {teams} ready",
        "les équipes choisissent leurs signes secrets : {agreed} sur {teams} prêtes",
    ),
    "checking": ("hands are checked…", "on regarde les mains…"),
    "reshuffling": ("shuffling…", "on mélange…"),
    "turning": ("cards are turned up…", "on retourne les cartes…"),
    "hunt": ("« La chasse est ouverte ! »", "« La chasse est ouverte ! »"),
    "sweepable": ("nobody exchanges: b asks « Balayage ? »", "plus d'échange : b demande « Balayage ? »"),
    "sweep_asked_you": ("« Balayage ? » {name} asks: y or n", "« Balayage ? » demande {name} : o ou n"),
    "sweep_you_asked": (
        "you asked « Balayage ? »: {count} yes",
        "vous demandez « Balayage ? » : {count} oui",
    ),
    "sweep_waiting": (
        "« Balayage ? »: you said yes; {count} yes",
        "« Balayage ? » : vous avez dit oui ; {count} oui",
    ),
    "refused_you": (
        "you refused: exchange now, or your first card goes",
        "vous avez refusé : échangez, sinon votre première carte part",
    ),
    "refused_other": ("{name} refused the sweep: they exchange", "{name} refuse le balayage : il échange"),
    "calls": ("calls: {calls}", "annonces : {calls}"),
    "counts": ("{name}'s call counts: {call}", "l'annonce de {name} compte : {call}"),
    "showing": ("{name} shows their hand", "{name} montre sa main"),
    "answering": ("{name} answers the Contre", "{name} répond au Contre"),
    "choose_two": (
        "show {name} two cards: mark 1-4, Enter ({seconds} s, then the table picks)",
        "deux cartes pour {name} : 1-4, Entrée ({seconds} s, sinon la table choisit)",
    ),
    "mark_two": (
        "mark two cards of your hand (1-4), then Enter",
        "marquez deux cartes de votre main (1-4), puis Entrée",
    ),
    "two_ranks": (
        "the two cards are of different ranks: mark another",
        "les deux cartes sont de hauteurs différentes : marquez-en une autre",
    ),
    "against": ("against {name}", "contre {name}"),
    "winner_team": ("team {team} wins", "l'équipe {team} gagne"),
    # The hand's status line.
    "mark_cards": ("mark yours 1-4 and the table's 5-8", "marquez les vôtres 1-4 et la table 5-8"),
    "give_take": ("give {give} · take {take}", "donner {give} · prendre {take}"),
    "give_take_enter": ("give {give} · take {take}: Enter", "donner {give} · prendre {take} : Entrée"),
    # The footer's key hints.
    "hint_mark": ("1-8 mark", "1-8 marquer"),
    "hint_exchange": ("Enter exchange", "Entrée échanger"),
    "hint_gesture": ("g gesture", "g geste"),
    "hint_calls": ("k d c Kem's/Double/Contre", "k d c Kem's/Double/Contre"),
    "hint_sweep": ("b sweep", "b balayage"),
    "hint_answer": ("y yes  n no", "o oui  n non"),
    "hint_sign": ("t sign", "t signe"),
    "hint_menu": ("a-l make a gesture  Esc close", "a-l faire un geste  Échap fermer"),
    "hint_contre": ("{keys}: an opponent  Esc cancel", "{keys} : un adversaire  Échap annuler"),
    "hint_signs": (
        "a-l choose  Tab sign/pre-sign  Enter send  Esc later",
        "a-l choisir  Tab signe/pré-signe  Entrée envoyer  Échap plus tard",
    ),
    # --- overlays ---------------------------------------------------------------------------------
    "menu_title": ("Make a gesture (everyone sees it)", "Faire un geste (tout le monde le voit)"),
    "menu_sign": ("your sign", "votre signe"),
    "menu_presign": ("your pre-sign", "votre pré-signe"),
    "contre_title": ("« Contre Kem's ! » against…", "« Contre Kem's ! » contre…"),
    "signs_title": ("Your team's secret sign", "Le signe secret de votre équipe"),
    "signs_intro": ("Only {name}, your partner, will know it.", "Seul {name}, votre partenaire, le saura."),
    "signs_field_one": ("sign: {signs}", "signe : {signs}"),
    "signs_field_multi": ("signs (up to {most}): {signs}", "signes ({most} au plus) : {signs}"),
    "signs_field_presign": ("pre-sign (three of a kind): {gesture}", "pré-signe (brelan) : {gesture}"),
    "none": ("none", "aucun"),
    "scores_team": ("team {team}  {names}", "équipe {team}  {names}"),
    "scores_deals": ("points gained, deal by deal:", "points gagnés, donne par donne :"),
    "scores_calls": (
        "{call}: {confirmed} confirmed, {failed} failed",
        "{call} : {confirmed} réussis, {failed} ratés",
    ),
    "scores_void": (
        "{call}: {confirmed} confirmed, {failed} failed, {void} void",
        "{call} : {confirmed} réussis, {failed} ratés, {void} nuls",
    ),
    "ranking_row": ("team {team}  {names}", "équipe {team}  {names}"),
    "points": ("{points} pts", "{points} pts"),
    "help_title": ("Kem's: keys and rules", "Kem's : touches et règles"),
    "help": (
        "1 to 4       mark cards of your hand to give\n"
        "5 to 8       mark as many table cards to take\n"
        "Enter        exchange the marked cards; Esc clears the marks\n"
        "g            make a gesture: a menu, a to l (everyone sees it)\n"
        "k            « Kem's ! »: your partner holds four of a kind\n"
        "d            « Double Kem's ! »: you hold four too\n"
        "c            « Contre Kem's ! », then the opponent's seat number\n"
        "b            « Balayage ? » once nobody exchanges\n"
        "y n          answer a sweep (refuse, and you must exchange)\n"
        "t            choose your team's secret sign (first of the team, before play)\n"
        "s            scores and calls\n"
        "/            say something to the table (spoken=on, or between deals)\n"
        "?            these keys and the rules; ? or Esc closes them\n"
        "q            leave the table (asks first)",
        "1 à 4        marquer des cartes de votre main à donner\n"
        "5 à 8        marquer autant de cartes de la table à prendre\n"
        "Entrée       échanger les cartes marquées ; Échap efface\n"
        "g            faire un geste : un menu, de a à l (tous le voient)\n"
        "k            « Kem's ! » : votre partenaire a un carré\n"
        "d            « Double Kem's ! » : vous aussi\n"
        "c            « Contre Kem's ! », puis le numéro de l'adversaire\n"
        "b            « Balayage ? » quand plus personne n'échange\n"
        "o n          répondre au balayage (refuser oblige à échanger)\n"
        "t            choisir le signe secret (premier de l'équipe, avant la partie)\n"
        "s            scores et annonces\n"
        "/            parler à la table (spoken=on, ou entre les donnes)\n"
        "?            ces touches et les règles ; ? ou Échap les ferme\n"
        "q            quitter la table (demande d'abord)",
    ),
    # --- feedback to the player's keys ------------------------------------------------------------
    "no_exchange": ("no exchanging now", "on n'échange pas maintenant"),
    "refuser_first": ("{name} refused the sweep and exchanges first", "{name} a refusé et échange d'abord"),
    "mark_first": (
        "mark cards first: yours 1-4, the table's 5-8",
        "marquez d'abord : les vôtres 1-4, la table 5-8",
    ),
    "same_count": (
        "give and take as many cards: {give} and {take}",
        "autant à donner qu'à prendre : {give} et {take}",
    ),
    "exchange_sent": ("exchanging {give} for {take}…", "échange de {give} contre {take}…"),
    "no_table_card": ("no table card {number}", "pas de carte {number} sur la table"),
    "card_unread": (
        "card {number} is not read yet (??): mark it once its face shows",
        "la carte {number} n'est pas encore lue (??) : marquez-la quand elle s'affiche",
    ),
    "gesture_sent": ("your gesture: {gesture}", "votre geste : {gesture}"),
    "no_calls": ("no calls now", "pas d'annonce maintenant"),
    "already_called": ("you have already called", "vous avez déjà annoncé"),
    "call_sent": ("you call {call}", "vous annoncez {call}"),
    "barred": ("no more Contre for you this deal", "plus de Contre pour vous cette donne"),
    "not_opponent": ("seat {seat} is not an opponent", "la place {seat} n'est pas un adversaire"),
    "not_sweepable": (
        "a sweep waits until nobody exchanges",
        "un balayage attend que plus personne n'échange",
    ),
    "sweep_sent": ("you ask « Balayage ? »", "vous demandez « Balayage ? »"),
    "not_asked": ("no sweep question for you", "pas de balayage à répondre"),
    "answer_sent": ("you answer {answer}", "vous répondez {answer}"),
    "yes": ("yes", "oui"),
    "no": ("no", "non"),
    "signs_closed": (
        "signs are chosen before the game: no private word during play",
        "les signes se choisissent avant la partie : pas d'aparté pendant le jeu",
    ),
    "not_first": (
        "{name}, first of your team, chooses the sign",
        "{name}, premier de l'équipe, choisit le signe",
    ),
    "choose_sign_first": ("choose a sign first", "choisissez d'abord un signe"),
    "too_many_signs": ("{most} signs at most", "{most} signes au plus"),
    "presign_is_sign": ("the pre-sign must differ from the signs", "le pré-signe doit différer des signes"),
    "signs_sent": ("{name} now knows your sign", "{name} connaît votre signe"),
}


def say(lang: str, key: str, **fields: object) -> str:
    """The text for ``key`` in ``lang`` (English if unknown), with ``fields`` filled in; a key this
    catalogue does not have is the table screen's (``kdm.tui.text``)."""
    return say_from(CATALOGUE if key in CATALOGUE else text.CATALOGUE, lang, key, **fields)
