"""Ace back, as an installed plugin: the rule with the kit's scripted tables (picked by its entry-point
name, as ``--variant aceback`` does), and its screen part with a small ``Screen`` over a real view."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import kdm_aceback
import pytest

from kdm.engine import IllegalAction, SeatView
from kdm.events import Event
from kdm.plugins.kilo.testing import ScriptedKilo
from kdm.tui.extension import ScreenPart
from kdm.tui.text import say_from


def seat_2_has_an_ace(kdm_table: Any) -> tuple[ScriptedKilo, int]:
    """Seat 2 draws the ace of hearts, then a new round starts: its ace lies in front of it."""
    table = kdm_table(4, variants=["aceback"])
    table.start(pile_top=["AH"])
    table.deal([["KH", "KS", "KD", "KC"]])
    table.everyone_slaps(0, {1: 100.0, 2: 300.0, 3: 200.0})
    table.deal()
    return table, table.state.zones["kilos/2"][0]


def test_an_ace_goes_back_once_and_weighs_nothing_any_more(kdm_table: Any) -> None:
    table, ace = seat_2_has_an_ace(kdm_table)
    assert table.state.scores[2] == 100
    table.event("return_ace", seat=2, token=ace)
    assert table.kilos(2) == [] and table.state.scores[2] == 0 and table.pile()[-1] == "AH"
    with pytest.raises(IllegalAction, match="already"):
        table.event("return_ace", seat=2, token=ace)


def test_a_table_of_another_game_is_refused_in_one_line() -> None:
    from kdm.errors import TableError
    from kdm.manager import Rules

    with pytest.raises(TableError, match="one game"):
        Rules.for_table(["aceback", "kems"])


@dataclass
class Screen:
    """The part of the table screen a screen part uses, over a scripted table's view of one seat."""

    table: ScriptedKilo
    seat: int | None
    lang: str = "en"
    message: str = ""
    sent: list[Event] = field(default_factory=list)
    told: list[str] = field(default_factory=list)

    def view(self) -> SeatView | None:
        seat = 0 if self.seat is None else self.seat
        return self.table.engine.view(seat, self.table.deck.knowledge(self.table.state, seat))

    def say(self, key: str, **fields: object) -> str:
        return say_from(kdm_aceback.WORDS, self.lang, key, **fields) if key in kdm_aceback.WORDS else key

    def tell(self, key: str, **fields: object) -> bool:
        self.told.append(self.say(key, **fields))
        return False

    def name(self, seat: int) -> str:
        return f"player{seat}"

    def act(self, event: Event) -> bool:
        self.sent.append(event)
        return True


def part() -> ScreenPart:
    screen_part = kdm_aceback.kdm_tui()
    assert isinstance(screen_part, ScreenPart) and screen_part.name == "aceback"
    return screen_part


def test_the_key_sends_the_ace_back_and_the_panel_says_when(kdm_table: Any) -> None:
    table, ace = seat_2_has_an_ace(kdm_table)
    screen = Screen(table, seat=2)
    (key,) = part().keys
    view = screen.view()
    assert view is not None and view.phase == "passing"
    status = part().status
    assert status is not None
    assert status(screen, view, 40) == [("class:call", "a: send A♥ back under the pile\n")]
    hints = part().hints
    assert hints is not None and hints(screen, view, ["? help"]) == ["? help", "a ace back"]
    assert key.keys == ("a",) and key.act(screen, "a")
    assert screen.sent == [kdm_aceback.ReturnAce(seat=2, token=ace)]
    assert screen.message == "sending A♥ back…"


def test_the_key_says_why_not_and_the_mark_shows_who_sent_one(kdm_table: Any) -> None:
    table, ace = seat_2_has_an_ace(kdm_table)
    (key,) = part().keys
    nobody = Screen(table, seat=1, lang="fr")
    assert not key.act(nobody, "a") and nobody.told == ["aucun as devant vous à renvoyer"]
    table.event("return_ace", seat=2, token=ace)
    screen = Screen(table, seat=2)
    assert not key.act(screen, "a") and screen.told == ["your ace went back already"]
    view = screen.view()
    assert view is not None
    marks, legend, status = part().marks, part().legend, part().status
    assert marks is not None and legend is not None and status is not None
    assert [marks(view, seat) for seat in range(4)] == ["", "", "↩", ""]
    assert legend(screen, view) == ["↩ sent an ace back"] and status(screen, view, 40) == []
