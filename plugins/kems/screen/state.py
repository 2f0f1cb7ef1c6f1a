"""The Kem's table screen's state: what a Kem's player marks, chooses and sends (RULES 3).

Pure logic, no prompt_toolkit, beside the table screen's ``TableScreen`` (which keeps the log, the
message line, who is lost, quitting, help and scores for every game): ``KemsPlay`` reads the seat's
``KemsView`` (``view.rules["kems"]``) and holds what is Kem's own at the keyboard: the hand and table
cards marked for an exchange, the gesture menu, the opponent being chosen for a Contre, the sign being
chosen. Its key methods follow ``TableScreen``'s contract: True when an event was proposed (its commit
redraws), False when the player was told why not. Gestures and calls are stamped like slaps: ``t_sync``
on the agreed clock, ``trigger``/``rt`` from the paint of the latest gesture or call the press answers
(the partner's for Kem's, the accused's for a Contre). The team's signs go to the partner in a
``PrivateNote`` sent straight to their process (``Peer.send_note``), never through the log.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import Any

from kdm.cards import rank_of
from kdm.deck import PrivateNote
from kdm.engine import SeatView
from kdm.events import ShowHand
from kdm.notices import Applied, Notice, Said
from kdm.plugins.kems.events import Call, Exchange, Gesture, ShowTwo, Sweep, SweepAnswer, TeamReady
from kdm.plugins.kems.rules import GESTURES, HAND, NAME, TABLE_CARDS, is_four_of_a_kind, note_digest, team_of
from kdm.plugins.kems.screen.text import say
from kdm.plugins.kems.text import CALL_NAMES, gesture_name
from kdm.plugins.kems.view import SALT_SIZE, KemsView, Signs
from kdm.tui.panels import card_fragment
from kdm.tui.state import TableScreen

#: How many signs a team may agree with ``signs=multi``.
MOST_SIGNS = 3
#: The fields of the sign chooser: the signs, then the pre-sign.
SIGN_FIELDS = ("signs", "presign")
#: The hand's cards are marked with the first digits, the table's with the next ones.
HAND_KEYS = "".join(str(1 + index) for index in range(HAND))
TABLE_KEYS = "".join(str(HAND + 1 + index) for index in range(TABLE_CARDS))
#: Effects of this seat's own actions: once one is applied, the message saying it was sent goes.
OWN_ACTIONS = frozenset({"exchanged", "gestured", "called", "sweep_asked", "sweep_answered"})
#: The gesture menu and the sign chooser list the catalogue under these letters.
GESTURE_KEYS = "abcdefghijkl"[: len(GESTURES)]


#: How many chat lines the feed keeps (it shows fewer).
FEED_KEPT = 20


class KemsPlay:
    """The Kem's part of ``screen``: active while the seat's view has a Kem's part."""

    def __init__(self, screen: TableScreen) -> None:
        self.screen = screen
        #: Tokens marked for the next exchange: of the hand (to give) and of the table (to take).
        self.give: set[int] = set()
        self.take: set[int] = set()
        self.menu_open = False
        self.choosing_target = False
        self.signs_open = False
        self.sign_field = SIGN_FIELDS[0]
        self.draft_signs: list[str] = []
        self.draft_presign: str | None = None
        #: Whether the sign chooser was opened for this seat once (it opens by itself at the start).
        self.offered = False
        #: The calls of this deal: seq → seat (what a later press may react to, with the gestures).
        self.calls_seen: dict[int, int] = {}
        #: Chat lines said at the table: (seq they came after, seat, line), the latest ``FEED_KEPT``.
        self.said: list[tuple[int, int, str]] = []

    # --- what the layout reads --------------------------------------------------------------------

    def part(self) -> KemsView | None:
        view = self.screen.view()
        found: Any = view.rules.get(NAME) if view is not None else None
        return found if isinstance(found, KemsView) else None

    @property
    def active(self) -> bool:
        return self.part() is not None

    @property
    def modal(self) -> bool:
        """Whether a chooser holds the letters and digits (gesture menu, Contre's opponent, sign)."""
        return self.menu_open or self.choosing_target or self.signs_open

    def say(self, key: str, **fields: object) -> str:
        return say(self.screen.lang, key, **fields)

    def gesture(self, name: str) -> str:
        return gesture_name(name, self.screen.lang)

    def first_of_team(self, view: SeatView) -> bool:
        """RULES 3.2 as the bots play it: the team's first seat chooses the sign."""
        return view.seat < view.players // 2

    def opponents(self, view: SeatView) -> list[int]:
        mine = team_of(view.seat, view.players)
        return [seat for seat in range(view.players) if team_of(seat, view.players) != mine]

    def marked(self, view: SeatView, part: KemsView) -> tuple[list[int], list[int]]:
        """The marked cards still in the hand and on the table, in their order there."""
        give = [token for token, _face in view.hand if token in self.give]
        take = [token for token, _face in part.table if token in self.take]
        return give, take

    def asked_to_sweep(self) -> bool:
        """Whether this seat has a sweep question to answer."""
        view, part = self.screen.view(), self.part()
        if view is None or part is None or view.phase != "sweep":
            return False
        return view.seat != part.sweep_asker and view.seat not in part.sweep_accepted

    # --- following the table ----------------------------------------------------------------------

    def on_notice(self, notice: Notice) -> None:
        """One notice from the peer, after the table screen followed it."""
        if isinstance(notice, Said) and notice.seat is not None:  # shown in the feed, among the gestures
            engine = self.screen.peer.record.engine
            self.said.append((engine.state.seq if engine is not None else 0, notice.seat, notice.text))
            del self.said[:-FEED_KEPT]
        if isinstance(notice, Applied):
            for effect in notice.effects:
                if effect["kind"] == "called":
                    self.calls_seen[notice.seq] = effect["seat"]
                elif effect["kind"] == "dealt":
                    self.calls_seen.clear()
                if effect["kind"] in OWN_ACTIONS and effect["seat"] == self.screen.peer.seat:
                    self.screen.message = ""  # what we sent is done: the log and the panels say it now
                if (
                    effect["kind"] == "call_judged"
                    and effect["call"] == "contre"
                    and effect["target"] == self.screen.peer.seat
                ):
                    self._accused(int(effect["seat"]))
        if self.screen.over:
            self.menu_open = self.choosing_target = self.signs_open = False  # the ranking shows now
        view, part = self.screen.view(), self.part()
        if self.offered or view is None or part is None or self.screen.over:
            return
        self.offered = True
        if self.first_of_team(view) and not part.signs:
            self.open_signs()

    def _accused(self, caller: int) -> None:
        """RULES 3.5: a Contre names us. Holding four there is nothing to choose: the hand is shown at
        once. Otherwise we choose the two cards ``caller`` sees (marked, then Enter), before the table
        chooses for us."""
        view, seat = self.screen.view(), self.screen.peer.seat
        if view is None or seat is None:
            return
        held = [(token, face) for token, face in view.hand if face is not None]
        if len(held) == HAND and is_four_of_a_kind([face for _token, face in held]):
            tokens, cards = zip(*held, strict=True)
            self.screen.peer.act(ShowHand(seat=seat, tokens=tokens, cards=cards))
            return
        self.give.clear()
        self.take.clear()
        seconds = round(view.options["show_answer_ms"] / 1000)
        self.screen.message = self.say("choose_two", name=self.screen.name(caller), seconds=seconds)

    def show_two(self) -> bool:
        """RULES 3.5: show the two marked cards of our hand to the Contre's caller."""
        seat = self.screen.peer.seat
        if seat is None:
            return False
        if len(self.give) != 2 or self.take:
            return self.tell("mark_two")
        view = self.screen.view()
        faces = dict(view.hand) if view is not None else {}
        ranks = [rank_of(face) for face in (faces.get(token) for token in self.give) if face]
        if len(ranks) == 2 and ranks[0] == ranks[1]:
            return self.tell("two_ranks")  # RULES 3.5: the table would refuse two of one rank
        tokens = tuple(sorted(self.give))
        self.give.clear()
        self.screen.peer.act(ShowTwo(seat=seat, tokens=tokens))
        return True

    def accused(self) -> bool:
        """Whether a Contre against this seat waits for its two cards."""
        view, part = self.screen.view(), self.part()
        return (
            view is not None
            and part is not None
            and view.phase == "answering"
            and part.judged is not None
            and part.judged[2] == view.seat
        )

    # --- exchanges --------------------------------------------------------------------------------

    def mark_hand(self, index: int) -> None:
        """Mark (or unmark) the hand's card ``index`` to give: not one whose face this process has not
        read yet (``??``, a moment after a deal or an exchange), which it could neither show nor give."""
        view = self.screen.view()
        if view is None or not 0 <= index < len(view.hand):
            return
        token, face = view.hand[index]
        if face is None and token not in self.give:
            self.tell("card_unread", number=index + 1)
            return
        self._toggle(self.give, token)

    def mark_table(self, index: int) -> None:
        """Mark (or unmark) the table's card ``index`` to take."""
        part = self.part()
        if part is None or not 0 <= index < len(part.table):
            self.screen.message = self.say("no_table_card", number=index + HAND + 1)
            self.screen.on_change()
            return
        self._toggle(self.take, part.table[index][0])

    def _toggle(self, marks: set[int], token: int) -> None:
        marks.symmetric_difference_update({token})
        self.screen.message = ""
        self.screen.on_change()

    def clear_marks(self) -> None:
        self.give.clear()
        self.take.clear()
        self.screen.on_change()

    def exchange(self) -> bool:
        """RULES 3.4.2: give the marked hand cards for as many marked table cards."""
        if self.accused():
            return self.show_two()
        view, part, seat = self.screen.view(), self.part(), self.screen.peer.seat
        if view is None or part is None or seat is None:
            return self.tell("no_exchange")
        if view.phase == "refused" and part.refuser is not None and part.refuser != seat:
            return self.tell("refuser_first", name=self.screen.name(part.refuser))
        if view.phase not in ("hunt", "refused"):
            return self.tell("no_exchange")
        give, take = self.marked(view, part)
        if not give and not take:
            return self.tell("mark_first")
        if len(give) != len(take):
            return self.tell("same_count", give=len(give), take=len(take))
        given = [(index, face) for index, (token, face) in enumerate(view.hand) if token in give]
        cards = tuple(face for _index, face in given if face is not None)
        if len(cards) < len(given):  # marked, then no longer known: an exchange names each card it gives
            return self.tell("card_unread", number=next(i for i, face in given if face is None) + 1)
        table = dict(part.table)
        self.give.clear()
        self.take.clear()
        self.screen.message = self.say(
            "exchange_sent",
            give=pretty_cards(cards, self.screen.lang),
            take=pretty_cards((table[token] for token in take), self.screen.lang),
        )
        self.screen.peer.act(Exchange(seat=seat, give=tuple(give), cards=cards, take=tuple(take)))
        return True

    # --- gestures and calls -----------------------------------------------------------------------

    def open_menu(self) -> None:
        self.menu_open = True
        self.screen.on_change()

    def make_gesture(self, index: int, pressed_ms: float) -> bool:
        """Make gesture ``index`` of the catalogue, seen by everyone (RULES 3.2)."""
        self.menu_open = False
        view, part, seat = self.screen.view(), self.part(), self.screen.peer.seat
        if view is None or part is None or seat is None or not 0 <= index < len(GESTURES):
            self.screen.on_change()
            return False
        if not self.screen.clock_ready():
            return False
        others = [s for s in range(view.players) if s != seat]
        trigger, rt = self._trigger(part, others, pressed_ms)
        gesture = GESTURES[index]
        self.screen.message = self.say("gesture_sent", gesture=self.gesture(gesture))
        self.screen.peer.act(
            Gesture(
                seat=seat,
                t_sync=self.screen.on_agreed_clock(pressed_ms),
                trigger=trigger,
                rt=rt,
                gesture=gesture,
            )
        )
        return True

    def call(self, call: str, pressed_ms: float, target: int = -1) -> bool:
        """Call « Kem's ! » or « Double Kem's ! » (``target`` -1), or « Contre Kem's ! » on ``target``."""
        self.choosing_target = False
        view, part, seat = self.screen.view(), self.part(), self.screen.peer.seat
        refused = self._cannot_call(view, part, seat, call)
        if refused is not None:
            return self.tell(refused)
        assert view is not None and part is not None and seat is not None
        if call == "contre" and target not in self.opponents(view):
            return self.tell("not_opponent", seat=target)
        if not self.screen.clock_ready():
            return False
        answered = [part.partner] if call != "contre" else [target]
        trigger, rt = self._trigger(part, answered, pressed_ms)
        if trigger is None:  # not the partner's or the accused's: what was seen last, then
            others = [s for s in range(view.players) if s != seat]
            trigger, rt = self._trigger(part, others, pressed_ms)
        self.screen.message = self.say("call_sent", call=self.call_name(call, target))
        self.screen.peer.act(
            Call(
                seat=seat,
                t_sync=self.screen.on_agreed_clock(pressed_ms),
                trigger=trigger,
                rt=rt,
                call=call,
                target=target,
            )
        )
        return True

    def choose_target(self) -> bool:
        """« Contre Kem's ! »: first the opponent, chosen by their seat number."""
        view, part, seat = self.screen.view(), self.part(), self.screen.peer.seat
        refused = self._cannot_call(view, part, seat, "contre")
        if refused is not None:
            return self.tell(refused)
        self.choosing_target = True
        self.screen.on_change()
        return False

    def _cannot_call(
        self, view: SeatView | None, part: KemsView | None, seat: int | None, call: str
    ) -> str | None:
        """Why this seat may not make ``call`` now (a catalogue key), or None."""
        if view is None or part is None or seat is None or view.phase not in ("hunt", "calling"):
            return "no_calls"
        if any(caller == seat for caller, _call, _target in part.calls):
            return "already_called"
        if call == "contre" and seat in part.barred:
            return "barred"
        return None

    def call_name(self, call: str, target: int) -> str:
        """A call as the table hears it (a Contre names the accused)."""
        name = CALL_NAMES[call]
        if call == "contre":
            name += " (" + self.say("against", name=self.screen.name(target)) + ")"
        return name

    def _trigger(
        self, part: KemsView, seats: Iterable[int], pressed_ms: float
    ) -> tuple[int | None, float | None]:
        """The latest gesture or call of this deal by one of ``seats`` painted on this screen, and the
        time from its paint to the press (DESIGN 5.6)."""
        among = set(seats)
        seen = [seq for seat, _gesture, seq in part.gestures if seat in among and seq > part.deal_started]
        seen += [seq for seq, seat in self.calls_seen.items() if seat in among]
        painted = [seq for seq in seen if seq in self.screen.painted]
        if not painted:
            return None, None
        trigger = max(painted)
        return trigger, self.screen.reaction_ms(trigger, pressed_ms)

    # --- the sweep --------------------------------------------------------------------------------

    def ask_sweep(self) -> bool:
        """RULES 3.4.3: « Balayage ? », once nobody has exchanged for a while."""
        view, part, seat = self.screen.view(), self.part(), self.screen.peer.seat
        if view is None or part is None or seat is None or view.phase != "hunt" or not part.sweepable:
            return self.tell("not_sweepable")
        self.screen.message = self.say("sweep_sent")
        self.screen.peer.act(Sweep(seat=seat))
        return True

    def answer_sweep(self, accept: bool) -> bool:
        seat = self.screen.peer.seat
        if seat is None or not self.asked_to_sweep():
            return self.tell("not_asked")
        self.screen.message = self.say("answer_sent", answer=self.say("yes" if accept else "no"))
        self.screen.peer.act(SweepAnswer(seat=seat, accept=accept))
        return True

    # --- the team's secret sign -------------------------------------------------------------------

    def open_signs(self) -> None:
        """Open the sign chooser (the team's first seat), starting from what the team agreed."""
        view, part = self.screen.view(), self.part()
        if view is None or part is None:
            return
        if part.signs_closed:
            self.tell("signs_closed")
            return
        if not self.first_of_team(view):
            self.tell("not_first", name=self.screen.name(part.partner))
            return
        self.draft_signs, self.draft_presign = list(part.signs), part.presign
        self.sign_field = SIGN_FIELDS[0]
        self.signs_open, self.menu_open, self.choosing_target = True, False, False
        self.screen.on_change()

    def multi(self) -> bool:
        view = self.screen.view()
        return view is not None and view.options.get("signs") == "multi"

    def pick_sign(self, index: int) -> None:
        """A letter in the sign chooser: choose (or drop) that gesture as a sign, or as the pre-sign."""
        if not 0 <= index < len(GESTURES):
            return
        gesture = GESTURES[index]
        self.screen.message = ""
        if self.sign_field == "presign":
            if gesture in self.draft_signs:
                self.tell("presign_is_sign")
                return
            self.draft_presign = None if self.draft_presign == gesture else gesture
        elif gesture in self.draft_signs:
            self.draft_signs.remove(gesture)
        elif not self.multi():
            self.draft_signs = [gesture]
        elif len(self.draft_signs) >= MOST_SIGNS:
            self.tell("too_many_signs", most=MOST_SIGNS)
            return
        else:
            self.draft_signs.append(gesture)
        if self.draft_presign in self.draft_signs:
            self.draft_presign = None
        self.screen.on_change()

    def next_sign_field(self) -> None:
        self.sign_field = SIGN_FIELDS[(SIGN_FIELDS.index(self.sign_field) + 1) % len(SIGN_FIELDS)]
        self.screen.on_change()

    def send_signs(self) -> bool:
        """Tell the partner the team's signs, privately (a ``PrivateNote``, never in the log)."""
        view, part, seat = self.screen.view(), self.part(), self.screen.peer.seat
        if view is None or part is None or seat is None:
            return False
        if not self.draft_signs:
            return self.tell("choose_sign_first")
        chosen = Signs(
            tuple(self.draft_signs), self.draft_presign, part.deal, salt=secrets.token_bytes(SALT_SIZE)
        )
        self.signs_open = False
        if part.signs_closed:  # time ran out while the chooser was up
            self.signs_open = False
            return self.tell("signs_closed")
        note = chosen.note_data()
        self.screen.peer.send_note(PrivateNote(sender=seat, to=part.partner, data=note))
        # The table learns that the team is ready, and which note holds (chosen again: this one), never
        # the signs.
        self.screen.peer.act(TeamReady(seat=seat, note=note_digest(note)))
        return self.tell("signs_sent", name=self.screen.name(part.partner))

    # --- closing ----------------------------------------------------------------------------------

    def close(self) -> None:
        """Esc: close a chooser, else clear the marks."""
        if self.modal:
            self.menu_open = self.choosing_target = self.signs_open = False
            self.screen.on_change()
        else:
            self.clear_marks()

    def tell(self, key: str, **fields: object) -> bool:
        """Tell the player why a key did nothing (or what it did); False, for a key handler."""
        self.screen.message = self.say(key, **fields)
        self.screen.on_change()
        return False


def pretty_cards(cards: Iterable[str | None], lang: str) -> str:
    """Cards as people reading ``lang`` read them; one whose face is unknown here as ``??``."""
    return " ".join(card_fragment(card, lang)[1] for card in cards)
