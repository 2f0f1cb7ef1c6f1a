"""The words of Snap's table screen, in English and French (key → (English, French)): its
``ScreenPart.words``, looked up after the table screen's own, so every key here starts with ``snap_``.
"""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # --- panels -----------------------------------------------------------------------------------
    "snap_title": ("Snap", "Snap"),
    "snap_turns": ("card {turns} of {most}", "carte {turns} sur {most}"),
    "snap_centre_count": ("centre {cards}", "centre {cards}"),
    "snap_columns": ("    #  player         pile", "    #  joueur         tas"),
    "snap_out": ("out", "hors jeu"),
    "snap_centre": ("Centre pile: {cards} cards", "Tas du centre : {cards} cartes"),
    "snap_centre_one": ("Centre pile: 1 card", "Tas du centre : 1 carte"),
    "snap_centre_empty": ("The centre pile is empty", "Le tas du centre est vide"),
    "snap_face_down": ("(face down)", "(face cachée)"),
    "snap_banner": ("✋ {name}: Snap!", "✋ {name} : Snap !"),
    "snap_slapped_so_far": ("slapped: {names}", "ont tapé : {names}"),
    "snap_pair_result": ("{name} was quickest: {taken} cards", "{name}, le plus rapide : {taken} cartes"),
    "snap_false_result": ("no pair! {names}: a card under", "pas de paire ! {names} : une carte dessous"),
    "snap_order": ("order:", "ordre :"),
    "snap_last_chance": (
        "the last card is turned: a last chance to snap",
        "la dernière carte est retournée : dernière chance de taper",
    ),
    "snap_pile": ("Your pile", "Votre tas"),
    "snap_cards": ("{cards} cards face down", "{cards} cartes face cachée"),
    "snap_card": ("{cards} card face down", "{cards} carte face cachée"),
    "snap_your_turn": ("your turn: Enter turns your card", "à vous : Entrée retourne votre carte"),
    "snap_turn_of": ("{name} turns next", "{name} retourne ensuite"),
    "snap_watch_pairs": (
        "Space when the top two have one rank",
        "Espace si les deux du dessus vont ensemble",
    ),
    "snap_you_slapped": ("you slapped: wait for the result", "vous avez tapé : attendez le résultat"),
    "snap_ranking_cards": ("{cards} cards", "{cards} cartes"),
    "snap_ranking_card": ("{cards} card", "{cards} carte"),
    # --- feedback ---------------------------------------------------------------------------------
    "snap_not_your_turn": ("it is {name}'s turn to turn a card", "c'est à {name} de retourner une carte"),
    "snap_you_are_out": ("you are out of the game", "vous êtes hors jeu"),
    "snap_wait_window": ("a slap is being judged: wait", "une tape est jugée : attendez"),
    "snap_no_turns": ("every card of the game is turned", "toutes les cartes de la partie sont retournées"),
    "snap_flip_sent": ("turning your card…", "vous retournez votre carte…"),
    "snap_nothing_to_slap": ("nothing to slap now", "rien à taper maintenant"),
    "snap_already_slapped": ("you have slapped this card already", "vous avez déjà tapé cette carte"),
    "snap_not_shown": ("that card is not on your screen yet", "cette carte n'est pas encore à l'écran"),
    "snap_slap_sent": ("Snap!", "Snap !"),
    # --- footer and help --------------------------------------------------------------------------
    "snap_hint_turn": ("Enter turn card", "Entrée retourner"),
    "snap_hint_slap": ("Space Snap!", "Espace Snap !"),
    "snap_help": (
        "Enter or t   turn the top card of your pile onto the centre, on your turn\n"
        "Space        Snap! slap the centre when its top two cards have one rank\n",
        "Entrée ou t  retourner votre carte du dessus sur le centre, à votre tour\n"
        "Espace       Snap ! taper quand les deux cartes du dessus ont un rang\n",
    ),
}
