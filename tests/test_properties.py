"""Property tests for the base game (DESIGN 8): random legal event sequences and bots-only games.

A ``Driver`` plays one table the way a careless but honest outside world would: it fulfils the duties the
table owes (seeds, the queens' calls, shown hands, draws) and throws in random player actions (passes,
slaps, feints, closes), many of them illegal at the moment they arrive. Reveals are always honest, from
an ``OpenDeck`` that observes every apply. After every applied event the invariants of RULES 1 are
checked; after every refused event, that nothing changed.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import hypothesis
import msgpack
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from kdm.agents import STRATEGIES, Bot
from kdm.cards import derive_seed, full_deck, is_face, rank_of, suit_of
from kdm.deck import OpenDeck
from kdm.engine import Duty, Effect, Engine, IllegalAction
from kdm.events import Deal, Event, Shuffle, StartGame
from kdm.manager import Rules
from kdm.plugins.kilo.bots import decide
from kdm.plugins.kilo.events import Announce, Close, Draw, Feint, Pass, ShowHand, Slap
from kdm.plugins.kilo.rules import PILE, RANK_KILOS, is_combo, kilos_zone, table
from kdm.sim import SimResult, Simulation, simulate
from kdm.state import canonical
from tests.helpers.properties import examples

SEEDED = {"start_game": StartGame, "deal": Deal, "shuffle": Shuffle}
#: Phases in which the dealt cards are in the players' hands.
IN_ROUND = ("announcing", "passing", "window", "judging", "drawing", "shuffling")
MAX_ATTEMPTS = 400

#: Shrinking stays on (minimal failing games are worth it); the explain phase replays a long game
#: thousands of times for little, so it is off.
PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink)
FAST = settings(
    max_examples=examples(100), deadline=None, phases=PHASES, suppress_health_check=[HealthCheck.too_slow]
)


# --- strategies -------------------------------------------------------------------------------------


@st.composite
def table_options(draw: st.DrawFn) -> dict[str, Any]:
    """Options of a small game: every base option, rounds few or until the pile is empty."""
    options: dict[str, Any] = {
        "suit_combos": draw(st.booleans()),
        "flush_to": draw(st.sampled_from(["bottom", "shuffle"])),
        "direction": draw(st.sampled_from(["toward-queen-of-spades", "left", "right"])),
        "rounds": draw(st.one_of(st.integers(1, 4), st.just("pile"))),
    }
    if options["rounds"] == "pile":
        options["max_rounds"] = draw(st.integers(1, 6))
    if draw(st.booleans()):
        options["slap_timeout_ms"] = draw(st.integers(100, 60000))
    return options


players_st = st.integers(3, 10)
# Whole milliseconds most of the time, so that effective times tie and the seeded tie-break is exercised.
times = st.one_of(st.integers(-100, 3000).map(float), st.floats(-1e9, 1e9, allow_nan=False))
reaction_times = st.one_of(st.integers(0, 1000).map(float), st.floats(0.0, 1e6, allow_nan=False))
#: Strings no table can weigh or show: a reveal carrying one is refused.
NOT_CARDS = ("JOKER", "", "1S", "7X", "QQ")
bots_st = st.one_of(
    st.sampled_from(STRATEGIES), st.lists(st.sampled_from(STRATEGIES), min_size=10, max_size=10)
)


def seat_bots(bots: str | list[str], players: int) -> str | list[str]:
    return bots if isinstance(bots, str) else bots[:players]


# --- the random driver ------------------------------------------------------------------------------


@dataclass
class Attempt:
    """One event offered to the engine: applied (with the digest after it) or refused."""

    event: Event
    applied: bool
    digest: str
    effects: list[Effect] = field(default_factory=list)


class Driver:
    """One table driven by hypothesis: honest reveals, random (often mistimed) player actions."""

    def __init__(self, data: st.DataObject, players: int, options: dict[str, Any]) -> None:
        self.data = data
        self.players = players
        self.rules = Rules.for_table()
        self.engine = Engine(self.rules, players, options)
        self.deck = OpenDeck()
        self.seed = data.draw(st.binary(max_size=8), label="seed")
        #: How often a random slap or feint interrupts the passing (0: only combo slaps).
        self.temper = data.draw(st.integers(0, 3), label="temper")
        self.attempts: list[Attempt] = []
        self.timed: list[int] = []  # seqs of every committed slap and feint
        self.check_invariants()

    @property
    def state(self) -> Any:
        return self.engine.state

    def offer(self, event: Event) -> list[Effect] | None:
        """Apply ``event``; on ``IllegalAction`` check that the table did not change at all."""
        before = self.engine.digest()
        try:
            effects = self.engine.apply(event)
        except IllegalAction:
            assert self.engine.digest() == before, f"refused {event} changed the state"
            self.attempts.append(Attempt(event, False, before))
            hypothesis.event(f"refused {event.kind}")
            return None
        self.deck.observe(effects)
        self.attempts.append(Attempt(event, True, self.engine.digest(), effects))
        for effect in effects:
            hypothesis.event(effect_label(effect))
            if effect["kind"] in ("slapped", "feinted"):
                self.timed.append(effect["seq"])
        self.check_invariants()
        return effects

    def play(self) -> None:
        """Offer events until the game is over or ``MAX_ATTEMPTS`` were offered."""
        while not self.engine.over and len(self.attempts) < MAX_ATTEMPTS:
            duties = self.engine.awaiting()
            now = [duty for duty in duties if duty.after_ms is None]
            if now and self.data.draw(st.integers(0, 11), label="mistime") != 0:
                self.offer(self.fulfil(now[0]))
            else:
                self.offer(self.player_action(duties))
        if self.engine.over:
            hypothesis.event("game over")
            self.offer(self.junk())  # nothing is legal any more
            assert not self.attempts[-1].applied

    def fulfil(self, duty: Duty) -> Event:
        seeded = SEEDED.get(duty.kind)
        if seeded is not None:
            return seeded(seed=derive_seed(self.seed, duty.kind, self.state.seq))
        fulfilled = self.deck.fulfil(duty, self.state, self.engine.rules.caller("kdm_reveal"))
        assert fulfilled is not None, duty
        return fulfilled

    # --- player actions ------------------------------------------------------------------------

    def player_action(self, duties: list[Duty]) -> Event:
        phase = self.state.phase
        holders = self.combo_holders() if phase == "passing" and table(self.state).checkpoint else []
        if holders and self.data.draw(st.integers(0, 3), label="notice") != 0:
            return Slap(seat=self.data.draw(st.sampled_from(holders)), t_sync=self.data.draw(times))
        if phase == "passing":
            menu = ["pass"] * 4 + ["smart pass"] * 8 + ["stray pass"] + ["slap", "feint"] * self.temper
        elif phase == "window":
            menu = ["react"] * 4 + ["slap", "feint"] + ["close"] * 2
        else:
            menu = []
        choice = self.data.draw(st.sampled_from([*menu, "junk"]), label="action")
        if choice == "pass":
            seat = self.state.turn
            return Pass(seat=seat, token=self.data.draw(st.sampled_from(self.state.hands[seat])))
        if choice == "stray pass":  # any seat passes one of its cards: legal only on its turn
            seat = self.data.draw(st.integers(0, self.players - 1))
            return Pass(seat=seat, token=self.data.draw(st.sampled_from(self.state.hands[seat])))
        if choice == "smart pass":
            return Pass(seat=self.state.turn, token=self.least_useful(self.state.turn))
        if choice == "react":
            window = table(self.state).window
            assert window is not None
            waiting = [seat for seat in range(self.players) if not window.slapped(seat)]
            return Slap(
                seat=self.data.draw(st.sampled_from(waiting)),
                t_sync=self.data.draw(times),
                trigger=window.opened_by,
                rt=self.data.draw(reaction_times),
            )
        if choice in ("slap", "feint"):
            timed = Slap if choice == "slap" else Feint
            return timed(seat=self.data.draw(st.integers(0, self.players - 1)), **self.timing())
        if choice == "close":
            assert any(duty.kind == "close" for duty in duties)
            return Close()
        return self.junk()

    def timing(self) -> dict[str, Any]:
        """``t_sync``, and maybe a trigger (known or not) with a reaction time."""
        fields: dict[str, Any] = {"t_sync": self.data.draw(times)}
        how = self.data.draw(st.sampled_from(["none", "known", "known", "unknown"]))
        if how == "known" and self.timed:
            fields["trigger"] = self.data.draw(st.sampled_from(self.timed))
            fields["rt"] = self.data.draw(reaction_times)
        elif how == "unknown":
            fields["trigger"] = self.data.draw(st.integers(-1, self.state.seq + 1))
            fields["rt"] = self.data.draw(st.one_of(st.none(), reaction_times))
        return fields

    def least_useful(self, seat: int) -> int:
        """The card of ``seat`` that helps least toward a combo (so that combos do happen)."""
        hand = self.state.hands[seat]
        faces = [self.deck.faces[t] for t in hand]
        counts = Counter(map(rank_of, faces))
        if self.state.options["suit_combos"]:
            counts += Counter(map(suit_of, faces))
        return min(hand, key=lambda t: (counts[rank_of(self.deck.faces[t])], t))

    def combo_holders(self) -> list[int]:
        suit_combos = self.state.options["suit_combos"]
        return [
            seat
            for seat, hand in enumerate(self.state.hands)
            if is_combo([self.deck.faces[t] for t in hand], suit_combos)
        ]

    def junk(self) -> Event:
        """An honest event that is probably illegal now (wrong phase, seat, turn, token, time)."""
        state, draw = self.state, self.data.draw
        seat = draw(st.integers(-1, self.players))
        token = draw(st.integers(-1, state.next_token))
        face = self.deck.faces.get(token, "2S")
        hand = tuple(state.hands[seat]) if 0 <= seat < self.players else ()
        kind = draw(
            st.sampled_from(
                [
                    "start",
                    "deal",
                    "shuffle",
                    "announce",
                    "pass",
                    "slap",
                    "feint",
                    "negative rt",
                    "close",
                    "show",
                    "draw",
                    "draw top",
                    "bad reveal",
                ]
            )
        )
        if kind in ("start", "deal", "shuffle"):
            return {"start": StartGame, "deal": Deal, "shuffle": Shuffle}[kind](seed=b"junk")
        if kind == "announce":
            card = draw(st.sampled_from(["QH", "QS", face]))
            holder = next(
                (s for s, h in enumerate(state.hands) for t in h if self.deck.faces[t] == card), seat
            )
            return Announce(seat=holder, card=card)
        if kind == "pass":  # out of turn, or a card held by someone else
            return Pass(seat=seat, token=draw(st.sampled_from(hand)) if hand else token)
        if kind in ("slap", "feint"):
            return (Slap if kind == "slap" else Feint)(seat=seat, t_sync=draw(times))
        if kind == "negative rt":
            return Slap(seat=seat % self.players, t_sync=0.0, rt=-draw(st.floats(1e-9, 1e6)))
        if kind == "close":
            return Close()
        if kind == "show":
            shown = draw(st.sampled_from([hand, hand[::-1], hand[1:], (*hand[1:], token)]))
            return ShowHand(seat=seat, tokens=shown, cards=tuple(self.deck.faces.get(t, "2S") for t in shown))
        if kind == "bad reveal":
            return self.bad_reveal()
        if kind == "draw top" and state.zones.get(PILE):
            token = state.zones[PILE][-1]
            face = self.deck.faces[token]
        return Draw(seat=seat, token=token, card=face)

    def bad_reveal(self) -> Event:
        """The reveal the table awaits, or would, with one card that is not a card of this table."""
        state, junk = self.state, self.data.draw(st.sampled_from(NOT_CARDS))
        if state.phase == "judging":
            first = table(state).ordered[0][0]
            tokens = tuple(state.hands[first])
            cards = [self.deck.faces[t] for t in tokens]
            cards[self.data.draw(st.integers(0, len(cards) - 1))] = junk
            return ShowHand(seat=first, tokens=tokens, cards=tuple(cards))
        losers = table(state).losers if state.phase != "setup" else []
        pile = state.zones.get(PILE, [-1])
        return Draw(seat=losers[0] if losers else 0, token=pile[-1] if pile else -1, card=junk)

    # --- invariants ----------------------------------------------------------------------------

    def check_invariants(self) -> None:
        state, faces = self.state, self.deck.faces
        live = [t for hand in state.hands for t in hand] + [t for zone in state.zones.values() for t in zone]
        assert len(live) == len(set(live)), "a token lies in two places"
        live_faces = Counter(faces[t] for t in live)
        if state.phase == "setup":
            assert not live
        elif state.phase in IN_ROUND:
            assert live_faces == Counter(full_deck())
        else:  # between rounds, or over: the dealt cards were gathered
            assert not any(state.hands)
            assert live_faces == Counter(full_deck()) - Counter(table(state).dealt)
        for token, face in state.faces.items():
            assert faces.get(token) == face, (
                f"public face of {token} is {face}, the deck says {faces.get(token)}"
            )
        kilo = table(state)
        if state.phase == "passing":
            sizes = [len(hand) for hand in state.hands]
            if kilo.checkpoint:
                assert sizes == [4] * self.players, sizes
            else:  # the player to move received a 5th card; the starter passed from 4 and holds 3
                expected = [4] * self.players
                expected[state.turn], expected[kilo.starter] = 5, 3
                assert sizes == expected, (sizes, state.turn, kilo.starter)
        if state.phase != "setup":
            for seat in range(self.players):
                kilos = [state.faces[t] for t in state.zones[kilos_zone(seat)]]  # face up: public
                assert state.scores[seat] == sum(RANK_KILOS[rank_of(card)] for card in kilos)
                assert kilo.shown_kilos[seat] == tuple(kilos)


def effect_label(effect: Effect) -> str:
    """A coverage label for ``--hypothesis-show-statistics``."""
    kind = effect["kind"]
    if kind == "judged":
        return f"judged valid={effect['valid']} losers={min(len(effect['losers']), 2)}"
    if kind == "drew":
        return f"drew flush={effect['flush']}"
    if kind == "shuffled":
        return f"shuffled {'from_tokens' if 'from_tokens' in effect else effect['zone']}"
    return str(kind)


def through_the_wire(rules: Rules, original: Event) -> Event:
    """``original`` as a peer receives it: encoded, packed, unpacked, decoded."""
    wire = msgpack.packb(rules.codec.encode(original))
    decoded = rules.codec.decode(msgpack.unpackb(wire, raw=False))
    assert decoded == original
    return decoded


# --- 1. card conservation ---------------------------------------------------------------------------


@FAST
@given(players=players_st, options=table_options(), data=st.data())
def test_cards_are_conserved_and_refusals_are_atomic(
    players: int, options: dict[str, Any], data: st.DataObject
) -> None:
    """Card conservation over random legal event sequences (RULES 1.1, 1.2.4, 1.2.9).

    After every applied event the live tokens (hands and zones) hold every face of the 52-card deck
    exactly once (the dealt ranks are out between rounds), public faces agree with the open deck,
    every hand holds 4 at a checkpoint (the player to move 5 and the starter 3 otherwise), and the
    kilos in front of each seat are face up and add up to its score. Every refused event
    (``IllegalAction``) leaves the state digest unchanged.
    """
    driver = Driver(data, players, options)
    driver.play()
    assert any(attempt.applied for attempt in driver.attempts)


# --- 2. replay determinism --------------------------------------------------------------------------


@FAST
@given(players=players_st, options=table_options(), data=st.data())
def test_replaying_the_wire_log_gives_the_same_digests(
    players: int, options: dict[str, Any], data: st.DataObject
) -> None:
    """Replay determinism: every offered event, through codec + msgpack, replays to the same table.

    A fresh engine given the same events (encoded, packed, unpacked, decoded) refuses exactly the
    events the original refused, returns the same effects, and has the same digest after every event.
    """
    driver = Driver(data, players, options)
    driver.play()
    rules = Rules.for_table()
    engine = Engine(rules, players, options)
    for attempt in driver.attempts:
        decoded = through_the_wire(rules, attempt.event)
        try:
            effects = engine.apply(decoded)
        except IllegalAction:
            assert not attempt.applied, f"replay refused {decoded}"
        else:
            assert attempt.applied, f"replay accepted {decoded}"
            assert canonical(effects) == canonical(attempt.effects)
        assert engine.digest() == attempt.digest
    assert engine.digest() == driver.engine.digest()


def sim_options(draw: st.DrawFn) -> dict[str, Any]:
    options = draw(table_options())
    if options["rounds"] != "pile":
        options["rounds"] = min(options["rounds"], 3)
    return options


@FAST
@given(
    players=players_st,
    seed=st.integers(0, 2**32),
    bots=bots_st,
    data=st.data(),
)
def test_simulations_replay_and_repeat(
    players: int, seed: int, bots: str | list[str], data: st.DataObject
) -> None:
    """Replay determinism of bots-only games: the logged events replay to the game's digest, and the
    same ``Simulation`` arguments twice give the same result (digest, events, kilos, draws, winners).
    """
    options = sim_options(data.draw)
    log: list[Event] = []
    first = Simulation(players, seed, seat_bots(bots, players), options).run(
        lambda _now, applied, _effects: log.append(applied)
    )
    second = Simulation(players, seed, seat_bots(bots, players), options).run()
    same = ("digest", "events", "scores", "summary", "winners", "rounds")
    assert {name: getattr(first, name) for name in same} == {name: getattr(second, name) for name in same}
    assert len(log) == first.events
    rules = Rules.for_table()
    engine = Engine(rules, players, options)
    for applied in log:
        engine.apply(through_the_wire(rules, applied))
    assert engine.digest() == first.digest


# --- 3. bots decide from their view only ------------------------------------------------------------


@settings(max_examples=examples(150), deadline=None, phases=PHASES)
@given(
    players=players_st,
    seed=st.integers(0, 2**32),
    bots=bots_st,
    data=st.data(),
)
def test_views_hide_other_faces_and_bots_see_nothing_else(
    players: int, seed: int, bots: str | list[str], data: st.DataObject
) -> None:
    """Bots decide only from their view: permuting the faces a seat may not know (other hands, the pile,
    gathered cards) leaves its view equal, and clones of its bot decide alike on both views. The
    view's hand holds exactly the seat's faces and its public faces are the table's public faces.
    """
    options = sim_options(data.draw)
    length = Simulation(players, seed, seat_bots(bots, players), options).run().events
    sim = Simulation(players, seed, seat_bots(bots, players), options)
    rng = data.draw(st.randoms(use_true_random=True))
    for _ in range(rng.randrange(length)):  # uniform: every phase of the game gets its turn
        sim.step()
    engine, state, deck = sim.engine, sim.engine.state, sim.deck
    hypothesis.event(f"phase {state.phase}")
    for seat in range(players):
        view = engine.view(seat, deck.knowledge(state, seat))
        assert view.hand == tuple((t, deck.faces[t]) for t in state.hands[seat])
        assert view.faces == state.faces  # public faces only, and the true ones
        assert all(deck.faces[t] == face for t, face in view.faces.items())
        hidden = [t for t in deck.faces if t not in state.faces and t not in state.hands[seat]]
        faces = [deck.faces[t] for t in hidden]
        rng.shuffle(faces)
        other = OpenDeck()
        other.faces = {**deck.faces, **dict(zip(hidden, faces, strict=True))}
        other_view = engine.view(seat, other.knowledge(state, seat))
        assert other_view == view
        bot: Bot = sim.bots[seat]
        one, two = copy.deepcopy(bot), copy.deepcopy(bot)
        assert decide(view, one) == decide(other_view, two)
        assert one.memory == two.memory and one.rng.getstate() == two.rng.getstate()


# --- 4. game level ----------------------------------------------------------------------------------


@FAST
@given(
    players=players_st,
    rounds=st.integers(1, 3),
    seed=st.integers(0, 2**32),
    bots=st.sampled_from(STRATEGIES),
    options=st.fixed_dictionaries(
        {
            "suit_combos": st.booleans(),
            "flush_to": st.sampled_from(["bottom", "shuffle"]),
            "direction": st.sampled_from(["toward-queen-of-spades", "left", "right"]),
        }
    ),
)
def test_winners_have_the_fewest_kilos(
    players: int, rounds: int, seed: int, bots: str, options: dict[str, Any]
) -> None:
    """Game level (RULES 1.3): the winners are exactly the seats with the fewest kilos, kilos are never
    negative, every drawn card is a well-formed face, and the kilos follow from the draws (RULES 1.2.9:
    a 7 onto earlier kilos flushes them all, a first 7 counts 7).
    """
    result: SimResult = simulate(players, rounds, seed, bots, options)
    assert result.rounds == rounds
    kilos, draws = result.summary["kilos"], result.summary["draws"]
    assert kilos == result.scores and all(weight >= 0 for weight in kilos)
    assert result.winners == [seat for seat, weight in enumerate(kilos) if weight == min(kilos)]
    assert result.summary["winners"] == result.winners
    assert all(is_face(draw["card"]) for draw in draws)
    in_front: list[list[str]] = [[] for _ in range(players)]
    for draw in draws:
        flush = rank_of(draw["card"]) == "7" and bool(in_front[draw["seat"]])
        assert draw["flush"] == flush
        in_front[draw["seat"]] = [] if flush else [*in_front[draw["seat"]], draw["card"]]
    assert kilos == [sum(RANK_KILOS[rank_of(card)] for card in cards) for cards in in_front]
    hypothesis.event(f"flushes {min(2, sum(d['flush'] for d in draws))}")
