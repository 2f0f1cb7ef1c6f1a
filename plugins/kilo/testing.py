"""The base game's test kit: a scripted table that deals the hands a test writes, and the fixture
house-rule authors use.

    table = ScriptedKilo(players=4, options={"suit_combos": False})
    table.deal([["KH", "KS", "KD", "KC"], ...])        # faces per seat; the rest of the deal at random
    table.slap(0, at=100); table.slap(1, at=250) ...
    assert table.draws == [(3, "9H", False)]

``ScriptedKilo`` is ``kdm.testing.ScriptedTable`` (real events, an open deck whose faces the test
chooses, duties settled after every event, timers fired only when the test says) plus the base game's
moves and readings. For plugin authors (``docs/plugins.md``): ``pytest_plugins =
["kdm.plugins.kilo.testing"]``
in a ``conftest.py`` gives the ``kdm_table`` fixture (a ``ScriptedKilo`` factory whose tables are
checked with ``check_cards`` when the test ends).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from kdm.cards import derive_seed, shuffled
from kdm.engine import Effect
from kdm.events import Deal, StartGame
from kdm.plugins.kilo.events import Close, Feint, Pass, Slap
from kdm.plugins.kilo.rules import KiloTable, kilos_zone, table
from kdm.testing import ScriptedTable, check_places, live_cards


class ScriptedKilo(ScriptedTable):
    """A base-game table whose pile and hands a test writes down."""

    @property
    def kilo(self) -> KiloTable:
        return table(self.state)

    # --- setting the cards ----------------------------------------------------------------------

    def start(self, pile_top: Sequence[str] = (), piles: Sequence[Sequence[str]] = ()) -> None:
        """Form the pile; ``pile_top`` are its top faces, topmost first. When the pile is cut in
        several (``piles`` variant), ``piles[i]`` are the top faces of pile ``i`` (``pile_top``: pile 0).
        """
        self.act(StartGame(seed=derive_seed(self.seed, "pile")), settle=False)
        zones = [self.state.zones[name] for name in self.kilo.piles]
        tops = [list(top) for top in piles] or [list(pile_top)]
        faces = [self.deck.faces[t] for zone in zones for t in zone]
        for face in (face for top in tops for face in top):
            if face not in faces:
                raise ValueError(f"{face} is not in the pile (or asked twice)")
            faces.remove(face)
        for index, zone in enumerate(zones):
            # zone[-1] is the top: the wanted faces go on top in order, other faces fill in below.
            wanted = tops[index] if index < len(tops) else []
            if len(wanted) > len(zone):
                raise ValueError(f"pile {index} holds only {len(zone)} cards")
            below, faces = faces[: len(zone) - len(wanted)], faces[len(zone) - len(wanted) :]
            self.deck.rig(dict(zip(zone, below + wanted[::-1], strict=True)))

    def deal(self, hands: Sequence[Sequence[str]] = ()) -> None:
        """Deal a round; ``hands[seat]`` are faces for that seat (missing ones come from the rest)."""
        if self.state.phase == "setup":
            self.start()
        self.act(Deal(seed=derive_seed(self.seed, "deal", self.state.round)), settle=False)
        pool = Counter(self.kilo.dealt)
        for hand in hands:
            for face in hand:
                if pool[face] <= 0:
                    raise ValueError(f"{face} is not dealt with {self.state.players} players (or twice)")
                pool[face] -= 1
        chosen = self._fill(hands, sorted(pool.elements()))
        for tokens, faces in zip(self.state.hands, chosen, strict=True):
            self.deck.rig(dict(zip(tokens, faces, strict=True)))
        self.settle()

    def _fill(self, hands: Sequence[Sequence[str]], rest: list[str]) -> list[list[str]]:
        """The given hands completed from ``rest`` so that no hand the test left open is a combo:
        a scenario gets exactly the combos it wrote down."""
        sizes = [len(tokens) for tokens in self.state.hands]
        for attempt in range(1000):
            deck = shuffled(rest, derive_seed(self.seed, "fill", attempt))
            chosen = []
            for seat, size in enumerate(sizes):
                given = list(hands[seat]) if seat < len(hands) else []
                chosen.append(given + [deck.pop() for _ in range(size - len(given))])
            open_hands = [
                hand for seat, hand in enumerate(chosen) if seat >= len(hands) or len(hands[seat]) < size
            ]
            if not any(
                self.rules.caller("kdm_is_combo")(cards=hand, options=self.state.options)
                for hand in open_hands
            ):
                return chosen
        raise ValueError("cannot complete these hands without dealing a combo")

    # --- acting ---------------------------------------------------------------------------------

    def pass_card(self, seat: int, card: str) -> list[Effect]:
        """``seat`` passes the card with face ``card``."""
        token = next((t for t in self.state.hands[seat] if self.deck.faces[t] == card), None)
        if token is None:
            raise ValueError(f"seat {seat} does not hold {card}")
        return self.act(Pass(seat=seat, token=token))

    def pass_any(self, seat: int) -> list[Effect]:
        """``seat`` passes its first card."""
        return self.act(Pass(seat=seat, token=self.state.hands[seat][0]))

    def lap(self) -> None:
        """Everyone passes once, from the player to move, back to the checkpoint."""
        for _ in range(self.state.players):
            assert self.state.turn is not None
            self.pass_any(self.state.turn)

    def slap(
        self, seat: int, at: float, trigger: int | None = None, rt: float | None = None, round: int = 0
    ) -> list[Effect]:
        """``seat`` slaps at ``at``; a person's press names its ``round`` (0: unsaid, as bots')."""
        return self.act(Slap(seat=seat, t_sync=at, trigger=trigger, rt=rt, round=round))

    def grab(self, seat: int, at: float, trigger: int | None = None, rt: float | None = None) -> list[Effect]:
        """``seat`` grabs an object (``spoons``): timed like a slap."""
        return self.event("grab", seat=seat, t_sync=at, trigger=trigger, rt=rt)

    def everyone_slaps(self, first: int, reactions: dict[int, float], kind: str = "slap") -> list[Effect]:
        """``first`` slaps (or grabs: ``kind="grab"``) at 1000 ms; each other seat in ``reactions``
        follows, reacting to it after the given time. Returns the effects of the last one."""
        opened = self.event(kind, seat=first, t_sync=1000.0)
        trigger = opened[0]["seq"]
        effects = opened
        for seat, rt in reactions.items():
            effects = self.event(kind, seat=seat, t_sync=0.0, trigger=trigger, rt=rt)
        return effects

    def feint(self, seat: int, at: float) -> list[Effect]:
        return self.act(Feint(seat=seat, t_sync=at))

    def close(self) -> list[Effect]:
        return self.act(Close())

    # --- reading the outcome --------------------------------------------------------------------

    def pile(self, index: int = 0) -> list[str]:
        """The faces of the pile (of pile ``index`` when it is cut in several), top first."""
        return [self.deck.faces[t] for t in reversed(self.state.zones[self.kilo.piles[index]])]

    def kilos(self, seat: int) -> list[str]:
        return [self.state.faces[t] for t in self.state.zones[kilos_zone(seat)]]

    @property
    def draws(self) -> list[tuple[int, str, bool]]:
        """Every draw so far: ``(seat, card, flushed)``."""
        return [(e["seat"], e["card"], e["flush"]) for e in self.effects if e["kind"] == "drew"]


def check_cards(table: ScriptedTable) -> None:
    """Assert that every card of a base-game table lies in exactly one place, that public faces are
    true, and that the table holds the cards its ``kdm_deck`` made: during a round the dealt faces and
    the pile's, between rounds the pile's only."""
    check_places(table)
    state = table.state
    if state.phase == "setup":
        return
    dealt, pile = table.rules.caller("kdm_deck")(players=state.players, options=state.options)
    expected = Counter(pile) + (Counter(dealt) if any(state.hands) else Counter())
    assert Counter(table.deck.faces[t] for t in live_cards(table)) == expected, "cards were lost or made"


TableFactory = Callable[..., ScriptedKilo]


@pytest.fixture
def kdm_table() -> Iterator[TableFactory]:
    """A factory of scripted base-game tables: ``kdm_table(players=4, options={...}, variants=[...],
    plugins=[...])``.

    Each table it made is checked with ``check_cards`` when the test ends, so a plugin that loses or
    duplicates a card fails even a test that did not look.
    """
    made: list[ScriptedKilo] = []

    def make(players: int = 4, options: dict[str, Any] | None = None, **kwargs: Any) -> ScriptedKilo:
        made.append(ScriptedKilo(players, options, **kwargs))
        return made[-1]

    yield make
    for scripted in made:
        check_cards(scripted)
