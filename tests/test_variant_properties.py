"""Property tests over every variant and the combinations allowed (DESIGN 8, RULES 2).

A ``VariantDriver`` plays one table as a careless but honest outside world: it fulfils the duties the
table owes, fires its timers at random moments, lets seeded bots of every variant act with random
times, and throws in random events of every kind the table knows (most of them illegal when they
arrive). After every applied event: cards are conserved, public faces are true, hands hold what the
passing rules say, scores follow the kilos in front of each seat; after every refused event, nothing
changed. The offered events, through the wire codec, replay to the same digests; bots-only games
repeat per seed and replay to their digest.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import hypothesis
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kdm.agents import Bot
from kdm.cards import derive_seed
from kdm.deck import OpenDeck
from kdm.engine import Effect, Engine, IllegalAction
from kdm.events import Deal, Event, Shuffle, StartGame, TimedEvent
from kdm.manager import Rules
from kdm.plugins.all_at_once import Go, Steer
from kdm.plugins.kilo.events import Close, Draw, Feint, Pass, Slap
from kdm.plugins.kilo.rules import kilos_zone, table
from kdm.plugins.piles import ChoosePile
from kdm.plugins.spoons import Grab
from kdm.sim import Simulation
from tests.helpers.properties import PHASES, assert_replays, examples, through_the_wire, times

SEEDED = {"start_game": StartGame, "deal": Deal, "shuffle": Shuffle}
IN_ROUND = ("announcing", "passing", "window", "judging", "drawing", "shuffling", "reserving")
MAX_ATTEMPTS = 250

#: Every variant alone, and combinations a table may have (spoons and piles exclude each other).
CONFIGS: list[tuple[str, ...]] = [
    ("all_at_once",), ("spoons",), ("piles",), ("jokers",), ("seven_in_reserve",), ("marathon",),
    ("classic",),
    ("jokers", "spoons", "all_at_once"),
    ("piles", "seven_in_reserve", "jokers"),
    ("classic", "all_at_once", "spoons", "seven_in_reserve"),
    ("marathon", "piles", "all_at_once", "jokers"),
]  # fmt: skip
IDS = ["+".join(config) for config in CONFIGS]

PER_CONFIG = settings(
    max_examples=examples(12), deadline=None, phases=PHASES, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def variant_options(draw: st.DrawFn, config: tuple[str, ...]) -> dict[str, Any]:
    options: dict[str, Any] = {"rounds": draw(st.one_of(st.integers(1, 3), st.just("pile")))}
    if options["rounds"] == "pile":
        options["max_rounds"] = draw(st.integers(1, 4))
    if "classic" not in config:
        options["direction"] = draw(st.sampled_from(["toward-queen-of-spades", "left", "right"]))
        options["flush_to"] = draw(st.sampled_from(["bottom", "shuffle"]))
    options["suit_combos"] = draw(st.booleans())
    if "all_at_once" in config:
        options["go_interval_ms"] = draw(st.sampled_from(["starter", 1000, 2500]))
    if "spoons" in config:
        options["grab_grace_ms"] = draw(st.sampled_from([0, 250]))
    if "jokers" in config:
        options["joker_kilos"] = draw(st.sampled_from([50, 1000]))
    if "marathon" in config or "classic" in config:
        options["marathon_max_slaps"] = draw(st.sampled_from(["n-1", 1, 5]))
    return options


class VariantDriver:
    """One table with variants, driven by hypothesis."""

    def __init__(self, data: st.DataObject, players: int, config: tuple[str, ...], options: dict[str, Any]):
        self.data, self.players, self.config = data, players, config
        self.rules = Rules.for_table(config)
        self.engine = Engine(self.rules, players, options)
        self.deck = OpenDeck()
        self.seed = data.draw(st.binary(max_size=8), label="seed")
        self.bots = [Bot(seat, "greedy", self.seed) for seat in range(players)]
        self.attempts: list[tuple[Event, bool, str, list[Effect]]] = []
        self.check_invariants()

    @property
    def state(self) -> Any:
        return self.engine.state

    def offer(self, event: Event) -> None:
        before = self.engine.digest()
        barred = list(table(self.state).barred) if self.state.phase != "setup" else []
        try:
            effects = self.engine.apply(event)
        except IllegalAction:
            assert self.engine.digest() == before, f"refused {event} changed the state"
            self.attempts.append((event, False, before, []))
            return
        self.deck.observe(effects)
        self.attempts.append((event, True, self.engine.digest(), effects))
        for effect in effects:
            hypothesis.event(str(effect["kind"]))
            if effect["kind"] in ("slapped", "grabbed") and effect["opened"]:
                assert effect["seat"] not in barred, "a barred seat opened a window"
        self.check_invariants()

    def play(self) -> None:
        draw = self.data.draw
        while not self.engine.over and len(self.attempts) < MAX_ATTEMPTS:
            duties = self.engine.awaiting()
            # A seat's decision with a deadline (keep a first 7?) is the seat's, answered as when its
            # time is up; the rest with a time are the table's timers.
            now = [duty for duty in duties if duty.after_ms is None or duty.seat is not None]
            timers = [duty for duty in duties if duty.after_ms is not None and duty.seat is None]
            choice = draw(st.sampled_from(["duty"] * 6 + ["bot"] * 6 + ["timer", "junk"]), label="action")
            if now and choice != "junk":
                duty = now[0]
                seeded = SEEDED.get(duty.kind)
                event = seeded(seed=derive_seed(self.seed, duty.kind, self.state.seq)) if seeded else None
                self.offer(
                    event
                    or self.deck.fulfil(duty, self.state, self.engine.rules.caller("kdm_reveal"))
                    or self.junk()
                )
            elif choice == "timer" and timers:
                self.offer(self.rules.codec.decode({"kind": draw(st.sampled_from(timers)).kind}))
            elif choice in ("bot", "duty"):
                self.offer(self.bot_move() or self.junk())
            else:
                self.offer(self.junk())

    def bot_move(self) -> Event | None:
        seat = self.data.draw(st.integers(0, self.players - 1), label="bot seat")
        view = self.engine.view(seat, self.deck.knowledge(self.state, seat))
        decision = self.rules.caller("kdm_bot_decide")(view=view, bot=self.bots[seat])
        if decision is None:
            return None
        event: Event = decision.event
        if isinstance(event, TimedEvent):
            event = replace(
                event, t_sync=self.data.draw(times), rt=self.data.draw(st.none() | times.map(abs))
            )
        return event

    def junk(self) -> Event:
        """An event of any kind this table knows, with random fields: probably illegal now."""
        draw, state = self.data.draw, self.state
        seat = draw(st.integers(-1, self.players))
        hand = state.hands[seat] if 0 <= seat < self.players else []
        token = draw(st.sampled_from(hand)) if hand and draw(st.booleans()) else draw(st.integers(-1, 200))
        kinds: list[Any] = [Slap, Feint, Pass, Close, Draw, "top"]
        kinds += [Grab] if "spoons" in self.config else []
        kinds += [ChoosePile] if "piles" in self.config else []
        kinds += [Steer, Go] if "all_at_once" in self.config else []
        kind = draw(st.sampled_from(kinds))
        if kind in (Slap, Feint, Grab):
            return kind(seat=seat, t_sync=draw(times))  # type: ignore[no-any-return]
        if kind is Pass:
            return Pass(seat=seat, token=token)
        if kind is ChoosePile:
            return ChoosePile(seat=seat, pile=draw(st.integers(-1, self.players)))
        if kind is Steer:
            return Steer(seat=seat, direction=draw(st.sampled_from(["left", "right", "up"])))
        if kind is Go:
            return Go(seat=draw(st.one_of(st.none(), st.integers(-1, self.players))))
        if kind == "top":  # an honest draw from any pile, chosen or not
            piles = [z for z in table(state).piles if state.zones.get(z)] if state.phase != "setup" else []
            if piles:
                token = state.zones[draw(st.sampled_from(piles))][-1]
                return Draw(seat=seat, token=token, card=self.deck.faces[token])
        if kind in (Draw, "top"):
            return Draw(seat=seat, token=token, card=self.deck.faces.get(token, "2S"))
        return Close()

    def check_invariants(self) -> None:
        state, faces = self.state, self.deck.faces
        live = [t for hand in state.hands for t in hand] + [t for zone in state.zones.values() for t in zone]
        assert len(live) == len(set(live)), "a token lies in two places"
        if state.phase == "setup":
            assert not live
            return
        dealt, pile = self.rules.caller("kdm_deck")(players=self.players, options=state.options)
        expected = Counter(pile) + (Counter(dealt) if state.phase in IN_ROUND else Counter())
        assert Counter(faces[t] for t in live) == expected
        assert all(faces.get(t) == face for t, face in state.faces.items())
        kilo = table(state)
        assert sorted(name for name in state.zones if not name.startswith("kilos/")) == sorted(kilo.piles)
        assert len(kilo.piles) == (self.players - 1 if "piles" in self.config else 1)
        if state.phase == "passing":
            sizes = [len(hand) for hand in state.hands]
            if "all_at_once" in self.config or kilo.checkpoint:
                assert sizes == [4] * self.players, sizes
            else:
                expected_sizes = [4] * self.players
                expected_sizes[state.turn], expected_sizes[kilo.starter] = 5, 3
                assert sizes == expected_sizes
        reserved = set(state.rules.get("seven_in_reserve", {}).kept.values()) if "seven_in_reserve" in (
            self.config) else set()  # fmt: skip
        for seat in range(self.players):
            kilos = state.zones[kilos_zone(seat)]
            weights = [
                self.rules.caller("kdm_card_kilos")(card=state.faces[t], options=state.options)
                for t in kilos
                if t not in reserved
            ]
            assert state.scores[seat] == sum(w or 0 for w in weights)
            assert kilo.shown_kilos[seat] == tuple(state.faces[t] for t in kilos)
        window = kilo.window
        if window is not None and "spoons" in self.config:
            assert len(window.slaps) <= self.players


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@PER_CONFIG
@given(players=st.integers(3, 10), data=st.data())
def test_variant_tables_conserve_cards_and_replay_to_the_same_digests(
    config: tuple[str, ...], players: int, data: st.DataObject
) -> None:
    """Card conservation, atomic refusals and replay determinism at tables with variants (RULES 2)."""
    options = data.draw(variant_options(config), label="options")
    driver = VariantDriver(data, players, config, options)
    driver.play()
    assert_replays(Rules.for_table(config), players, options, driver.attempts)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@settings(max_examples=examples(4), deadline=None, phases=PHASES)
@given(players=st.integers(3, 10), seed=st.integers(0, 2**32), data=st.data())
def test_variant_simulations_repeat_and_replay(
    config: tuple[str, ...], players: int, seed: int, data: st.DataObject
) -> None:
    """Bots play every variant to the end; the same arguments give the same game, and its logged events
    replay through the wire to the game's digest."""
    options = data.draw(variant_options(config), label="options")
    if options["rounds"] == "pile":
        options["max_rounds"] = min(options["max_rounds"], 2)
    log: list[Event] = []
    first = Simulation(players, seed, "greedy", options, config).run(lambda _n, event, _e: log.append(event))
    second = Simulation(players, seed, "greedy", options, config).run()
    assert (first.digest, first.events, first.scores, first.summary) == (
        second.digest, second.events, second.scores, second.summary
    )  # fmt: skip
    rules = Rules.for_table(config)
    engine = Engine(rules, players, options)
    for event in log:
        engine.apply(through_the_wire(rules, event))
    assert engine.digest() == first.digest
