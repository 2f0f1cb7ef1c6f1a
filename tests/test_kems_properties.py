"""Property tests for Kem's (RULES 3, DESIGN 8): random event sequences and bots-only games.

A ``KemsDriver`` plays one Kem's table as a careless but honest outside world, like the base game's and
the variants' drivers: it fulfils the duties the table owes (seeds, hand checks, turned cards, shown
hands, the answer to a Contre) from an open deck, fires the quiet and close timers at random moments,
lets seeded Kem's bots act with random times (their private notes delivered straight to the partner),
slips in private notes no bot would send (to an opponent, or a new agreement), and throws in random
events of every Kem's kind, most of them illegal when they arrive.

After every applied event: every card of the deck lies in exactly one place (hands, talon, table, bin),
hands hold four except while a redrawn hand waits for its new cards, public faces are true, and every
seat's view is secret-safe (``SecrecyCheck``). After every refused event, nothing changed. The offered
events, through the wire codec, replay to the same digests; bots-only games repeat per seed and replay to
their digest.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import hypothesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kdm.agents import Bot
from kdm.cards import derive_seed, is_face
from kdm.deck import OpenDeck, PrivateNote
from kdm.engine import Duty, Effect, Engine, IllegalAction
from kdm.events import SEEDED_BY_KIND as SEEDED
from kdm.events import Event, TimedEvent
from kdm.manager import Rules
from kdm.plugins.kems.events import Call, Exchange, Gesture, Quiet, Say, ShowTwo, Sweep, SweepAnswer, Turn
from kdm.plugins.kems.rules import (
    BIN,
    CALLS,
    GESTURES,
    HAND,
    TABLE,
    TABLE_CARDS,
    TALON,
    deck_faces,
    is_four_of_a_kind,
    kems,
    team_of,
    team_seats,
)
from kdm.plugins.kems.view import KemsView
from kdm.plugins.kilo.events import Close, ShowHand
from kdm.sim import Simulation
from tests.helpers.properties import PHASES, assert_replays, examples, through_the_wire, times

KEMS = ("kems",)
MAX_ATTEMPTS = 220
#: Phases in which the table is in the hunt: four cards face up, four in every hand.
HUNT = ("hunt", "sweep", "refused", "calling", "showing", "answering")
PER_EXAMPLE = settings(
    max_examples=examples(8), deadline=None, phases=PHASES, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def kems_options(draw: st.DrawFn, players: int) -> dict[str, Any]:
    """Options of a short Kem's game: every option, a target of one or two points."""
    options: dict[str, Any] = {
        "target": draw(st.integers(1, 2)),
        "signs": draw(st.sampled_from(["one", "multi"])),
        "spoken": draw(st.booleans()),
        "sweep_after_ms": draw(st.sampled_from([0, 150, 3000])),
        "call_window_ms": draw(st.sampled_from([0, 100, 400])),
    }
    if players <= 6:  # 32 cards leave too few beside eight hands
        options["deck"] = draw(st.sampled_from(["52", "32"]))
    return options


players_st = st.sampled_from([4, 6, 8])


def seat_bots(bots: list[Bot], data: st.DataObject) -> None:
    """Each bot signs ``fixed`` or ``vary`` and watches the opponents or not (``kdm.plugins.kems.bots``)."""
    for bot in bots:
        bot.memory["kems_signs"] = data.draw(st.sampled_from(["fixed", "vary"]), label="signs")
        bot.memory["kems_watch"] = data.draw(st.booleans(), label="watch")


# --- what a seat may know ---------------------------------------------------------------------------


def faces_in(value: Any, found: set[str]) -> set[str]:
    """Adds to ``found`` every card face written anywhere in ``value`` (a view part: dataclass fields,
    tuples, dicts, strings), and returns it."""
    kind = type(value)
    if kind is str:
        if is_face(value):
            found.add(value)
    elif kind in (tuple, list, set, frozenset):
        for item in value:
            if type(item) is not int:
                faces_in(item, found)
    elif kind is dict:
        for key, item in value.items():
            faces_in(key, found)
            faces_in(item, found)
    elif hasattr(value, "__dataclass_fields__"):
        for name in value.__dataclass_fields__:
            if name != "chat":  # what players say is theirs to say, cards or not
                faces_in(getattr(value, name), found)
    return found


def agreed_signs(deck: OpenDeck, team: int, players: int, deal: int) -> tuple[tuple[str, ...], str | None]:
    """What the two partners of ``team`` last agreed between themselves, as it holds at ``deal``: signs
    (their rotation's turn, when they agreed one) and pre-sign."""
    partners = set(team_seats(team, players))
    notes = [note for note in deck.notes.get(min(partners), []) if {note.sender, note.to} == partners]
    if not notes:
        return (), None
    data = notes[-1].data
    rotation = data.get("rotation") or []
    signs = rotation[(deal - 1) % len(rotation)] if rotation and deal >= 1 else data["signs"]
    return tuple(signs), data["presign"]


class SecrecyCheck:
    """Checks every seat's view against the truth: the open deck, the faces shown to one seat this deal
    (from ``shown_privately`` effects) and the notes between partners."""

    def __init__(self) -> None:
        #: seat → (shown by, token) this deal.
        self.shown: dict[int, list[tuple[int, int]]] = {}

    def observe(self, effects: list[Effect]) -> None:
        for effect in effects:
            if effect["kind"] == "dealt":
                self.shown.clear()
            elif effect["kind"] == "shown_privately":
                for token in effect["tokens"]:
                    self.shown.setdefault(effect["to"], []).append((effect["by"], token))

    def check(self, engine: Engine, deck: OpenDeck) -> None:
        state = engine.state
        public = state.faces
        players = state.players
        agreed = [agreed_signs(deck, team, players, kems(state).deals) for team in range(players // 2)]
        for seat in range(players):
            view = engine.view(seat, deck.knowledge(state, seat))
            own = {deck.faces[t] for t in state.hands[seat]}
            shown = [(by, deck.faces[t]) for by, t in self.shown.get(seat, []) if t in deck.faces]
            allowed = set(public.values()) | own | {face for _by, face in shown}
            assert [t for t, _face in view.hand] == state.hands[seat]
            assert all(face == deck.faces[t] for t, face in view.hand), "a seat knows its own cards"
            assert dict(view.faces) == public, "the view's faces are the public ones"
            part = view.rules["kems"]
            assert isinstance(part, KemsView)
            leaked = sorted(faces_in(part, set()) - allowed)
            assert not leaked, f"seat {seat} sees {leaked}, neither public, its own nor shown to it"
            assert part.table == tuple((t, public[t]) for t in state.zones[TABLE])
            for hand, faces in zip(state.hands, part.public_hands, strict=True):
                assert faces == tuple(public.get(t) for t in hand)
            assert Counter(part.shown_to_me) == Counter(shown), f"seat {seat}: cards shown to it"
            team = team_of(seat, players)
            signs, presign = agreed[team]
            assert (part.signs, part.presign) == (signs, presign), f"seat {seat} holds someone's signs"
            for other, (their_signs, their_presign) in enumerate(agreed):
                if other != team and (their_signs, their_presign) != (signs, presign):
                    assert (part.signs, part.presign) != (their_signs, their_presign), (
                        f"seat {seat} holds team {other}'s signs"
                    )


def check_cards(engine: Engine, deck: OpenDeck) -> None:
    """Every card of the deal in exactly one place; hands of four; public faces true; team scores."""
    state = engine.state
    live = [t for hand in state.hands for t in hand] + [t for zone in state.zones.values() for t in zone]
    assert len(live) == len(set(live)), "a token lies in two places"
    assert sorted(state.zones) == sorted((TALON, TABLE, BIN))
    if state.phase == "setup" or not any(state.hands):
        assert not live
        return
    pool = deck_faces(state.options)
    assert len(live) == len(pool)
    assert Counter(deck.faces[t] for t in live) == Counter(pool), "cards lost or duplicated"
    assert all(deck.faces.get(t) == face for t, face in state.faces.items()), "a public face is false"
    data = kems(state)
    sizes = [len(hand) for hand in state.hands]
    expected = [HAND] * state.players
    if state.phase == "reshuffling" and data.redraw is not None:
        seat, count = data.redraw
        expected[seat] = HAND - count  # the three or four put back wait for the talon's shuffle
    assert sizes == expected, (state.phase, sizes)
    if state.phase in HUNT:
        assert len(state.zones[TABLE]) == TABLE_CARDS
    for seat in range(state.players):
        assert state.scores[seat] == data.team_scores[team_of(seat, state.players)]


# --- the random driver ------------------------------------------------------------------------------


class KemsDriver:
    """One Kem's table driven by hypothesis: honest reveals, bots, notes and random events."""

    def __init__(self, data: st.DataObject, players: int, options: dict[str, Any]) -> None:
        self.data, self.players = data, players
        self.rules = Rules.for_table(KEMS)
        self.engine = Engine(self.rules, players, options)
        self.deck = OpenDeck()
        self.secrecy = SecrecyCheck()
        self.seed = data.draw(st.binary(max_size=8), label="seed")
        self.bots = [Bot(seat, "greedy", self.seed) for seat in range(players)]
        seat_bots(self.bots, data)
        self.attempts: list[tuple[Event, bool, str, list[Effect]]] = []
        self.digest = self.engine.digest()
        self.reveal = self.rules.caller("kdm_reveal")
        self.check()

    @property
    def state(self) -> Any:
        return self.engine.state

    def check(self) -> None:
        check_cards(self.engine, self.deck)
        self.secrecy.check(self.engine, self.deck)

    def offer(self, event: Event) -> None:
        try:
            effects = self.engine.apply(event)
        except IllegalAction:
            assert self.engine.digest() == self.digest, f"refused {event} changed the state"
            self.attempts.append((event, False, self.digest, []))
            return
        self.deck.observe(effects)
        self.secrecy.observe(effects)
        self.digest = self.engine.digest()
        self.attempts.append((event, True, self.digest, effects))
        for effect in effects:
            hypothesis.event(str(effect["kind"]))
        self.check()

    def note(self, note: PrivateNote) -> None:
        self.deck.note(note)
        self.check()

    def play(self) -> None:
        draw = self.data.draw
        while not self.engine.over and len(self.attempts) < MAX_ATTEMPTS:
            duties = self.engine.awaiting()
            # A seat's decision with a deadline (the accused's cards, a refuser's exchange) is the seat's
            # to fulfil, chosen or as the table would when time is up; the rest with a time are timers.
            now = [duty for duty in duties if duty.after_ms is None or duty.seat is not None]
            timers = [duty for duty in duties if duty.after_ms is not None and duty.seat is None]
            choice = draw(
                st.sampled_from(["duty"] * 4 + ["bot"] * 8 + ["timer", "timer", "junk", "note", "guess"]),
                label="action",
            )
            if now and choice not in ("junk", "note"):
                self.offer(self.fulfil(now[0]))
            elif (choice == "timer" or (choice == "duty" and self.state.phase == "signing")) and timers:
                # While the teams agree their signs nothing is owed but time: the table may move on.
                self.offer(self.rules.codec.decode({"kind": draw(st.sampled_from(timers)).kind}))
            elif choice in ("bot", "duty"):
                self.bot_move()
            elif choice == "note":
                self.note(self.junk_note())
            elif choice == "guess":
                self.offer(self.guess())
            else:
                self.offer(self.junk())

    def fulfil(self, duty: Duty) -> Event:
        """What the table owes now, told truthfully; a wrongly accused seat shows any two of its cards."""
        seeded = SEEDED.get(duty.kind)
        if seeded is not None:
            return seeded(seed=derive_seed(self.seed, duty.kind, self.state.seq))
        if duty.kind == "answer_contre" and duty.seat is not None and self.data.draw(st.booleans()):
            hand = self.state.hands[duty.seat]
            if not is_four_of_a_kind([self.deck.faces[t] for t in hand]):
                two = self.data.draw(st.lists(st.sampled_from(hand), min_size=2, max_size=2, unique=True))
                return ShowTwo(seat=duty.seat, tokens=tuple(two))
        event = self.deck.fulfil(duty, self.state, self.engine.rules.caller("kdm_reveal")) or self.reveal(
            duty=duty, state=self.state, faces=self.deck.faces
        )
        assert event is not None, f"nothing fulfils {duty}"
        return event

    def bot_move(self) -> None:
        seat = self.data.draw(st.integers(0, self.players - 1), label="bot seat")
        view = self.engine.view(seat, self.deck.knowledge(self.state, seat))
        decision = self.rules.caller("kdm_bot_decide")(view=view, bot=self.bots[seat])
        if decision is None:
            return
        event = decision.event
        if isinstance(event, PrivateNote):
            self.note(event)
            return
        if isinstance(event, TimedEvent):
            event = replace(
                event, t_sync=self.data.draw(times), rt=self.data.draw(st.none() | times.map(abs))
            )
        self.offer(event)

    def guess(self) -> Call:
        """A player who thinks an opponent holds a Kem's: Contre Kem's (a failed one shows two cards)."""
        seat = self.data.draw(st.integers(0, self.players - 1), label="guesser")
        opponents = [
            s for s in range(self.players) if team_of(s, self.players) != team_of(seat, self.players)
        ]
        target = self.data.draw(st.sampled_from(opponents), label="accused")
        return Call(seat=seat, t_sync=self.data.draw(times), call="contre", target=target)

    def junk_note(self) -> PrivateNote:
        """A note no bot would send: to an opponent, or a new agreement between partners."""
        draw = self.data.draw
        sender = draw(st.integers(0, self.players - 1), label="note from")
        to = draw(st.integers(0, self.players - 1).filter(lambda seat: seat != sender), label="note to")
        signs = draw(st.lists(st.sampled_from(GESTURES), min_size=1, max_size=3, unique=True))
        presign = draw(st.none() | st.sampled_from(GESTURES))
        return PrivateNote(sender, to, {"signs": signs, "presign": presign, "deal": kems(self.state).deals})

    def junk(self) -> Event:
        """An event of any Kem's kind with random fields (faces told truthfully): probably illegal now."""
        draw, state, faces = self.data.draw, self.state, self.deck.faces
        seat = draw(st.integers(-1, self.players), label="junk seat")
        hand = list(state.hands[seat]) if 0 <= seat < self.players and state.hands else []
        tokens = st.sampled_from(hand) if hand else st.integers(-1, 300)
        on_table = state.zones.get(TABLE) or []
        table_tokens = st.sampled_from(on_table) | st.integers(-1, 300) if on_table else st.integers(-1, 300)
        kind = draw(st.sampled_from(
            [Exchange, Sweep, SweepAnswer, Gesture, Say, Call, ShowTwo, ShowHand, Turn, Close, Quiet]
        ), label="junk kind")  # fmt: skip
        if kind is Exchange:
            give = tuple(draw(st.lists(tokens, min_size=0, max_size=5)))
            take = tuple(draw(st.lists(table_tokens, min_size=0, max_size=5)))
            return Exchange(seat=seat, give=give, cards=tuple(faces.get(t, "2S") for t in give), take=take)
        if kind is Sweep:
            return Sweep(seat=seat)
        if kind is SweepAnswer:
            return SweepAnswer(seat=seat, accept=draw(st.booleans()))
        if kind is Gesture:
            gesture = draw(st.sampled_from([*GESTURES, "dance"]))
            return Gesture(seat=seat, t_sync=draw(times), gesture=gesture)
        if kind is Say:
            return Say(seat=seat, text=draw(st.sampled_from(["KH", "Kem's?", "", " ", "x" * 201, "\x07"])))
        if kind is Call:
            call = draw(st.sampled_from([*CALLS, "bluff"]))
            target = draw(st.integers(-1, self.players))
            return Call(seat=seat, t_sync=draw(times), call=call, target=target)
        if kind is ShowTwo:
            shown = tuple(draw(st.lists(tokens, min_size=0, max_size=3)))
            if len(hand) == HAND and is_four_of_a_kind([faces[t] for t in hand]):
                shown = shown[:1]  # a Kem's is never answered with two cards: that would be a lie
            return ShowTwo(seat=seat, tokens=shown)
        if kind is ShowHand:
            return ShowHand(seat=seat, tokens=tuple(hand), cards=tuple(faces[t] for t in hand))
        if kind is Turn:
            turned = tuple(draw(st.lists(st.integers(-1, 300), max_size=4)))
            return Turn(seat=seat, tokens=turned, cards=tuple(faces.get(t, "2S") for t in turned))
        return kind()  # type: ignore[no-any-return]


# --- the properties ---------------------------------------------------------------------------------


@PER_EXAMPLE
@given(players=players_st, data=st.data())
def test_kems_tables_conserve_cards_keep_secrets_and_replay_to_the_same_digests(
    players: int, data: st.DataObject
) -> None:
    """RULES 3 under random play: cards conserved, views secret-safe, refusals atomic, and the log,
    through the wire codec, replays to the same digest after every event."""
    options = data.draw(kems_options(players), label="options")
    driver = KemsDriver(data, players, options)
    driver.play()
    assert_replays(Rules.for_table(KEMS), players, options, driver.attempts)


@settings(max_examples=examples(10), deadline=None, phases=PHASES)
@given(players=players_st, seed=st.integers(0, 2**32), data=st.data())
def test_kems_simulations_keep_secrets_repeat_and_replay(
    players: int, seed: int, data: st.DataObject
) -> None:
    """Bots play Kem's to the end: every seat's view is secret-safe at every event, the same arguments
    give the same game, and its logged events replay through the wire to the game's digest."""
    options = data.draw(kems_options(players), label="options")
    log: list[Event] = []
    first = Simulation(players, seed, "greedy", options, KEMS)
    seat_bots(first.bots, data)
    secrecy = SecrecyCheck()

    def listen(_now: float, event: Event, effects: list[Effect]) -> None:
        log.append(event)
        secrecy.observe(effects)
        check_cards(first.engine, first.deck)
        secrecy.check(first.engine, first.deck)

    result = first.run(listen)
    second = Simulation(players, seed, "greedy", options, KEMS)
    for bot, twin in zip(first.bots, second.bots, strict=True):
        twin.memory.update({key: bot.memory[key] for key in ("kems_signs", "kems_watch")})
    again = second.run()
    result_json, again_json = result.as_json(), again.as_json()
    result_json.pop("seconds"), again_json.pop("seconds")
    assert result_json == again_json
    assert max(kems(first.engine.state).team_scores) >= options["target"]
    rules = Rules.for_table(KEMS)
    engine = Engine(rules, players, options)
    for event in log:
        engine.apply(through_the_wire(rules, event))
    assert engine.digest() == result.digest
