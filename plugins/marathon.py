"""RULES 2.6 ``marathon``: the round goes on after each slap window, until everyone has shown a combo
or ``marathon_max_slaps`` windows were played (default N-1).

Owns when a marathon round ends and who may instigate. After a window is judged and its losers have
drawn, passing resumes where it stopped. A seat whose slap opened a valid window keeps its combo and
keeps passing, but is barred from opening another window this round (``KiloTable.barred``, which the
base game enforces and its bots respect). The table sees a combo only when a hand is shown, so "every
player holds a combo" is known when every seat has instigated a valid slap this round.
"""

from __future__ import annotations

from kdm.hookspecs import hookimpl
from kdm.options import OptionWords, TableOption
from kdm.plugins.kilo import rules as kilo
from kdm.state import TableState

NAME = "marathon"
KDM_REQUIRES = ("kilo",)  # a variant of the base game
KDM_MODULES = ("kdm.plugins.marathon_screen",)
#: The word for the default of ``marathon_max_slaps``: one window fewer than there are players.
PLAYERS_MINUS_ONE = "n-1"


@hookimpl
def kdm_table_options() -> list[TableOption]:
    return [
        TableOption("marathon_max_slaps", int, PLAYERS_MINUS_ONE,
                    "a marathon round ends after this many slap windows ('n-1': one fewer than players)",
                    minimum=1, maximum=1000, words=(PLAYERS_MINUS_ONE,),
                    french=OptionWords("tapes du marathon",
                                       "une manche marathon finit après tant de fenêtres de tapes"
                                       " (« n-1 » : un de moins que de joueurs)")),
    ]  # fmt: skip


def max_windows(state: TableState) -> int:
    """How many windows a round may have at this table."""
    limit = state.options["marathon_max_slaps"]
    return state.players - 1 if limit == PLAYERS_MINUS_ONE else int(limit)


@hookimpl
def kdm_window_judged(state: TableState, window: kilo.Window, valid: bool, losers: list[int]) -> None:
    data = kilo.table(state)
    first = data.ordered[0][0]
    if valid and first not in data.barred:
        data.barred.append(first)


@hookimpl
def kdm_round_over(state: TableState) -> bool:
    data = kilo.table(state)
    return data.windows >= max_windows(state) or len(data.barred) == state.players


#: What a player reads of this rule on the table's rules screen (``kdm_rules_text``).
RULES_TEXT = {
    "en": """Marathon
A slap does not end the round: once its losers have drawn, passing goes on. Whoever started a valid slap
keeps passing from 5 cards and may not start another. The round ends when everyone has started a valid
slap, or after one window fewer than the players (option marathon_max_slaps).""",
    "fr": """Marathon
Une tape ne finit pas la manche : une fois que les perdants ont pioché, on continue de passer. Qui a
lancé une tape valable continue de passer à 5 cartes et ne peut plus en lancer. La manche finit quand
chacun a lancé une tape valable, ou après autant de tapes que de joueurs moins un (option
marathon_max_slaps).""",
}


@hookimpl
def kdm_rules_text(lang: str) -> str:
    return RULES_TEXT.get(lang, RULES_TEXT["en"])
