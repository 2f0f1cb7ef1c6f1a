"""Light aces, a house rule for kdm: an ace drawn weighs ``ace_kilos`` kilos (default 0), not 100.

The table chooses the weight (``--option ace_kilos=3``); every other card keeps the weight the table
gives it, the base game's or, with the ``jokers`` variant, a joker's.
"""

from __future__ import annotations

from typing import Any

from kdm.cards import rank_of
from kdm.hookspecs import hookimpl
from kdm.options import TableOption

#: A house rule of the base game: a table that picks it plays Kilo de merde (and ``kdm_card_kilos`` is
#: one of the hooks the base game adds).
KDM_REQUIRES = ("kilo",)


@hookimpl
def kdm_table_options() -> list[TableOption]:
    return [TableOption("ace_kilos", int, 0, "what an ace weighs (100 in the base game)", minimum=0)]


@hookimpl
def kdm_card_kilos(card: str, options: dict[str, Any]) -> int | None:
    # kdm registers third-party plugins after the base game and pluggy asks the latest first, so this
    # answer wins for aces; None leaves every other card to the plugins registered before.
    return int(options["ace_kilos"]) if rank_of(card) == "A" else None
