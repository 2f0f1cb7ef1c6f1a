"""Snap's table screen's state: what a Snap player sees and does between key presses.

Pure logic, no prompt_toolkit, beside the table screen's ``TableScreen`` (which keeps the log, the
message line, names, who is lost, chat, quitting, help and scores for every game): ``SnapPlay`` reads
the seat's ``SnapView`` (``view.rules["snap"]``) and holds what is Snap's own: the latest slap, shown
big, and the latest window's result. Its key methods follow ``TableScreen``'s contract: True when an
event was proposed (its commit redraws), False when the player was told why not. A slap is stamped as
the slap timing contract says (DESIGN 5.6): ``t_sync`` on the agreed clock, ``trigger`` the turn that
put the centre's top card there and ``rt`` the time from the moment it was painted on this screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kdm.engine import SeatView
from kdm.notices import Applied, Notice, Rejected
from kdm.tui.state import TableScreen
from kdm_snap.events import Flip, Slap
from kdm_snap.rules import NAME
from kdm_snap.view import SnapView

#: A window's result stays on the table panel until this many more cards are turned (or the next slap):
#: by then the centre's top two cards are new, and the result old news (the log keeps it).
RESULT_TURNS = 2


@dataclass(frozen=True)
class Flash:
    """The latest slap, shown big until the window is judged."""

    seat: int
    seq: int
    opened: bool


@dataclass(frozen=True)
class Result:
    """A judged slap window, as its ``slap_judged`` effect says it."""

    seq: int
    pair: bool
    first: int
    order: tuple[tuple[int, float], ...]
    taken: int
    paid: tuple[int, ...]


def snap_part(view: SeatView | None) -> SnapView | None:
    """Snap's part of a seat view, if it has one."""
    part: Any = view.rules.get(NAME) if view is not None else None
    return part if isinstance(part, SnapView) else None


class SnapPlay:
    """Snap's part of ``screen``: active while the seat's view has Snap's part."""

    def __init__(self, screen: TableScreen) -> None:
        self.screen = screen
        self.flash: Flash | None = None
        self.result: Result | None = None
        self._turned_since = 0
        #: A flip or a slap of ours on its way (until it is applied or refused): not sent twice.
        self._flipping = False
        self._slapping = False

    @property
    def active(self) -> bool:
        return snap_part(self.screen.view()) is not None

    def say(self, key: str, **fields: object) -> str:
        return self.screen.say(key, **fields)

    # --- following the table ----------------------------------------------------------------------

    def on_notice(self, notice: Notice) -> None:
        """One notice from the peer, after the table screen followed it."""
        me = self.screen.peer.seat
        if isinstance(notice, Rejected) and notice.node == self.screen.peer.me.identity:
            self._flipping = self._slapping = False
            return
        if not isinstance(notice, Applied):
            return
        for effect in notice.effects:
            kind = effect["kind"]
            if kind == "slapped":
                self.flash = Flash(int(effect["seat"]), int(effect["seq"]), bool(effect["opened"]))
                if effect["seat"] == me:
                    self._slapping = False
                    self.screen.message = ""
            elif kind == "slap_judged":
                order = tuple((int(seat), float(rt)) for seat, rt in effect["order"])
                self.result = Result(
                    notice.seq, bool(effect["pair"]), int(effect["first"]), order, int(effect["taken"]),
                    tuple(effect["paid"]),
                )  # fmt: skip
                self.flash = None
                self._turned_since = 0
            elif kind == "turned" and self.result is not None:
                self._turned_since += 1
                if self._turned_since >= RESULT_TURNS:
                    self.result = None
            elif kind == "flipping" and effect["seat"] == me:
                self._flipping = False
                self.screen.message = ""

    # --- the player's keys ------------------------------------------------------------------------

    def flip(self) -> bool:
        """Turn the top card of this seat's pile, if it is this seat's turn."""
        view, seat = self.screen.view(), self.screen.seat
        part = snap_part(view)
        if view is None or seat is None or part is None:
            return self.screen.tell("not_seated")
        if seat in part.out:
            return self.screen.tell("snap_you_are_out")
        if view.phase == "slapping":
            return self.screen.tell("snap_wait_window")
        if view.phase != "playing" or view.turn != seat:
            if view.turn is None:
                return self.screen.tell("snap_no_turns")
            return self.screen.tell("snap_not_your_turn", name=self.screen.name(view.turn))
        if self._flipping:
            return False
        self._flipping = True
        self.screen.message = self.say("snap_flip_sent")
        return self.screen.act(Flip(seat=seat))

    def slap(self, pressed_ms: float) -> bool:
        """Slap the centre; ``pressed_ms`` is when the key was read, on the screen's clock."""
        view, seat = self.screen.view(), self.screen.seat
        part = snap_part(view)
        if view is None or seat is None or part is None:
            return self.screen.tell("not_seated")
        if seat in part.out:
            return self.screen.tell("snap_you_are_out")
        if view.phase not in ("playing", "slapping") or part.top_seq is None:
            return self.screen.tell("snap_nothing_to_slap")
        if self._slapping or seat in part.slapped:
            return self.screen.tell("snap_already_slapped")
        trigger = part.top_seq
        if trigger not in self.screen.painted:
            return self.screen.tell("snap_not_shown")  # a card not on screen yet cannot be answered
        if not self.screen.clock_ready():
            return False
        rt = self.screen.reaction_ms(trigger, pressed_ms)
        self._slapping = True
        self.screen.message = self.say("snap_slap_sent")
        t_sync = self.screen.on_agreed_clock(pressed_ms)
        return self.screen.act(Slap(seat=seat, t_sync=t_sync, trigger=trigger, rt=rt))
