"""The base game's table screen's state: what a Kilo de merde player chooses, slaps and sees (RULES 1).

Pure logic, no prompt_toolkit, beside the table screen's ``TableScreen`` (which keeps the log, the
message line, names, who is lost, chat, quitting, help and scores for every game): ``KiloPlay`` reads
the seat's ``KiloView`` (``view.rules["kilo"]``) and holds what is the base game's own at the keyboard
and on the table panel: the chosen card and the cards new to the hand, the last slap or feint shown
big, the judged window's result, the queens' call. Its key methods follow ``TableScreen``'s contract:
True when an event was proposed (its commit redraws), False when the player was told why not. Slaps
and feints are stamped as the slap timing contract says (DESIGN 5.6): ``t_sync`` on the agreed clock,
``trigger``/``rt`` from the moment the trigger was painted on this screen.

``KiloPlay`` is also the ``Screen`` (``kdm.tui.extension``) the base game's variants' screen parts are
given: their keys, lines and ``follow`` see and change the base game's screen through it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kdm.cards import pretty
from kdm.effects import Effect
from kdm.engine import SeatView
from kdm.events import Event
from kdm.notices import Applied, Notice, Rejected
from kdm.peer import Peer
from kdm.plugins.kilo.calls import QUEENS_CALL
from kdm.plugins.kilo.events import Feint, Pass, Slap
from kdm.plugins.kilo.rules import NAME, KiloView
from kdm.tui.extension import ScreenPart
from kdm.tui.state import TableScreen


@dataclass(frozen=True)
class Flash:
    """The latest slap or feint, shown big until the next one."""

    kind: str  # "slap", "feint", or a variant's (``ScreenPart.flashes``: "grab" with spoons)
    seat: int
    seq: int
    opened: bool = False


@dataclass
class WindowResult:
    """A judged slap window: who slapped when, who was first, and who drew what."""

    seq: int
    round: int
    valid: bool
    first: int
    order: list[tuple[int, float]]
    losers: list[int]
    #: Why it was judged so (``Judged.reason``): what the screen says under the verdict.
    reason: str = ""
    shown: list[str] | None = None
    draws: list[tuple[int, str, bool]] = field(default_factory=list)


def kilo_part(view: SeatView | None) -> KiloView | None:
    """The base game's part of a seat view, if it has one."""
    part: Any = view.rules.get(NAME) if view is not None else None
    return part if isinstance(part, KiloView) else None


class KiloPlay:
    """The base game's part of ``screen``: active while the seat's view has the base game's part."""

    def __init__(self, screen: TableScreen) -> None:
        self.screen = screen
        #: The index of the hand card the player has chosen (arrows, digits).
        self.selected = 0
        #: The hand's cards that are new to it (tokens), marked until this seat passes.
        self.fresh: set[int] = set()
        #: What the table last called out loud (the queens' call), shown on the table panel.
        self.call = ""
        self.flash: Flash | None = None
        self.result: WindowResult | None = None
        self._hand: tuple[int, ...] = ()
        self._passing: int | None = None  # token of our pass until it is applied or refused
        self._slapping = False
        self._shown_hand: list[str] | None = None  # the first slapper's hand, until the window is judged

    # --- the Screen a variant's part is given -----------------------------------------------------

    @property
    def lang(self) -> str:
        return self.screen.lang

    @property
    def message(self) -> str:
        return self.screen.message

    @message.setter
    def message(self, text: str) -> None:
        self.screen.message = text

    @property
    def seat(self) -> int | None:
        return self.screen.seat

    @property
    def parts(self) -> list[ScreenPart]:
        return self.screen.parts

    @property
    def peer(self) -> Peer:
        return self.screen.peer

    def view(self) -> SeatView | None:
        return self.screen.view()

    def say(self, key: str, **fields: object) -> str:
        return self.screen.say(key, **fields)

    def tell(self, key: str, **fields: object) -> bool:
        return self.screen.tell(key, **fields)

    def name(self, seat: int, seq: int | None = None) -> str:
        return self.screen.name(seat, seq)

    def act(self, event: Event) -> bool:
        """Send ``event`` as the table's variants want it (``ScreenPart.sends``: at spoons, a slap is a
        grab); True, as a key handler that sent returns."""
        for part in self.parts:
            if part.sends is not None:
                event = part.sends(event)
        return self.screen.act(event)

    def due_in_ms(self, kind: str) -> float | None:
        return self.screen.due_in_ms(kind)

    # --- what the layout reads --------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return kilo_part(self.screen.view()) is not None

    # --- following the table ----------------------------------------------------------------------

    def on_notice(self, notice: Notice) -> None:
        """One notice from the peer, after the table screen followed it."""
        if isinstance(notice, Rejected) and notice.node == self.screen.peer.me.identity:
            self._passing, self._slapping = None, False
        elif isinstance(notice, Applied):
            for effect in notice.effects:
                self._follow(effect, notice.seq)
                for part in self.parts:
                    if part.follow is not None:
                        part.follow(self, effect)
        self._track_hand()

    def _follow(self, effect: Effect, seq: int) -> None:
        kind, me = effect["kind"], self.screen.peer.seat
        flash = next((part.flashes[kind] for part in self.parts if kind in part.flashes), None)
        if flash is not None:
            self.flash = Flash(flash, effect["seat"], effect["seq"], bool(effect["opened"]))
            if effect["opened"]:
                self.result = None
            if effect["seat"] == me:
                self._slapping = False
        elif kind == "feinted":
            self.flash = Flash("feint", effect["seat"], effect["seq"])
        elif kind == "judged":
            order = [(int(s), float(t)) for s, t in effect["order"]]
            valid, first, losers = bool(effect["valid"]), int(effect["first"]), list(effect["losers"])
            reason = str(effect.get("reason", ""))
            self.result = WindowResult(seq, self._round(), valid, first, order, losers, reason)
            self.result.shown, self._shown_hand = self._shown_hand, None
        elif kind == "hand_shown":
            self._shown_hand = [pretty(card, self.lang) for card in effect["cards"]]
        elif kind == "drew" and self.result is not None:
            self.result.draws.append((effect["seat"], effect["card"], bool(effect["flush"])))
        elif kind == "passed" and effect["seat"] == me:
            self._passing, self.message, self.fresh = None, "", set()
        elif kind == "passed" and effect["to"] == me:
            self.fresh = {effect["token"]}
        elif kind == "passing_started":
            self.call = QUEENS_CALL
        elif kind == "dealt":
            self.flash, self.fresh, self.call = None, set(), ""

    def _round(self) -> int:
        engine = self.screen.peer.record.engine
        return engine.state.round if engine is not None else 0

    def _track_hand(self) -> None:
        view = self.view()
        tokens = tuple(token for token, _face in view.hand) if view is not None else ()
        if tokens != self._hand:
            self.fresh &= set(tokens)
            self._hand = tokens
        self.selected = max(0, min(self.selected, len(tokens) - 1))

    # --- the player's keys ------------------------------------------------------------------------

    def choose(self, index: int) -> None:
        view = self.view()
        if view is not None and 0 <= index < len(view.hand):
            self.selected = index
            self.screen.on_change()

    def move(self, step: int) -> None:
        view = self.view()
        if view is not None and view.hand:
            self.selected = (self.selected + step) % len(view.hand)
            self.screen.on_change()

    def pass_chosen(self) -> bool:
        """Pass the chosen card, if it is this seat's turn and no pass of ours is on its way.

        Like ``slap`` and ``feint``: True when an event was proposed (its commit will redraw the screen),
        False when the player was told why not (the screen must redraw now)."""
        view, seat = self.view(), self.seat
        if view is None or seat is None:
            return self.tell("not_seated")
        if view.phase != "passing":
            return self.tell("no_passing")
        if view.turn != seat:
            return self.tell("not_your_turn")
        kilo = kilo_part(view)
        if kilo is not None and kilo.holding:
            return self.tell("holding")  # the checkpoint holds for people: the table would refuse it
        if self._passing is not None or not view.hand:
            return False
        token, face = view.hand[self.selected]
        self._passing = token
        self.message = self.say("pass_sent", card=pretty(face, self.lang) if face else "?")
        return self.act(Pass(seat=seat, token=token))

    def slap(self, pressed_ms: float) -> bool:
        """Slap the pile (or grab a spoon); ``pressed_ms`` is when the key was read, on the screen's clock."""
        view, seat = self.view(), self.seat
        if view is None or seat is None:
            return self.tell("not_seated")
        kilo = kilo_part(view)
        if kilo is None or view.phase not in ("passing", "window"):
            return self.tell("no_slapping")
        if self._slapping or (kilo.window_open and seat in kilo.slapped):
            return self.tell("already_slapped")
        if not kilo.window_open and seat in kilo.barred:
            return self.tell("barred")
        if not self.screen.clock_ready():
            return False
        self._slapping = True
        trigger, rt = self._trigger(kilo, seat, pressed_ms)
        if trigger is None and kilo.window_open:
            # Not painted yet, but pressed for this window all the same: naming it (and the round)
            # makes a press that arrives after the window closed void, not a false slap of the next.
            trigger = kilo.window_opened_by
        t_sync = self.screen.on_agreed_clock(pressed_ms)
        return self.act(Slap(seat=seat, t_sync=t_sync, trigger=trigger, rt=rt, round=view.round))

    def feint(self, pressed_ms: float) -> bool:
        """Feint: the slapping gesture without the slap, timed like one."""
        view, seat = self.view(), self.seat
        if view is None or seat is None:
            return self.tell("not_seated")
        kilo = kilo_part(view)
        if kilo is None or view.phase not in ("passing", "window"):
            return self.tell("no_feinting")
        if not self.screen.clock_ready():
            return False
        trigger, rt = self._trigger(kilo, seat, pressed_ms)
        t_sync = self.screen.on_agreed_clock(pressed_ms)
        return self.act(Feint(seat=seat, t_sync=t_sync, trigger=trigger, rt=rt))

    def _trigger(self, kilo: KiloView, seat: int, pressed_ms: float) -> tuple[int | None, float | None]:
        """The slap or feint of this window the player saw before pressing (the window's opener, or the
        last feint when no window is open), and the time from its paint to the press."""
        if kilo.window_open:
            trigger = kilo.window_opened_by
        elif kilo.last_feint_seat != seat:
            trigger = kilo.last_feint
        else:
            trigger = None  # one's own feint is no surprise
        if trigger is None or trigger not in self.screen.painted:
            return None, None
        return trigger, self.screen.reaction_ms(trigger, pressed_ms)
