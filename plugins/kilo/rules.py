"""Base Kilo de merde (RULES 1) as the first built-in plugin.

Owns the round's life: the persistent pile, the deal and the queens' calls, sequential passing and the
checkpoint, slap windows judged by effective time, draws, the 7's flush, round and game end. Its public
data lives in ``state.rules["kilo"]`` (a ``KiloTable``). Variants change it through the finer hooks
(``kdm_is_combo``, ``kdm_judge_window``, ``kdm_draw``...) or by wrapping ``kdm_apply``.

Phases: ``setup`` → ``dealing`` → ``announcing`` → ``passing`` ⇄ ``window`` → ``judging`` (the first
slapper shows their hand, only when the window opened at a checkpoint) → ``drawing`` (→ ``shuffling``
after a flush with ``flush_to=shuffle``) → ``dealing`` for the next round (through ``resting`` at a
table of people), or ``over``.

People's pace: where a person sits (``TableState.people``), a checkpoint holds ``checkpoint_ms``
before the next pass (``KiloTable.hold``) and a round's result stays ``round_pause_ms`` on screen
before the next deal (``resting``); both end with a ``Resume`` the leader proposes when its table
timer is up, so every peer agrees on them. A bots-only table has neither.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from kdm.cards import RANK_OF, SUIT_OF, faces_of_ranks, full_deck, is_face, rank_of
from kdm.deck import Knowledge
from kdm.effects import Shuffled
from kdm.engine import MIN_REACTION_OPTION, Duty, Engine, Handlers, IllegalAction
from kdm.engine import effective_time as engine_effective_time
from kdm.events import Deal, Event, Shuffle, StartGame, TimedEvent, Withheld
from kdm.hookspecs import hookimpl
from kdm.options import OptionWords, TableOption
from kdm.plugins.kilo.effects import (
    Announced,
    Drew,
    HandShown,
    HoldOver,
    Judged,
    KiloEffect,
    Passed,
    PassingStarted,
    Rested,
    Slapped,
)
from kdm.plugins.kilo.events import EVENTS, Announce, Close, Draw, Feint, Pass, Resume, ShowHand, Slap
from kdm.state import TableState
from kdm.window import race, tiebreaks

NAME = "kilo"
MIN_PLAYERS, MAX_PLAYERS = 3, 10
HAND = 4
LEFT, RIGHT = 1, -1
QUEEN_OF_HEARTS, QUEEN_OF_SPADES = "QH", "QS"
PILE = "pile"

#: Kilos of each rank (RULES 1.1). Jokers are valued by the ``jokers`` variant.
RANK_KILOS: dict[str, int] = {
    **{str(n): n for n in range(2, 11)},
    "J": 11,
    "Q": 12,
    "K": 13,
    "A": 100,
}

#: RULES 1.1: the ranks dealt for each number of players.
DEALT_RANKS: dict[int, tuple[str, ...]] = {
    n: ("K", "Q", "J", "2", "3", "4", "5", "6", "8", "9")[:n] for n in range(3, 11)
}


@dataclass
class Window:
    """A slap window: opened by the first committed slap, closed when complete or timed out.

    ``slaps`` lists ``(seat, effective time, seq)`` in commit order. ``checkpoint`` records whether
    every hand held 4 cards when the window opened; when it did not, ``mistake`` says why it was
    opened all the same, as people would: ``feint`` (a feint came since the last pass), ``late`` (the
    pass that ended a checkpoint was the last one), else ``not_four``.
    """

    opened_by: int
    checkpoint: bool
    mistake: str = ""
    slaps: list[tuple[int, float, int]] = field(default_factory=list)
    closed: bool = False

    def slapped(self, seat: int) -> bool:
        return any(s == seat for s, _eff, _seq in self.slaps)


@dataclass
class KiloTable:
    """The base game's public data: game-wide fields (kept by each deal), then this round's."""

    dealt: list[str] = field(default_factory=list)
    starter: int | None = None
    direction: int = LEFT
    checkpoint: bool = False
    to_announce: list[str] = field(default_factory=list)
    holders: dict[str, int] = field(default_factory=dict)
    tiebreak: list[bytes] = field(default_factory=list)
    #: seq of every slap and feint this round → its effective time (what a later ``trigger`` names).
    reactions: dict[int, float] = field(default_factory=dict)
    last_feint: int | None = None
    last_feint_seat: int | None = None
    window: Window | None = None
    passes: int = 0
    #: The seq of the latest pass, and of the pass that ended the latest checkpoint (a slap's reason).
    last_pass: int = 0
    left_checkpoint: int | None = None
    #: The faces in front of each seat, kept with every draw for cheap views.
    shown_kilos: tuple[tuple[str, ...], ...] = ()
    ordered: list[tuple[int, float]] = field(default_factory=list)
    losers: list[int] = field(default_factory=list)
    windows: int = 0
    #: The pile zones, top card last in each (one unless a variant splits the pile); game-wide.
    piles: tuple[str, ...] = (PILE,)
    #: The pile the latest draw came from: a flush goes back under it.
    drawn_from: str = PILE
    #: Seats that may not open a window for the rest of the round (a variant bars them).
    barred: list[int] = field(default_factory=list)
    #: The seq at which passing last (re)started, so a variant's passing timer can restart with it.
    passing_since: int = 0
    #: Every draw of the game, public as it happened: ``(round, seat, card, flushed)``.
    draws: list[tuple[int, int, str, bool]] = field(default_factory=list)
    #: Kilos each seat was charged for holding a fair deck's round up (RULES 1.4), by seat; game-wide,
    #: kept apart from the cards in front of it (no 7 flushes them).
    charged: dict[int, int] = field(default_factory=dict)
    #: At a table of people, the seq at which the pause began: the checkpoint being held (no pass
    #: until its ``Resume``), or the rest after the round (None: no pause).
    hold: int | None = None


def table(state: TableState) -> KiloTable:
    """The base game's data of a table."""
    data: KiloTable = state.rules[NAME]
    return data


def kilos_zone(seat: int) -> str:
    return f"kilos/{seat}"


def weight(engine: Engine, card: str) -> int | None:
    """What ``card`` weighs at this table (``kdm_card_kilos``), or None if no plugin weighs it."""
    kilos: int | None = engine.rules.caller("kdm_card_kilos")(card=card, options=engine.state.options)
    return kilos


# --- set-up ---------------------------------------------------------------------------------------


@hookimpl
def kdm_event_types() -> list[type[Event]]:
    return list(EVENTS)


@hookimpl
def kdm_table_options() -> list[TableOption]:
    return [
        TableOption("direction", str, "toward-queen-of-spades",
                    "passing direction: toward the Queen of spades' holder (ties go left), or fixed",
                    choices=("toward-queen-of-spades", "left", "right"),
                    french=OptionWords("sens du passage",
                                       "vers qui tient la dame de pique (à égalité, à gauche), ou fixe",
                                       (("toward-queen-of-spades", "vers la dame de pique"),
                                        ("left", "à gauche"), ("right", "à droite")))),
        TableOption("suit_combos", bool, True, "four cards of one suit are a combo too",
                    french=OptionWords("couleurs", "quatre cartes d'une couleur font aussi une combinaison")),
        TableOption("slap_timeout_ms", int, 4000, "a slap window closes this long after it opened",
                    minimum=100, maximum=60000,
                    french=OptionWords("fin des tapes (ms)",
                                       "une fenêtre de tapes se ferme ce délai après son ouverture")),
        MIN_REACTION_OPTION,
        TableOption("flush_to", str, "bottom",
                    "where a flush puts the kilos and the 7: under the pile, or shuffled into it",
                    choices=("bottom", "shuffle"),
                    french=OptionWords("la chasse va",
                                       "où la chasse met les kilos et le 7 : sous le tas, ou mélangés dedans",
                                       (("bottom", "sous le tas"), ("shuffle", "mélangée au tas")))),
        TableOption("rounds", int, 10, "rounds to play, or 'pile' to play until the pile is empty",
                    minimum=1, maximum=100000, words=("pile",),
                    french=OptionWords("manches",
                                       "manches à jouer, ou jusqu'au tas vide (rounds=pile)",
                                       (("pile", "jusqu'au tas vide"),))),
        TableOption("max_rounds", int, 500,
                    "with rounds=pile, stop after this many rounds (3 players can never empty it)",
                    minimum=1, maximum=100000,
                    french=OptionWords("manches au plus",
                                       "avec rounds=pile, on s'arrête après tant de manches"
                                       " (à 3 joueurs, le tas ne se vide jamais)")),
        TableOption("checkpoint_ms", int, 1500,
                    "where a person sits, a checkpoint holds this long before the next pass",
                    minimum=0, maximum=60000,
                    french=OptionWords("pause au point de contrôle",
                                       "s'il y a une personne à la table, tout le monde à 4 tient ce temps"
                                       " (ms) avant la passe suivante")),
        TableOption("round_pause_ms", int, 3000,
                    "where a person sits, a round's result stays this long on screen before the next deal",
                    minimum=0, maximum=60000,
                    french=OptionWords("pause entre les manches",
                                       "s'il y a une personne à la table, le résultat d'une manche reste"
                                       " ce temps (ms) à l'écran avant la donne suivante")),
    ]  # fmt: skip


@hookimpl
def kdm_check_table(players: int, options: dict[str, Any], plugins: list[str]) -> str | None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        return f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}"
    return None


@hookimpl
def kdm_setup_table(state: TableState) -> None:
    state.rules[NAME] = KiloTable()


@hookimpl
def kdm_pile_zones(players: int, options: dict[str, Any]) -> list[str]:
    return [PILE]


@hookimpl
def kdm_deck(players: int, options: dict[str, Any]) -> tuple[list[str], list[str]]:
    dealt = faces_of_ranks(DEALT_RANKS[players])
    return dealt, [card for card in full_deck() if card not in set(dealt)]


@hookimpl
def kdm_card_kilos(card: str, options: dict[str, Any]) -> int | None:
    return RANK_KILOS.get(rank_of(card))  # None for a joker: only the jokers variant weighs them


@hookimpl
def kdm_is_combo(cards: list[str], options: dict[str, Any]) -> bool:
    return is_combo(cards, options.get("suit_combos", True))


def is_combo(cards: list[str], suit_combos: bool) -> bool:
    """Four cards of one rank, or (with ``suit_combos``) of one suit (RULES 1.2.5)."""
    if len(cards) != HAND:
        return False
    first, second, third, fourth = cards  # looked up, not counted in sets: every bot asks at every look
    if RANK_OF[first] == RANK_OF[second] == RANK_OF[third] == RANK_OF[fourth]:
        return True
    return suit_combos and SUIT_OF[first] == SUIT_OF[second] == SUIT_OF[third] == SUIT_OF[fourth]


# --- the event loop -------------------------------------------------------------------------------


#: Phases in which only the table acts, whatever the variants: the deal, the queens' calls, the first
#: slapper's hand shown. An event that leaves the table in one wakes no bot (passing_started wakes them
#: all). Drawing is not one: a variant may ask the loser a question then (piles: which pile).
TABLE_PHASES = frozenset({"dealing", "announcing", "judging", "resting"})


#: The handlers of this plugin's events, by event class (``kdm_apply`` calls the one for an event).
HANDLERS: Handlers[list[KiloEffect]] = Handlers()


@hookimpl
def kdm_apply(engine: Engine, event: Event) -> list[KiloEffect] | None:
    effects = HANDLERS.apply(engine, event)
    if effects is None:
        return None
    if engine.state.phase in TABLE_PHASES:
        for effect in effects:
            effect.setdefault("wake", ())
    return effects


@HANDLERS.on(StartGame)
def _start_game(engine: Engine, event: StartGame) -> list[KiloEffect]:
    state = engine.state
    _expect(state, "setup", "the game has already started")
    dealt, pile_cards = engine.rules.caller("kdm_deck")(players=state.players, options=state.options)
    tokens = state.new_tokens(len(pile_cards))
    piles: list[str] = engine.rules.caller("kdm_pile_zones")(players=state.players, options=state.options)
    # Cut the shuffled pile into as many piles as asked, in contiguous runs whose sizes differ by one
    # at most; the effects outlive this event, so no zone shares the effect's list.
    for index, name in enumerate(piles):
        state.zones[name] = tokens[
            len(tokens) * index // len(piles) : len(tokens) * (index + 1) // len(piles)
        ]
    for seat in range(state.players):
        state.zones[kilos_zone(seat)] = []
    table(state).dealt = dealt
    table(state).piles = tuple(piles)
    table(state).drawn_from = piles[0]
    table(state).shown_kilos = ((),) * state.players
    state.phase = "dealing"
    return [
        {"kind": "shuffled", "zone": PILE, "tokens": tokens, "pool": pile_cards, "seed": event.seed},
        {
            "kind": "game_started",
            "players": state.players,
            "pile": len(tokens),
            "rounds": state.options["rounds"],
            "max_rounds": state.options["max_rounds"],
        },
    ]


@HANDLERS.on(Deal)
def _deal(engine: Engine, event: Deal) -> list[KiloEffect]:
    state = engine.state
    _expect(state, "dealing", "cards are dealt only between rounds")
    kilo = table(state)
    tokens = state.new_tokens(len(kilo.dealt))
    for seat in range(state.players):
        state.hands[seat] = tokens[seat * HAND : (seat + 1) * HAND]
    state.round += 1
    state.turn = None
    fresh = KiloTable(
        dealt=kilo.dealt,
        shown_kilos=kilo.shown_kilos,
        piles=kilo.piles,
        drawn_from=kilo.drawn_from,
        draws=kilo.draws,
        charged=kilo.charged,
    )
    fresh.tiebreak = tiebreaks(event.seed, state.players)
    fresh.to_announce = [QUEEN_OF_HEARTS]
    if state.options["direction"] == "toward-queen-of-spades":
        fresh.to_announce.append(QUEEN_OF_SPADES)
    state.rules[NAME] = fresh
    state.phase = "announcing"
    return [
        {"kind": "shuffled", "zone": "hands", "tokens": tokens, "pool": kilo.dealt, "seed": event.seed},
        {"kind": "dealt", "round": state.round},
    ]


@HANDLERS.on(Announce)
def _announce(engine: Engine, event: Announce) -> list[KiloEffect]:
    state = engine.state
    _expect(state, "announcing", "the queens are called only at the start of a round")
    kilo = table(state)
    if event.card not in kilo.to_announce:
        raise IllegalAction(f"{event.card} is not being called now")
    _check_seat(state, event.seat)
    kilo.to_announce.remove(event.card)
    kilo.holders[event.card] = event.seat
    announced: Announced = {"kind": "announced", "seat": event.seat, "card": event.card}
    if kilo.to_announce:
        announced["wake"] = ()  # the next queen is a duty too: no bot has anything to decide yet
        return [announced]
    return [announced, _begin_passing(engine, kilo)]


def _begin_passing(engine: Engine, kilo: KiloTable) -> PassingStarted:
    state = engine.state
    starter = kilo.holders[QUEEN_OF_HEARTS]
    kilo.starter = starter
    kilo.direction = passing_direction(
        state.options["direction"], state.players, starter, kilo.holders.get(QUEEN_OF_SPADES)
    )
    kilo.checkpoint = True
    kilo.passing_since = state.seq
    state.turn = starter
    state.phase = "passing"
    engine.rules.caller("kdm_passing_started")(state=state)
    if state.turn is not None and state.people:  # passing in turn (all at once has its own GO)
        hold_checkpoint(state, kilo)
    return {"kind": "passing_started", "round": state.round, "starter": starter,
            "direction": "left" if kilo.direction == LEFT else "right"}  # fmt: skip


def hold_checkpoint(state: TableState, kilo: KiloTable) -> None:
    """At a table of people, hold the checkpoint just reached for ``checkpoint_ms`` (no pass until its
    ``Resume``): everyone holds four, and a person needs the time to see it and slap."""
    if state.people and state.options["checkpoint_ms"] > 0:
        kilo.hold = state.seq


def passing_direction(rule: str, players: int, starter: int, spades: int | None) -> int:
    """RULES 1.2.3: toward the Queen of spades in fewer passes; a tie or both queens go left."""
    if rule == "left":
        return LEFT
    if rule == "right":
        return RIGHT
    assert spades is not None
    going_left = (spades - starter) % players
    going_right = (starter - spades) % players
    return RIGHT if going_right < going_left else LEFT


@HANDLERS.on(Pass)
def _pass(engine: Engine, event: Pass) -> list[KiloEffect]:
    state = engine.state
    _expect(state, "passing", "no passing now")
    if event.seat != state.turn:
        raise IllegalAction(f"it is seat {state.turn}'s turn to pass, not seat {event.seat}'s")
    kilo = table(state)
    if kilo.hold is not None:
        raise IllegalAction(f"the checkpoint holds {state.options['checkpoint_ms']} ms: pass once it is over")
    hand = state.hands[event.seat]
    if event.token not in hand:
        raise IllegalAction(f"seat {event.seat} does not hold card {event.token}")
    receiver = (event.seat + kilo.direction) % state.players
    hand.remove(event.token)
    state.hands[receiver].append(event.token)
    state.turn = receiver
    kilo.passes += 1
    kilo.last_pass = state.seq
    # Sequential passing: every hand holds 4 exactly when the turn is back with the starter.
    was_checkpoint, kilo.checkpoint = kilo.checkpoint, receiver == kilo.starter
    if was_checkpoint and not kilo.checkpoint:
        kilo.left_checkpoint = state.seq
    if kilo.checkpoint and state.people:
        hold_checkpoint(state, kilo)
    effect: Passed = {"kind": "passed", "seat": event.seat, "to": receiver, "token": event.token,
                      "checkpoint": kilo.checkpoint}  # fmt: skip
    if not kilo.checkpoint:
        # Only the receiver has something new to think about (a card, and the turn). Leaving a
        # checkpoint concerns every seat that planned something too (a slap would now be false);
        # reaching one concerns every seat (any may hold a combo now), as an effect without hint.
        effect["wake"] = (receiver,)
        if was_checkpoint:
            effect["replan"] = True
    return [effect]


def effective_time(state: TableState, event: TimedEvent) -> float:
    """DESIGN 5.6, against this round's slaps and feints."""
    return engine_effective_time(table(state).reactions, event, state.options.get("min_reaction_ms", 0))


@HANDLERS.on(Slap)
def _slap(engine: Engine, event: Slap) -> list[KiloEffect]:
    if event.round:  # a person's press, which names its round
        check_fresh(engine.state, event.round, event.trigger)
    return slap(engine, event)


def slap(engine: Engine, event: TimedEvent) -> list[KiloEffect]:
    """A slap (or a variant's equivalent gesture, such as a spoon grab): opens a window or joins it.

    Variants whose gesture is not a slap call this with their own event, and give the ``slapped``
    effect their own kind (a ``Slapping`` record of their own, as ``spoons`` does).
    """
    state = engine.state
    kilo = table(state)
    window = kilo.window
    if state.phase == "passing":
        window = None
    elif state.phase != "window" or window is None:
        raise IllegalAction("no slapping now: the window is being judged or the round is over")
    _check_seat(state, event.seat)
    if window is not None and window.slapped(event.seat):
        raise IllegalAction(f"seat {event.seat} has already slapped")
    if window is None and event.seat in kilo.barred:
        raise IllegalAction(f"seat {event.seat} may not open a window again this round")
    eff = effective_time(state, event)
    opened = window is None
    if window is None:
        window = kilo.window = Window(state.seq, kilo.checkpoint, "" if kilo.checkpoint else _mistake(kilo))
        state.phase = "window"
    window.slaps.append((event.seat, eff, state.seq))
    kilo.reactions[state.seq] = eff
    effect: Slapped = {"kind": "slapped", "seat": event.seat, "seq": state.seq, "effective": eff,
                       "opened": opened}  # fmt: skip
    if opened:
        effect["close_after_ms"] = state.options["slap_timeout_ms"]
    else:
        # Joining an open window: the others' reactions to its opening stand; only the slapper's
        # plan was used up.
        effect["wake"] = (event.seat,)
    effects: list[KiloEffect] = [effect]
    if engine.rules.caller("kdm_window_complete")(state=state, window=window):
        effects += _close_window(engine)
    return effects


def check_fresh(state: TableState, made_in: int, trigger: int | None) -> None:
    """A press that names its round (``made_in``: a person's) counts only in that round, and only while
    what it answers (``trigger``) is still open: a late press for a window that has closed is refused,
    never taken as a false slap of what came next. A variant's own press may call this too."""
    if made_in != state.round:
        raise IllegalAction(f"this slap was made in round {made_in}, which is over")
    if trigger is not None and trigger < table(state).passing_since:
        raise IllegalAction("this slap answered a window that has closed")


def _mistake(kilo: KiloTable) -> str:
    """Why a window opened when not every hand held 4 (``Window.mistake``)."""
    since = max(kilo.last_pass, kilo.passing_since)
    if kilo.last_feint is not None and kilo.last_feint > since:
        return "feint"
    if kilo.left_checkpoint is not None and kilo.left_checkpoint == kilo.last_pass:
        return "late"
    return "not_four"


@HANDLERS.on(Feint)
def _feint(engine: Engine, event: Feint) -> list[KiloEffect]:
    state = engine.state
    _expect(state, ("passing", "window"), "no feinting now")
    _check_seat(state, event.seat)
    kilo = table(state)
    kilo.reactions[state.seq] = effective_time(state, event)
    kilo.last_feint = state.seq
    kilo.last_feint_seat = event.seat
    return [{"kind": "feinted", "seat": event.seat, "seq": state.seq}]


@HANDLERS.on(Close)
def _close(engine: Engine, event: Close) -> list[KiloEffect]:
    _expect(engine.state, "window", "no window is open")
    return _close_window(engine)


@hookimpl
def kdm_window_complete(state: TableState, window: Window) -> bool:
    return len(window.slaps) == state.players


def _close_window(engine: Engine) -> list[KiloEffect]:
    state = engine.state
    kilo = table(state)
    window = kilo.window
    assert window is not None
    window.closed = True
    raced = race(window.slaps, lambda slap: slap[0], lambda slap: slap[1], kilo.tiebreak)
    kilo.ordered = [(seat, eff) for seat, eff, _seq in raced]
    effects: list[KiloEffect] = [{"kind": "window_closed", "order": list(kilo.ordered)}]
    if window.checkpoint:
        state.phase = "judging"  # the first slapper must show a combo
        return effects
    return effects + _judge(engine, combo=False)


@HANDLERS.on(ShowHand)
def _show_hand(engine: Engine, event: ShowHand) -> list[KiloEffect]:
    state = engine.state
    _expect(state, "judging", "no hand is being shown now")
    first = table(state).ordered[0][0]
    if event.seat != first:
        raise IllegalAction(f"seat {first} shows their hand, not seat {event.seat}")
    if sorted(event.tokens) != sorted(state.hands[first]) or len(event.cards) != len(event.tokens):
        raise IllegalAction(f"seat {first} must show exactly the cards it holds")
    if not all(is_face(card) and weight(engine, card) is not None for card in event.cards):
        raise IllegalAction(f"seat {first} shows something that is not a card of this table")
    state.faces.update(zip(event.tokens, event.cards, strict=True))
    combo = bool(engine.rules.caller("kdm_is_combo")(cards=list(event.cards), options=state.options))
    shown: HandShown = {"kind": "hand_shown", "seat": first, "cards": list(event.cards), "combo": combo}
    return [shown, *_judge(engine, combo)]


@hookimpl
def kdm_judge_window(state: TableState, window: Window, combo: bool) -> list[int]:
    kilo = table(state)
    if not (window.checkpoint and combo):
        return [kilo.ordered[0][0]]  # a false slap: its instigator loses
    never = [seat for seat in range(state.players) if not window.slapped(seat)]
    return never or [kilo.ordered[-1][0]]


def _judge(engine: Engine, combo: bool) -> list[KiloEffect]:
    state = engine.state
    kilo = table(state)
    window = kilo.window
    assert window is not None
    losers: list[int] = engine.rules.caller("kdm_judge_window")(state=state, window=window, combo=combo)
    kilo.losers = list(losers)
    state.phase = "drawing"
    valid = window.checkpoint and combo
    engine.rules.caller("kdm_window_judged")(state=state, window=window, valid=valid, losers=list(losers))
    judged: Judged = {
        "kind": "judged",
        "valid": valid,
        "first": kilo.ordered[0][0],
        "order": list(kilo.ordered),
        "losers": list(losers),
        "reason": "combo" if valid else _why_false(kilo, window),
    }
    return [judged, *after_draw(engine)]


def _why_false(kilo: KiloTable, window: Window) -> str:
    """Why a window was false (``Judged.reason``). At a checkpoint, a window opened after a feint came
    (since the last pass) was opened by a slapper it fooled (RULES 1.2.7), not by a combo missed."""
    if not window.checkpoint:
        return window.mistake
    since = max(kilo.last_pass, kilo.passing_since)
    # Slaps before the window's opener are older than ``since``: the reactions between are feints.
    fooled = any(since < seq < window.opened_by for seq in kilo.reactions)
    return "feint" if fooled else "no_combo"


@HANDLERS.on(Draw)
def _draw(engine: Engine, event: Draw) -> list[KiloEffect]:
    return draw(engine, event)


def draw(engine: Engine, event: Draw, zones: tuple[str, ...] | None = None) -> list[KiloEffect]:
    """The loser to draw takes the top card of one of ``zones`` (default: any pile) face up."""
    state = engine.state
    _expect(state, "drawing", "nobody draws now")
    kilo = table(state)
    if event.seat != kilo.losers[0]:
        raise IllegalAction(f"seat {kilo.losers[0]} draws now, not seat {event.seat}")
    allowed = _draw_zones(state) if zones is None else zones
    zone = next((name for name in allowed if state.zones[name][-1:] == [event.token]), None)
    if zone is None:
        raise IllegalAction(f"card {event.token} is not on top of a pile this seat may draw from")
    if not is_face(event.card) or weight(engine, event.card) is None:
        raise IllegalAction(f"{event.card!r} is not a card this table can weigh")
    state.zones[zone].pop()
    kilo.drawn_from = zone
    state.faces[event.token] = event.card
    state.zones[kilos_zone(event.seat)].append(event.token)
    kilo.losers.pop(0)
    effects: Sequence[Drew] = engine.rules.caller("kdm_draw")(
        engine=engine, seat=event.seat, token=event.token, card=event.card
    )
    drew = [e for e in effects if e["kind"] == "drew"]
    kilo.draws.extend((e["round"], e["seat"], e["card"], e["flush"]) for e in drew)
    return [*effects, *after_draw(engine)]


def _draw_zones(state: TableState) -> list[str]:
    """The piles that still hold cards."""
    return [name for name in table(state).piles if state.zones.get(name)]


@hookimpl
def kdm_draw(engine: Engine, seat: int, token: int, card: str) -> list[Drew]:
    """RULES 1.2.9: a 7 onto earlier kilos flushes them all under the pile; a first 7 counts 7."""
    state = engine.state
    flush = rank_of(card) == "7" and len(state.zones[kilos_zone(seat)]) > 1
    drew: Drew = {"kind": "drew", "round": state.round, "seat": seat, "card": card, "flush": flush}
    if flush:
        flush_kilos(engine, seat)
    record_kilos(engine, seat, kilos_of(engine, seat))
    return [drew]


#: RULES 1.4: what a seat that held a fair deck's round up is charged, an ace's weight.
WITHHELD_KILOS = 100


@HANDLERS.on(Withheld)
def _withheld(engine: Engine, event: Withheld) -> list[KiloEffect]:
    """RULES 1.4: the seat whose laptop withheld its keys (the round is played again) is charged
    ``WITHHELD_KILOS``, for the rest of the game."""
    state, kilo = engine.state, table(engine.state)
    if not 0 <= event.seat < state.players:
        raise IllegalAction(f"there is no seat {event.seat}")
    kilo.charged[event.seat] = kilo.charged.get(event.seat, 0) + WITHHELD_KILOS
    record_kilos(engine, event.seat, kilos_of(engine, event.seat))
    return [{"kind": "charged", "seat": event.seat, "kilos": WITHHELD_KILOS}]


def flush_kilos(engine: Engine, seat: int) -> None:
    """RULES 1.2.9 « la chasse »: every card in front of ``seat`` goes under the pile drawn from, in the
    order they lay (the 7 last, nearest the top); with ``flush_to=shuffle`` that pile is reshuffled next."""
    state = engine.state
    kilo = table(state)
    state.zones[kilo.drawn_from][:0] = state.zones[kilos_zone(seat)]
    state.zones[kilos_zone(seat)] = []
    if state.options["flush_to"] == "shuffle":
        state.phase = "shuffling"


def record_kilos(engine: Engine, seat: int, kilos: int) -> None:
    """Set ``seat``'s score (``kilos`` in front of it, and what it was charged) and the faces shown in
    front of it (what views show)."""
    state = engine.state
    state.scores[seat] = kilos + table(state).charged.get(seat, 0)
    shown = list(table(state).shown_kilos)
    shown[seat] = tuple(state.faces[t] for t in state.zones[kilos_zone(seat)])
    table(state).shown_kilos = tuple(shown)


def kilos_of(engine: Engine, seat: int) -> int:
    """The kilos in front of ``seat``."""
    state = engine.state
    # Every card in front of a player was weighed when it was drawn, so none weighs None here.
    return sum(weight(engine, state.faces[t]) or 0 for t in state.zones[kilos_zone(seat)])


@HANDLERS.on(Shuffle)
def _shuffle(engine: Engine, event: Shuffle) -> list[KiloEffect]:
    state = engine.state
    _expect(state, "shuffling", "nothing is being shuffled now")
    zone = table(state).drawn_from
    old = state.zones[zone]
    new = state.new_tokens(len(old))
    for token in old:
        state.faces.pop(token, None)
    state.zones[zone] = list(new)
    state.phase = "drawing"
    shuffled: Shuffled = {"kind": "shuffled", "zone": zone, "tokens": new, "from_tokens": old,
                          "seed": event.seed}  # fmt: skip
    return [shuffled, *after_draw(engine)]


def after_draw(engine: Engine) -> list[KiloEffect]:
    """Ask for the next draw, or finish the window (nothing is drawn from an empty pile). A draw that
    moved the table out of ``drawing`` (a flush to reshuffle, a variant's question to the drawer) holds
    the rest: whoever moved it sets ``drawing`` again and calls this once it is settled."""
    state = engine.state
    kilo = table(state)
    if state.phase != "drawing" or (kilo.losers and _draw_zones(state)):
        return []
    kilo.losers = []
    kilo.windows += 1
    if not engine.rules.caller("kdm_round_over")(state=state):
        kilo.window = None
        kilo.passing_since = state.seq
        state.phase = "passing"
        return [{"kind": "passing_resumed"}]
    return _end_round(engine)


def _end_round(engine: Engine) -> list[KiloEffect]:
    state = engine.state
    state.hands = [[] for _ in range(state.players)]
    state.turn = None
    effects: list[KiloEffect] = [{"kind": "round_over", "round": state.round, "scores": list(state.scores)}]
    if engine.rules.caller("kdm_game_over")(state=state):
        state.phase = "over"
        winners = engine.rules.caller("kdm_winners")(state=state)
        effects.append({"kind": "game_over", "winners": winners, "scores": list(state.scores)})
    elif state.people and state.options["round_pause_ms"] > 0:
        state.phase = "resting"  # the round's result stays on screen a while: the Resume deals on
        table(state).hold = state.seq
    else:
        state.phase = "dealing"
    return effects


@HANDLERS.on(Resume)
def _resume(engine: Engine, event: Resume) -> list[KiloEffect]:
    """A pause for people is over (``Resume``): the held checkpoint, or the rest after a round."""
    state = engine.state
    kilo = table(state)
    if state.phase == "resting":
        state.phase = "dealing"
        kilo.hold = None
        rested: Rested = {"kind": "rested", "round": state.round, "wake": ()}
        return [rested]
    if state.phase != "passing" or kilo.hold is None:
        raise IllegalAction(f"no pause to end now (the table is {state.phase})")
    kilo.hold = None
    # Only the seat to pass has something new to do; plans to slap at the checkpoint stand.
    over: HoldOver = {"kind": "hold_over", "wake": () if state.turn is None else (state.turn,)}
    return [over]


@hookimpl
def kdm_summary(state: TableState) -> dict[str, Any]:
    """What ``kdm sim --json`` prints of a finished game: rounds, kilos per seat, winners, every draw."""
    draws = [
        {"round": r, "seat": seat, "card": card, "flush": flush}
        for r, seat, card, flush in table(state).draws
    ]
    return {"rounds": state.round, "kilos": list(state.scores), "winners": kdm_winners(state), "draws": draws}


@hookimpl
def kdm_round_over(state: TableState) -> bool:
    return True


@hookimpl
def kdm_game_over(state: TableState) -> bool:
    rounds = state.options["rounds"]
    if rounds == "pile":
        return not _draw_zones(state) or state.round >= state.options["max_rounds"]
    return bool(state.round >= rounds)


@hookimpl
def kdm_winners(state: TableState) -> list[int]:
    fewest = min(state.scores)
    return [seat for seat, kilos in enumerate(state.scores) if kilos == fewest]


@hookimpl
def kdm_claimed_faces(event: Event) -> Mapping[int, str] | None:
    """The faces a hand turned up and a card drawn show the table."""
    if isinstance(event, ShowHand):
        return dict(zip(event.tokens, event.cards, strict=False))
    if isinstance(event, Draw):
        return {event.token: event.card}
    return None


@hookimpl
def kdm_reveal(duty: Duty, state: TableState, faces: Mapping[int, str]) -> Event | None:
    """The base game's reveals, from the faces known here: who holds the queen called for (the
    announce), a hand turned up, a card drawn. None for what is not known here."""
    if duty.kind == "announce":
        wanted = duty.cards[0]
        holder = next(
            (s for s, hand in enumerate(state.hands) if any(faces.get(t) == wanted for t in hand)), None
        )
        return None if holder is None else Announce(seat=holder, card=wanted)
    if duty.kind == "show_hand" and duty.seat is not None:
        tokens = tuple(state.hands[duty.seat])
        if all(token in faces for token in tokens):
            return ShowHand(seat=duty.seat, tokens=tokens, cards=tuple(faces[t] for t in tokens))
    if duty.kind == "draw" and duty.seat is not None and duty.tokens[0] in faces:
        return Draw(seat=duty.seat, token=duty.tokens[0], card=faces[duty.tokens[0]])
    return None


@hookimpl
def kdm_player_may_return(state: TableState, seat: int) -> bool | None:
    """Not inside a slap window, nor while it is judged: the stand-in's slap stands for the seat."""
    return state.phase not in ("window", "judging")


@hookimpl
def kdm_awaiting(state: TableState) -> list[Duty]:
    phase = state.phase
    if phase in ("setup", "dealing", "shuffling"):
        return [Duty({"setup": "start_game", "dealing": "deal", "shuffling": "shuffle"}[phase])]
    kilo = table(state)
    if phase == "announcing":
        return [Duty("announce", cards=(kilo.to_announce[0],))]
    if phase == "window":
        assert kilo.window is not None
        return [Duty("close", after_ms=state.options["slap_timeout_ms"], ref=kilo.window.opened_by)]
    if phase == "passing" and kilo.hold is not None:
        return [Duty("resume", after_ms=state.options["checkpoint_ms"], ref=kilo.hold)]
    if phase == "resting":
        # Timers are told apart by their refs for the whole game: a seq, never reused, like a hold's.
        return [Duty("resume", after_ms=state.options["round_pause_ms"], ref=kilo.hold or 0)]
    if phase == "judging":
        first = kilo.ordered[0][0]
        return [Duty("show_hand", seat=first, tokens=tuple(state.hands[first]))]
    if phase == "drawing":
        tops = tuple(state.zones[name][-1] for name in _draw_zones(state))
        return [Duty("draw", seat=kilo.losers[0], tokens=tops)]
    return []


def _expect(state: TableState, phases: str | tuple[str, ...], reason: str) -> None:
    if state.phase != phases and state.phase not in phases:
        raise IllegalAction(f"{reason} (the table is {state.phase})")


def _check_seat(state: TableState, seat: int) -> None:
    if not 0 <= seat < state.players:
        raise IllegalAction(f"there is no seat {seat}")


# --- views ----------------------------------------------------------------------------------------


class KiloView(NamedTuple):
    """The base game's part of a seat view (all public). A named tuple, not a frozen dataclass: one is
    made at every event, and a frozen dataclass of this size takes six times as long to make."""

    starter: int | None
    direction: int
    checkpoint: bool
    window_open: bool
    window_opened_by: int | None
    slapped: tuple[int, ...]
    last_feint: int | None
    last_feint_seat: int | None
    passes: int
    kilos: tuple[tuple[str, ...], ...]
    pile: int
    losers: tuple[int, ...]
    barred: tuple[int, ...] = ()
    #: The checkpoint holds (a table of people): no pass until it is over.
    holding: bool = False


@hookimpl
def kdm_view(state: TableState, seat: int, knowledge: Knowledge) -> tuple[str, Any]:
    """The base game's part of every seat's view: all public, so one for all seats, per event."""
    view = state.memo.get(NAME)
    if view is None:
        view = state.memo[NAME] = _public_view(state)
    return NAME, view


def _public_view(state: TableState) -> KiloView:
    kilo = table(state)
    window = kilo.window
    passing = state.phase == "passing"
    zones = state.zones
    pile = 0
    for name in kilo.piles:
        pile += len(zones.get(name, ()))
    # Positional, in field order: this runs at every event a bot looks at.
    return KiloView(
        kilo.starter,
        kilo.direction,
        kilo.checkpoint and passing,
        window is not None and not window.closed,
        window.opened_by if window is not None else None,
        tuple([s for s, _eff, _seq in window.slaps]) if window is not None else (),
        kilo.last_feint,
        kilo.last_feint_seat,
        kilo.passes,
        kilo.shown_kilos,
        pile,
        tuple(kilo.losers),
        tuple(kilo.barred),
        kilo.hold is not None and passing,
    )
