"""Every string the terminal client shows a player, in English and French.

The game's own lines (one per effect, and the queens' call) come from the rules (``rules.describe``), so
that a variant plugin brings its words with it; this catalogue holds the client's own: titles, keys, help,
prompts and the slap window's summary. ``say(lang, key, **fields)`` picks the language and fills fields;
an unknown language falls back to English; ``packed`` lays short texts out on lines of a panel's width.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the plugins' screens read this catalogue when they load, headless processes too
    from prompt_toolkit.formatted_text import StyleAndTextTuples

LANGUAGES = ("en", "fr")

#: key -> (English, French)
CATALOGUE: dict[str, tuple[str, str]] = {
    # --- the table screen -------------------------------------------------------------------------
    "table": ("table «{name}»", "table « {name} »"),
    "players": ("Players", "Joueurs"),
    "log": ("Log", "Journal"),
    "table_panel": ("Table", "Table"),
    "you": ("you", "vous"),
    "bot": ("bot {seat}", "robot {seat}"),
    "lost": ("lost", "perdu"),
    "free_seat": ("free seat", "place libre"),
    "hand": ("Your hand", "Votre main"),
    "watching": ("you are watching", "vous regardez"),
    # The footer is made of key hints, the ones that work now (see ``plugin_panels.footer_hints``).
    "hint_scores": ("s scores", "s scores"),
    "hint_help": ("? help", "? aide"),
    "hint_quit": ("q quit", "q quitte"),
    "footer_waiting": (
        "b add a bot  ? help  q quit",
        "b ajouter un robot  ? aide  q quitter",
    ),
    "footer_over": ("s scores  q leave", "s scores  q partir"),
    # --- what happened ----------------------------------------------------------------------------
    "seated": ("{name} takes seat {seat}", "{name} prend la place {seat}"),
    "started": ("the game starts", "la partie commence"),
    "took_over": (
        "{name} is away: {bot} plays for them until they are back",
        "{name} est parti : {bot} joue à sa place jusqu'à son retour",
    ),
    "withheld": (
        "{name} held the deck up: {bot} plays for them to the end",
        "{name} a bloqué le paquet : {bot} joue à sa place jusqu'à la fin",
    ),
    "voided": (
        "{name}'s keys left with their laptop: the round is dealt again",
        "les clés de {name} sont parties avec son ordinateur : la donne est refaite",
    ),
    "voided_back": (
        "{name} is back with new keys: the round is dealt again",
        "{name} est de retour avec de nouvelles clés : la donne est refaite",
    ),
    "cheat": ("the deck caught {name}: {reason}", "le paquet a pris {name} en faute : {reason}"),
    "returning": (
        "{name} is back, and takes their seat at the next pause",
        "{name} est de retour, et reprend sa place à la prochaine pause",
    ),
    "player_returned": ("{name} takes their seat back", "{name} reprend sa place"),
    "you_are_back": ("you take your seat back, {name}", "vous reprenez votre place, {name}"),
    "away": ("away", "absent"),
    "peer_lost": ("{name} is not answering", "{name} ne répond plus"),
    "peer_back": ("{name} is back", "{name} est de retour"),
    "pin_guesses": (
        "someone at {host} tried {count} wrong PINs: one checked every {seconds} s",
        "quelqu'un à {host} : {count} PIN faux, un seul vérifié par {seconds} s",
    ),
    "at_the_door": (
        "{name} at {host} waits for the PIN check: L lets them in now",
        "{name} à {host} attend la vérification du PIN : L pour l'admettre",
    ),
    "let_in": ("you let {name} in", "vous faites entrer {name}"),
    "let_in_refused": (
        "{name} cannot be let in: only a seated player can, once the table has a leader",
        "{name} ne peut entrer : seul un joueur assis le peut, la table ayant un meneur",
    ),
    "stranded": (
        "the table cannot go on without {names}: no news from their laptops",
        "la table est bloquée sans {names} : aucune nouvelle de leur ordinateur",
    ),
    "stranded_ask": (
        "no news from {names}: G goes on without them (bots play), or wait",
        "aucune nouvelle de {names} : G pour continuer sans eux (robots), ou attendez",
    ),
    "going_on": (
        "going on without {names}: bots play their seats",
        "on continue sans {names} : des robots jouent pour eux",
    ),
    "unstranded": ("the table goes on", "la table continue"),
    "refused": ("refused: {reason}", "refusé : {reason}"),
    "round_over": ("round {round} over", "fin de la manche {round}"),
    "scores": ("Scores", "Scores"),
    "scores_round": ("round", "manche"),
    "scores_total": ("total", "total"),
    "ranking": ("Final ranking", "Classement final"),
    "winner": ("★ winner", "★ vainqueur"),
    "game_over": ("game over", "partie terminée"),
    "any_key": ("q or Enter: leave the table", "q ou Entrée : quitter la table"),
    # --- feedback to the player's keys ------------------------------------------------------------
    "fork_proven": (
        "{names} sent two logs (proven): the table goes on without",
        "{names} a envoyé deux journaux (preuve faite) : on continue sans",
    ),
    "convicted": (
        "{names} changed who votes unasked: the table goes on without",
        "{names} a changé qui vote sans accord : on continue sans",
    ),
    "distrust": (
        "{names} leads but takes no moves: choosing another leader",
        "{names} mène mais ne prend aucun coup : on choisit un autre meneur",
    ),
    "clock_settling": (
        "one moment: your clock is being set to the table's, press again",
        "un instant : votre horloge se règle sur celle de la table, appuyez de nouveau",
    ),
    "not_seated": ("you have no seat at this table", "vous n'avez pas de place à cette table"),
    "bot_added": ("a bot is on its way", "un robot arrive"),
    "bot_seated": ("your bot sits at seat {seat}", "votre robot prend la place {seat}"),
    "bot_failed": ("your bot could not sit: {reason}", "votre robot n'a pas pu s'asseoir : {reason}"),
    "no_bot_room": ("every seat is taken", "toutes les places sont prises"),
    # --- house rules (variants) -------------------------------------------------------------------
    "help_variants": ("At this table ({names}):", "À cette table ({names}) :"),
    "help_marks": ("marks: {marks}", "marques : {marks}"),
    # --- waiting room -----------------------------------------------------------------------------
    "waiting_room": ("Waiting room", "Salle d'attente"),
    "seats_taken": ("{taken} of {total} seats taken", "places prises : {taken} sur {total}"),
    "starts_when_full": (
        "the game starts when every seat is taken",
        "la partie commence quand toutes les places sont prises",
    ),
    "host": ("host", "hôte"),
    "join_with": ("others join with: kdm play {address}", "les autres viennent par : kdm play {address}"),
    "join_by_address": ("or by address: {addresses}", "ou par adresse : {addresses}"),
    "local_only": (
        "this table is on this machine only: no one else can join it",
        "table sur cette machine seulement : personne d'autre ne peut la rejoindre",
    ),
    "pin_to_tell": ("PIN to give your friends: {pin}", "code à donner à vos amis : {pin}"),
    "fair_deck": (
        "fair deck: nobody's laptop can read a card it was not shown",
        "paquet équitable : nul ne peut lire une carte qu'on ne lui a pas montrée",
    ),
    "open_deck": (
        "open deck: every laptop at the table could read every card",
        "paquet ouvert : chaque ordinateur de la table pourrait lire toutes les cartes",
    ),
    "table_key": (
        "table key {fingerprint}: the same on every screen at this table",
        "clé de la table {fingerprint} : la même sur chaque écran de cette table",
    ),
    "waiting_for_players": ("waiting for players…", "on attend les joueurs…"),
    "joining": ("joining the table…", "on rejoint la table…"),
    # --- help and quitting ------------------------------------------------------------------------
    "help_title": ("Keys and rules", "Touches et règles"),
    "rules_options": ("Options at this table: {options}.", "Options de cette table : {options}."),
    "overlay_more": (
        "↑↓ PgUp PgDn: more (lines {first}-{last} of {total})",
        "↑↓ PgUp PgDn : la suite (lignes {first} à {last} sur {total})",
    ),
    "help_table": (
        "s            scores of every round\n"
        "/            say something to the whole table\n"
        "PgUp PgDn    scroll the log back and forth\n"
        "b            add a bot (waiting room)\n"
        "?            these keys and the rules; ? or Esc closes them\n"
        "q            leave the table (asks first)",
        "s            les scores de chaque manche\n"
        "/            dire quelque chose à toute la table\n"
        "PgUp PgDn    faire défiler le journal\n"
        "b            ajouter un robot (salle d'attente)\n"
        "?            ces touches et les règles ; ? ou Échap les ferme\n"
        "q            quitter la table (demande d'abord)",
    ),
    "no_game_screen": (
        "this game brings no screen of its own: the log says what happens",
        "ce jeu n'apporte pas d'écran à lui : le journal dit ce qui se passe",
    ),
    "chat_prompt": (
        "say: {draft}▏  Enter sends · Esc cancels",
        "dire : {draft}▏  Entrée envoie · Échap annule",
    ),
    "said": ("{name}: {text}", "{name} : {text}"),
    "log_newer": ("↓ {count} newer lines: PgDn", "↓ {count} lignes plus récentes : PgDn"),
    "log_newer_one": ("↓ 1 newer line: PgDn", "↓ 1 ligne plus récente : PgDn"),
    "quit_title": ("Leave the table?", "Quitter la table ?"),
    "quit_ask": (
        "The game goes on without you. Leave? (y/n, q again leaves)",
        "La partie continue sans vous. Partir ? (o/n, q à nouveau pour partir)",
    ),
    "leaving": ("leaving the table…", "on quitte la table…"),
    "watch_title": ("No seat for you", "Pas de place pour vous"),
    "not_watching": (
        "you left that table: choose another",
        "vous avez quitté cette table : choisissez-en une autre",
    ),
    "watch_ask": ("Watch the game without playing? (y/n)", "Regarder la partie sans jouer ? (o/n)"),
    # --- the lobby --------------------------------------------------------------------------------
    "lobby": ("Tables on this network", "Tables sur ce réseau"),
    "lobby_columns": (
        "  name                 game                 seats  state",
        "  nom                  jeu                  places état",
    ),
    "no_tables": ("no tables yet: press c to create one", "pas encore de table : c pour en créer une"),
    "state_lobby": ("waiting", "en attente"),
    "state_playing": ("playing", "en cours"),
    "state_over": ("over", "finie"),
    "your_seat": ("your seat", "votre place"),
    "lobby_key": (
        "key {fingerprint}: compare it with the host's screen",
        "clé {fingerprint} : à comparer avec l'écran de l'hôte",
    ),
    "return_to_seat": ("Enter: return to your seat at {table}", "Entrée : reprendre votre place à {table}"),
    "enter_to_watch": (
        "{table} is playing or full: Enter to watch it",
        "{table} joue ou est complète : Entrée pour regarder",
    ),
    "lobby_footer": (
        "↑↓ choose  Enter join  c create  a address  q quit",
        "↑↓ choisir  Entrée rejoindre  c créer  a adresse  q quitter",
    ),
    "address_prompt": ("join HOST:PORT or table name: ", "rejoindre HÔTE:PORT ou nom de table : "),
    "address_footer": (
        "type the address  Enter join  Esc back",
        "tapez l'adresse  Entrée rejoindre  Échap retour",
    ),
    "create_title": ("New table", "Nouvelle table"),
    "create_footer": (
        "↑↓ field  ←→ change  type to edit  Enter create  Esc back",
        "↑↓ champ  ←→ changer  tapez pour écrire  Entrée créer  Échap retour",
    ),
    "field_name": ("table name", "nom de la table"),
    "field_game": ("game", "jeu"),
    "field_players": ("players", "joueurs"),
    "field_bots": ("bots", "robots"),
    "field_player": ("your name", "votre nom"),
    "field_pin": ("PIN", "code"),
    "field_pin_help": (
        "4 to 12 digits that joiners must type; empty: anyone may join",
        "4 à 12 chiffres à taper pour entrer ; vide : tout le monde entre",
    ),
    "bad_pin": ("a PIN is 4 to 12 digits", "un code fait 4 à 12 chiffres"),
    "pin_prompt": ("PIN of {table}: ", "code de {table} : "),
    "pin_footer": (
        "type the table's PIN  Enter join  Esc back",
        "tapez le code de la table  Entrée rejoindre  Échap retour",
    ),
    "with_pin": ("PIN", "code"),
    "pin_wrong": ("wrong PIN: try again", "mauvais code : réessayez"),
    "field_variant": ("variant {name}", "variante {name}"),
    "on": ("on", "oui"),
    "off": ("off", "non"),
    "full": ("full", "complète"),
    # --- people's pace: what the footer and the hand line say can be done now ---------------------
}


def say(lang: str, key: str, **fields: object) -> str:
    """The text for ``key`` in ``lang`` (English if unknown), with ``fields`` filled in."""
    return say_from(CATALOGUE, lang, key, **fields)


def say_from(catalogue: Mapping[str, tuple[str, str]], lang: str, key: str, **fields: object) -> str:
    """``say`` from another screen's ``catalogue`` (key -> (English, French))."""
    english, french = catalogue[key]
    text = french if lang == "fr" else english
    return text.format(**fields) if fields else text


def packed(words: list[str], width: int) -> list[str]:
    """``words`` on lines of at most ``width``, two spaces apart (a longer word alone on its line),
    never split."""
    lines: list[str] = []
    for word in words:
        if lines and len(lines[-1]) + 2 + len(word) <= width:
            lines[-1] += "  " + word
        else:
            lines.append(word)
    return lines


def flowed(fragments: StyleAndTextTuples, width: int) -> StyleAndTextTuples:
    """``fragments`` with each of their lines longer than ``width`` wrapped between words, never inside
    one (a window's own wrapping cuts words: ``ta│ken``). Lines built of several fragments are each
    fragment's business."""
    return [
        (
            style,
            "\n".join(
                line if len(line) <= width else "\n".join(textwrap.wrap(line, width))
                for line in text.split("\n")
            ),
        )
        for style, text, *_rest in fragments
    ]


def as_argument(text: str) -> str:
    """``text`` as a person would type it in a shell command: in double quotes when it holds anything
    but letters, digits and ``.:-_``."""
    plain = text and all(character.isalnum() or character in ".:-_" for character in text)
    return text if plain else '"' + text.replace('"', '\\"') + '"'


def is_yes(lang: str, key: str) -> bool:
    """Whether ``key`` answers yes to a question asked in ``lang`` (y, and o for « oui »)."""
    return key.lower() in (("o", "y") if lang == "fr" else ("y",))
