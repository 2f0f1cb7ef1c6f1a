"""RULES 2.4 ``jokers``: two jokers join the pile; a joker drawn weighs ``joker_kilos`` (default 1000).

Owns the jokers' place in the deck (a ``kdm_deck`` wrapper, so it stacks on whatever deck the table
has) and their weight. Nothing else changes: a joker is drawn, counted and flushed like any card.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from kdm.cards import JOKER
from kdm.hookspecs import hookimpl
from kdm.options import OptionWords, TableOption

NAME = "jokers"
KDM_REQUIRES = ("kilo",)  # a variant of the base game
JOKERS = 2


@hookimpl
def kdm_table_options() -> list[TableOption]:
    return [
        TableOption("joker_kilos", int, 1000, "what a joker weighs (the other value in the rule text is 50)",
                    minimum=0, maximum=100000,
                    french=OptionWords("kilos du joker",
                                       "ce que pèse un joker (l'autre valeur du texte des règles est 50)")),
    ]  # fmt: skip


@hookimpl(wrapper=True)
def kdm_deck(
    players: int, options: dict[str, Any]
) -> Generator[None, tuple[list[str], list[str]], tuple[list[str], list[str]]]:
    # A wrapper, not an answer: the jokers go into whatever pile the other plugins make.
    dealt, pile = yield
    return dealt, [*pile, *[JOKER] * JOKERS]


@hookimpl
def kdm_card_kilos(card: str, options: dict[str, Any]) -> int | None:
    return int(options["joker_kilos"]) if card == JOKER else None


#: What a player reads of this rule on the table's rules screen (``kdm_rules_text``).
RULES_TEXT = {
    "en": """Jokers
Two jokers are added to the pile. A joker drawn weighs 1000 kilos (option joker_kilos).""",
    "fr": """Jokers
Deux jokers sont ajoutés au tas. Un joker pioché pèse 1000 kilos (option joker_kilos).""",
}


@hookimpl
def kdm_rules_text(lang: str) -> str:
    return RULES_TEXT.get(lang, RULES_TEXT["en"])
