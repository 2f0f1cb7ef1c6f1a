"""What Snap's tests share: a scripted Snap table (``kdm.testing.ScriptedTable``: a real engine whose
hidden cards a test chooses) and the moves of its players."""

from __future__ import annotations

from typing import Any

from kdm_snap.rules import CENTRE, pile_zone, snap

from kdm.effects import Effect
from kdm.testing import ScriptedTable


def snap_table(players: int = 3, **options: Any) -> ScriptedTable:
    """A Snap table, dealt; every option a test does not give is the game's default, except that a
    test's slaps come as quick as it says (no minimum reaction)."""
    table = ScriptedTable(players, {"min_reaction_ms": 0, **options}, variants=["snap"])
    table.start()
    return table


def top(table: ScriptedTable, seat: int) -> int:
    """The token on top of ``seat``'s pile (the next it turns)."""
    tokens: list[int] = table.state.zones[pile_zone(seat)]
    return tokens[-1]


def flip(table: ScriptedTable, seat: int) -> list[Effect]:
    """``seat`` turns its card; the table turns it up (the duty it owes, fulfilled by ``settle``)."""
    return table.event("snap_flip", seat=seat)


def slap(table: ScriptedTable, seat: int, rt: float, trigger: int | None = None) -> list[Effect]:
    """``seat`` slaps ``rt`` ms after the top card showed (naming it, unless ``trigger`` says)."""
    named = snap(table.state).top_seq if trigger is None else trigger
    return table.event("snap", seat=seat, t_sync=0.0, trigger=named, rt=rt)


def centre(table: ScriptedTable) -> list[str]:
    """The centre's faces known to the deck, bottom first."""
    return [table.deck.faces[t] for t in table.state.zones[CENTRE]]


def pile_size(table: ScriptedTable, seat: int) -> int:
    return len(table.state.zones[pile_zone(seat)])
