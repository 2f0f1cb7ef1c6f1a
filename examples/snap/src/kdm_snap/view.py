"""What a seat sees of Snap: every pile's size, the centre's top cards, whose turn, the open window.

All of it is public (nobody sees the face of a card face down, their own included), so one view is
built per event and shared by every seat (``state.memo``). Bots decide from it alone, and so does the
screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kdm.deck import Knowledge
from kdm.hookspecs import hookimpl
from kdm.state import TableState
from kdm_snap.rules import CENTRE, NAME, is_pair, pile, snap

#: How many of the centre's top cards a view shows (the top two decide a pair).
SHOWN = 3


@dataclass(slots=True, frozen=True)
class SnapView:
    """Snap's part of a seat view. ``centre`` is the faces of its top cards, the top last;
    ``top_seq`` the event that turned up the top one (what a slap names as its trigger)."""

    piles: tuple[int, ...]
    centre: tuple[str, ...]
    centre_size: int
    top_seq: int | None
    pair: bool
    window_open: bool
    #: Who has slapped the top card (each seat slaps a card once).
    slapped: tuple[int, ...]
    out: tuple[int, ...]
    turns: int
    max_turns: int


@hookimpl
def kdm_view(state: TableState, seat: int, knowledge: Knowledge) -> tuple[str, Any]:
    view = state.memo.get(NAME)
    if view is None:
        view = state.memo[NAME] = public_view(state)
    return NAME, view


def public_view(state: TableState) -> SnapView:
    data = snap(state)
    centre = state.zones.get(CENTRE, [])
    # The cards put under the centre for a false slap lie face down: only faces turned up are shown.
    shown = tuple(state.faces[t] for t in centre[len(centre) - min(data.face_up, SHOWN) :])
    window = data.window
    return SnapView(
        piles=tuple(len(pile(state, seat)) if state.zones else 0 for seat in range(state.players)),
        centre=shown,
        centre_size=len(centre),
        top_seq=data.top_seq,
        pair=is_pair(state),
        window_open=window is not None,
        slapped=tuple(data.slapped),
        out=tuple(data.out),
        turns=data.turns,
        max_turns=int(state.options["max_turns"]),
    )
