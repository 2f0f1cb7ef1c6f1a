"""Snap's screen state and panels over a scripted table: the key methods build the events the real
engine applies, stamped as the slap timing contract says; the panels say what the view holds.

``Screen`` stands in for the table screen (``kdm.tui.state.TableScreen``) with what Snap's screen uses
of it: the seat's view, words, telling, acting, and the paint and clock stamps of a press. What it
sends is applied at once, and the notice of it comes back to the screen's state as the peer's would.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from kdm_snap.events import Flip, Slap, SlapClose
from kdm_snap.rules import snap
from kdm_snap.screen import panels
from kdm_snap.screen.state import SnapPlay
from kdm_snap.screen.text import WORDS
from snap_helpers import flip, snap_table, top

from kdm.engine import IllegalAction, SeatView
from kdm.events import Event
from kdm.notices import Applied, Rejected
from kdm.testing import ScriptedTable
from kdm.tui.panels import RULES_WIDTH
from kdm.tui.text import CATALOGUE, say, say_from

#: The table's agreed clock runs this far ahead of the screen's own.
AHEAD_MS = 1000.0


class Screen:
    """The part of a table screen Snap's screen uses, over a scripted table."""

    def __init__(self, table: ScriptedTable, seat: int, lang: str = "en") -> None:
        self.table, self.lang, self.seat = table, lang, seat
        self.message = ""
        self.painted: dict[int, float] = {}  # seq → when it was painted, on the screen's clock
        self.sent: list[Event] = []
        self.peer = SimpleNamespace(
            seat=seat, me=SimpleNamespace(identity="me"), record=SimpleNamespace(name="t")
        )
        self.play = SnapPlay(self)  # type: ignore[arg-type]
        self.over, self.winners, self.chat_draft = False, None, None

    def view(self) -> SeatView:
        state = self.table.state
        return self.table.engine.view(self.seat, self.table.deck.knowledge(state, self.seat))

    def say(self, key: str, **fields: object) -> str:
        return (
            say(self.lang, key, **fields) if key in CATALOGUE else say_from(WORDS, self.lang, key, **fields)
        )

    def tell(self, key: str, **fields: object) -> bool:
        self.message = self.say(key, **fields)
        return False

    def name(self, seat: int, seq: int | None = None) -> str:
        return f"seat {seat}"

    def player_name(self, seat: int) -> str:
        return f"seat {seat}"

    def is_away(self, seat: int) -> bool:
        return False

    def is_lost(self, seat: int) -> bool:
        return False

    def clock_ready(self) -> bool:
        return True

    def reaction_ms(self, trigger: int, pressed_ms: float) -> float | None:
        return pressed_ms - self.painted[trigger] if trigger in self.painted else None

    def on_agreed_clock(self, pressed_ms: float) -> float:
        return pressed_ms + AHEAD_MS

    def act(self, event: Event) -> bool:
        self.sent.append(event)
        self.heard(self.table.act(event), seq=self.table.state.seq - 1, event=event)
        return True

    def heard(self, effects: Any, seq: int, event: Event) -> None:
        """What the table did reaches the screen's state, as the peer's notices do."""
        self.play.on_notice(Applied(event=event, effects=tuple(effects), seq=seq))

    def paint(self, at_ms: float) -> None:
        """Everything applied so far is on screen since ``at_ms``."""
        for seq in range(self.table.state.seq):
            self.painted.setdefault(seq, at_ms)


def others_flip(screen: Screen, seat: int) -> None:
    screen.heard(flip(screen.table, seat), seq=screen.table.state.seq - 1, event=Flip(seat=seat))


def text(fragments: Any) -> str:
    return "".join(piece[1] for piece in fragments)


def test_enter_turns_your_card_on_your_turn_only() -> None:
    table = snap_table(3)
    me = Screen(table, 1)
    assert me.play.active
    assert me.play.flip() is False and me.sent == []
    assert me.message == "it is seat 0's turn to turn a card"
    others_flip(me, 0)
    assert "your turn: Enter turns your card" in text(panels.hand_text(me.play))
    assert panels.hints_now(me.play)[:2] == ["snap_hint_turn", "snap_hint_slap"]
    card = top(table, 1)
    assert me.play.flip() is True and me.sent == [Flip(seat=1)]
    assert table.state.zones["centre"][-1] == card and table.state.turn == 2
    assert me.message == ""  # what we sent is done: the panels say it now


def test_space_slaps_the_top_card_stamped_from_its_paint() -> None:
    table = snap_table(3)
    table.arrange({top(table, 0): "9H", top(table, 1): "9C"})
    me = Screen(table, 2)
    assert me.play.slap(5.0) is False and me.message == "nothing to slap now"
    others_flip(me, 0)
    others_flip(me, 1)
    pair_seq = snap(table.state).top_seq
    assert pair_seq is not None
    assert me.play.slap(10.0) is False and me.message == "that card is not on your screen yet"
    me.paint(at_ms=2000.0)
    centre = text(panels.table_text(me.play))
    assert "9♥" in centre and "9♣" in centre and "Centre pile: 2 cards" in centre
    assert me.play.slap(2310.0) is True
    (sent,) = me.sent
    assert sent == Slap(seat=2, t_sync=2310.0 + AHEAD_MS, trigger=pair_seq, rt=310.0)
    assert table.state.phase == "slapping" and "✋ seat 2: Snap!" in text(panels.table_text(me.play))
    assert me.play.slap(2400.0) is False and me.message == "you have slapped this card already"
    table.fire("snap_close")
    me.heard([table.last("slap_judged")], seq=table.state.seq - 1, event=SlapClose())
    result = text(panels.table_text(me.play))
    assert "seat 2 was quickest: 2 cards" in result and "1. seat 2 310ms" in result
    assert table.state.scores[2] == 19
    me.play.flip()
    assert "was quickest" in text(panels.table_text(me.play))
    others_flip(me, 0)  # two cards turned since: the result is old news (the log keeps it)
    assert "was quickest" not in text(panels.table_text(me.play))


def test_a_player_out_is_told_so_and_keys_send_nothing() -> None:
    table = snap_table(2, max_turns=1)
    me = Screen(table, 1)
    snap(table.state).out.append(1)  # as a false slap without a card would have put seat 1 out
    assert me.play.flip() is False and me.play.slap(0.0) is False
    assert me.message == "you are out of the game" and me.sent == []
    assert panels.hints_now(me.play) == ["hint_scores", "hint_help", "hint_quit"]


def test_the_french_screen_says_it_in_french() -> None:
    table = snap_table(3)
    me = Screen(table, 1, lang="fr")
    me.play.flip()
    assert me.message == "c'est à seat 0 de retourner une carte"
    others_flip(me, 0)
    assert "à vous : Entrée retourne votre carte" in text(panels.hand_text(me.play))
    assert "Tas du centre : 1 carte" in text(panels.table_text(me.play))


def test_every_word_of_the_screen_is_in_both_languages_with_the_same_fields() -> None:
    import string

    for key, (english, french) in WORDS.items():
        assert key.startswith("snap_") and key not in CATALOGUE, key
        fields = [
            {name for _text, name, _spec, _conv in string.Formatter().parse(words) if name}
            for words in (english, french)
        ]
        assert fields[0] == fields[1], key


def test_a_refused_flip_lets_the_key_send_again() -> None:
    table = snap_table(2)
    me = Screen(table, 0)
    me.act = lambda event: me.sent.append(event) or True  # type: ignore[method-assign]  # on its way
    assert me.play.flip() is True
    assert me.play.flip() is False  # not sent twice while the first is on its way
    me.play.on_notice(Rejected(node="me", reason="a flip too late"))
    assert me.play.flip() is True and me.sent == [Flip(seat=0), Flip(seat=0)]
    with pytest.raises(IllegalAction):
        table.event("snap_flip", seat=1)


def test_one_card_is_said_in_the_singular_and_none_too_in_french() -> None:
    table = snap_table(2)
    english, french = Screen(table, 0), Screen(table, 0, lang="fr")
    assert "26 cards face down" in text(panels.hand_text(english.play))
    assert [panels.plural(english.play, n, "one", "many") for n in (0, 1, 2)] == ["many", "one", "many"]
    assert [panels.plural(french.play, n, "one", "many") for n in (0, 1, 2)] == ["one", "one", "many"]


def test_the_help_lines_fit_the_help_window() -> None:
    for words in WORDS["snap_help"]:
        for line in words.splitlines():
            assert len(line) <= RULES_WIDTH, line
