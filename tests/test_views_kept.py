"""What the views keep between events is never stale (issue 28, item 4).

The open deck hands out a seat's ``Knowledge`` again while its hand, the cards shown to it and its notes
stay the same, and the engine keeps a seat's hand with its faces while its tokens and its knowledge
stay the same. After every event of seeded bots-only games, every seat's view through those kept parts
equals the view a fresh engine and a fresh deck build from the same table and the same faces.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kdm.deck import Knowledge, OpenDeck
from kdm.engine import Effect, Engine, SeatView
from kdm.events import Event
from kdm.sim import Simulation
from tests.helpers.properties import PHASES, examples

PER_GAME = settings(
    max_examples=examples(10), deadline=None, phases=PHASES, suppress_health_check=[HealthCheck.too_slow]
)


def fresh_views(simulation: Simulation) -> list[SeatView]:
    """Every seat's view, built by an engine and a deck that kept nothing from before."""
    kept = simulation.engine
    engine = Engine(kept.rules, kept.state.players, dict(kept.state.options))
    engine.state = kept.snapshot()
    deck = OpenDeck()
    deck.faces = dict(simulation.deck.faces)
    deck.shown = {seat: list(tokens) for seat, tokens in simulation.deck.shown.items()}
    deck.notes = {seat: list(notes) for seat, notes in simulation.deck.notes.items()}
    return [engine.view(seat, deck.knowledge(engine.state, seat)) for seat in range(engine.state.players)]


def assert_views_never_stale(simulation: Simulation) -> int:
    """Play the game to its end, checking every seat's view after every event; the events played."""
    engine, deck = simulation.engine, simulation.deck

    def check(_now: float, _event: Event, _effects: Sequence[Effect]) -> None:
        state = engine.state
        views = [engine.view(seat, deck.knowledge(state, seat)) for seat in range(state.players)]
        assert views == fresh_views(simulation), f"a kept view went stale at event {state.seq}"

    return simulation.run(check).events


@PER_GAME
@given(seed=st.integers(0, 2**32), players=st.sampled_from([3, 4, 7]))
def test_base_game_views_are_never_stale(seed: int, players: int) -> None:
    assert assert_views_never_stale(Simulation(players, seed, options={"rounds": 3})) > 0


@PER_GAME
@given(seed=st.integers(0, 2**32), players=st.sampled_from([4, 6]))
def test_kems_views_are_never_stale(seed: int, players: int) -> None:
    """Kem's seats learn things the table does not: their team's signs (notes) and cards shown to them."""
    options: dict[str, Any] = {"target": 3}
    assert assert_views_never_stale(Simulation(players, seed, options=options, variants=("kems",))) > 0


def dealt_simulation() -> Simulation:
    simulation = Simulation(4, 7, options={"rounds": 3})
    while simulation.engine.state.round == 0:
        simulation.step()
    return simulation


def test_a_hand_shows_the_faces_a_scenario_rigs() -> None:
    """A test kit gives cards other faces (``OpenDeck.rig``): the hand kept from before is not shown."""
    simulation = dealt_simulation()
    engine, deck = simulation.engine, simulation.deck
    state = engine.state
    before = engine.view(0, deck.knowledge(state, 0)).hand
    (mine, face), other = before[0], state.hands[1][0]
    deck.rig({mine: deck.faces[other], other: face})
    after = engine.view(0, deck.knowledge(state, 0)).hand
    assert after[0] == (mine, deck.faces[mine]) != before[0] and after[1:] == before[1:]


def test_a_hand_shows_what_the_knowledge_given_knows() -> None:
    """The same tokens seen with a knowledge that knows no face (a spectator's) show no face, and the
    seat's own knowledge shows them all again."""
    simulation = dealt_simulation()
    engine, deck = simulation.engine, simulation.deck
    state = engine.state
    own = engine.view(0, deck.knowledge(state, 0)).hand
    assert all(face is not None for _token, face in own)
    assert all(face is None for _token, face in engine.view(0, Knowledge()).hand)
    assert engine.view(0, deck.knowledge(state, 0)).hand == own


def test_the_parts_of_a_view_are_the_hooks_results_in_its_order() -> None:
    """The engine calls the games' ``kdm_view`` implementations one by one (``Rules.implementations``):
    the same parts, in the same order, as the hook's caller gives, at a table of several plugins."""
    simulation = Simulation(4, 3, options={"rounds": 2}, variants=("piles", "seven_in_reserve", "jokers"))
    rules, engine, deck = simulation.rules, simulation.engine, simulation.deck
    functions = rules.implementations("kdm_view")
    assert functions is not None and len(functions) > 1
    while not engine.over:
        simulation.step()
        state = engine.state
        for seat in range(state.players):
            given = {"state": state, "seat": seat, "knowledge": deck.knowledge(state, seat)}
            results = [
                result for result in (function(**given) for function in functions) if result is not None
            ]
            assert results == rules.hooks.view(**given)
            assert engine.view(seat, given["knowledge"]).rules == dict(results)
