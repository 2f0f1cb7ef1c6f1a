"""RULES 2.6 the ``classic`` preset (seed 001): ``marathon`` + ``direction=left`` + ``flush_to=shuffle``.

Owns nothing but a choice of options: it brings ``marathon`` to the table (``KDM_REQUIRES``) and sets
the two options' values unless the table is given others.
"""

from __future__ import annotations

from typing import Any

from kdm.hookspecs import hookimpl

NAME = "classic"
KDM_REQUIRES = ("kilo", "marathon")


@hookimpl
def kdm_option_defaults(players: int) -> dict[str, Any]:
    return {"direction": "left", "flush_to": "shuffle"}


#: What a player reads of this rule on the table's rules screen (``kdm_rules_text``).
RULES_TEXT = {
    "en": """Classic
The rules of the short sheet: Marathon, passing always to the left, and a 7's flush shuffled back into
the pile.""",
    "fr": """Classique
Les règles de la fiche courte : Marathon, on passe toujours à gauche, et la chasse d'un 7 est remélangée
dans le tas.""",
}


@hookimpl
def kdm_rules_text(lang: str) -> str:
    return RULES_TEXT.get(lang, RULES_TEXT["en"])
