"""Snap's rules (the package README says them for people): its public data and every hook that plays it.

Owns the deal (the whole deck, face down, round the table), the turns (a ``Flip`` asked by the seat
whose turn it is, then the card turned up by whoever may read it, ``TurnUp``), the slap windows
(opened by the first slap committed, joined by others until ``slap_window_ms`` is up or every player
in has slapped, judged by reaction time), who is out, and the game's end. Its data lives in
``state.rules["snap"]`` (a ``SnapTable``); ``state.scores`` is each seat's cards.

Phases: ``setup`` → ``playing`` (a seat's turn; at the game's last turn, a last chance to slap) →
``turning`` (the card's face is on its way) → ``playing`` again, or ``slapping`` (a window is open) →
``playing``, or ``over``; when every player in has an empty pile, ``shuffling`` (the centre, shuffled
from an agreed seed, is dealt again among them) → ``playing``.

Slaps are ranked by ``rt`` alone: the time from the moment the centre's top card was painted on the
slapper's screen to the press (DESIGN 5.6, with the top card's turn as the trigger, whose effective
time is 0). A slap must name the turn it answers; one that answers a card covered since is refused,
not judged against a centre its player never saw. The engine never reads a clock.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kdm.cards import full_deck, is_face, rank_of
from kdm.effects import RoundOver, Shuffled
from kdm.engine import MIN_REACTION_OPTION, Duty, Engine, Handlers, IllegalAction, effective_time
from kdm.events import Event, Shuffle, StartGame
from kdm.hookspecs import hookimpl
from kdm.options import OptionWords, TableOption
from kdm.state import TableState
from kdm_snap.effects import (
    Flipping,
    Gathered,
    PlayerOut,
    Redealt,
    SlapJudged,
    Slapped,
    SnapDealt,
    SnapEffect,
    SnapOver,
    Turned,
)
from kdm_snap.events import EVENTS, Flip, Slap, SlapClose, SlapEnd, TurnUp

NAME = "snap"
MIN_PLAYERS, MAX_PLAYERS = 2, 8
CENTRE = "centre"


def pile_zone(seat: int) -> str:
    """The zone of ``seat``'s pile, face down, its top card last."""
    return f"pile/{seat}"


@dataclass
class Window:
    """A slap window: ``slaps`` lists ``(seat, rt, seq)`` in commit order; ``pair`` says whether the
    centre's top two cards had one rank when it opened (the centre does not change while it is open)."""

    opened_by: int
    pair: bool
    slaps: list[tuple[int, float, int]] = field(default_factory=list)


@dataclass
class SnapTable:
    """Snap's public data."""

    #: One tie-break per seat, from the game's seed: two slaps of the same reaction time are ordered
    #: by it, the same way on every peer.
    tiebreak: list[bytes] = field(default_factory=list)
    #: Seats that are out of the game (no card when their turn came, or a false slap without a card).
    out: list[int] = field(default_factory=list)
    #: Cards turned so far; the game ends at ``max_turns``.
    turns: int = 0
    #: The seq of the event that turned up the centre's top card (what a slap answers), if any.
    top_seq: int | None = None
    #: The seats that have slapped the centre's top card (one slap per card turned up).
    slapped: list[int] = field(default_factory=list)
    #: How many of the centre's top cards lie face up (a false slap's cards go under it face down).
    face_up: int = 0
    window: Window | None = None
    #: Windows judged so far: with a pair, without one.
    snaps: int = 0
    false_snaps: int = 0
    #: Where the deal starts again when every pile is empty (``_gather``).
    deal_from: int = 0
    #: Why the game ended (``last`` or ``turns``), once it has.
    reason: str = ""


def snap(state: TableState) -> SnapTable:
    """Snap's data of a table."""
    data: SnapTable = state.rules[NAME]
    return data


def pile(state: TableState, seat: int) -> list[int]:
    return state.zones[pile_zone(seat)]


def is_pair(state: TableState) -> bool:
    """Whether the centre's top two cards have the same rank."""
    centre = state.zones.get(CENTRE, [])
    if snap(state).face_up < 2:
        return False
    under, top = state.faces.get(centre[-2]), state.faces.get(centre[-1])
    return under is not None and top is not None and rank_of(under) == rank_of(top)


def players_in(state: TableState) -> list[int]:
    out = snap(state).out
    return [seat for seat in range(state.players) if seat not in out]


# --- set-up ---------------------------------------------------------------------------------------


@hookimpl
def kdm_event_types() -> list[type[Event]]:
    return list(EVENTS)


@hookimpl
def kdm_table_options() -> list[TableOption]:
    return [
        TableOption("max_turns", int, 500,
                    "the game ends after this many cards turned: most cards wins",
                    minimum=1, maximum=100000,
                    french=OptionWords("tours au plus",
                                       "la partie s'arrête après tant de cartes retournées : le plus de"
                                       " cartes gagne")),
        TableOption("slap_window_ms", int, 1000,
                    "slaps this long after the first still count (the fastest wins)",
                    minimum=100, maximum=10000,
                    french=OptionWords("fenêtre des tapes (ms)",
                                       "les tapes arrivées jusqu'à ce délai après la première comptent"
                                       " (la plus rapide gagne)")),
        MIN_REACTION_OPTION,
    ]  # fmt: skip


@hookimpl
def kdm_check_table(players: int, options: dict[str, Any], plugins: list[str]) -> str | None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        return f"Snap is played by {MIN_PLAYERS} to {MAX_PLAYERS} players"
    return None


@hookimpl
def kdm_setup_table(state: TableState) -> None:
    state.rules[NAME] = SnapTable()


# --- the event loop -------------------------------------------------------------------------------


#: The handlers of this plugin's events, by event class (``kdm_apply`` calls the one for an event).
HANDLERS: Handlers[list[SnapEffect]] = Handlers()


@hookimpl
def kdm_apply(engine: Engine, event: Event) -> list[SnapEffect] | None:
    return HANDLERS.apply(engine, event)


@HANDLERS.on(StartGame)
def _start_game(engine: Engine, event: StartGame) -> list[SnapEffect]:
    """The whole deck, shuffled by the agreed seed, dealt one card at a time round the table."""
    state = engine.state
    _expect(state, "setup", "the game has already started")
    faces = full_deck()
    tokens = state.new_tokens(len(faces))
    for seat in range(state.players):
        state.zones[pile_zone(seat)] = tokens[seat :: state.players]
    state.zones[CENTRE] = []
    data = snap(state)
    data.tiebreak = [hashlib.blake2b(event.seed + bytes([s]), digest_size=8).digest()
                     for s in range(state.players)]  # fmt: skip
    state.round = 1
    state.turn = 0
    state.phase = "playing"
    _count(state)
    shuffled: Shuffled = {"kind": "shuffled", "zone": "piles", "tokens": tokens, "pool": faces,
                          "seed": event.seed}  # fmt: skip
    dealt: SnapDealt = {"kind": "dealt", "round": 1, "piles": list(state.scores)}
    return [shuffled, dealt]


@HANDLERS.on(Flip)
def _flip(engine: Engine, event: Flip) -> list[SnapEffect]:
    state = engine.state
    _expect(state, "playing", "no card is turned now")
    if event.seat != state.turn:
        who = "nobody's" if state.turn is None else f"seat {state.turn}'s"
        raise IllegalAction(f"it is {who} turn to turn a card, not seat {event.seat}'s")
    # A seat with no card is put out before its turn comes (``_advance``): its pile is not empty here.
    state.phase = "turning"
    flipping: Flipping = {"kind": "flipping", "seat": event.seat, "wake": ()}  # only the table acts next
    return [flipping]


@HANDLERS.on(TurnUp)
def _turn_up(engine: Engine, event: TurnUp) -> list[SnapEffect]:
    state = engine.state
    _expect(state, "turning", "no card is being turned")
    seat = state.turn
    assert seat is not None
    own = pile(state, seat)
    if event.seat != seat or own[-1:] != [event.token]:
        raise IllegalAction(f"the card turned now is the top of seat {seat}'s pile")
    if not is_face(event.card):
        raise IllegalAction(f"{event.card!r} is not a card")
    own.pop()
    state.zones[CENTRE].append(event.token)
    state.faces[event.token] = event.card
    data = snap(state)
    data.turns += 1
    data.face_up += 1
    data.top_seq = state.seq
    data.slapped = []
    state.phase = "playing"
    _count(state)
    turned: Turned = {
        "kind": "turned",
        "seat": seat,
        "card": event.card,
        "seq": state.seq,
        "pair": is_pair(state),
        "centre": len(state.zones[CENTRE]),
        "left": len(own),
        "turns": data.turns,
    }
    return [turned, *_advance(state, seat)]


def _advance(state: TableState, after: int) -> list[SnapEffect]:
    """Give the turn to the next player in after ``after`` (``_give_turn``). At the game's last turn
    nobody turns: the table gives a last chance to slap."""
    if snap(state).turns >= state.options["max_turns"]:
        state.turn = None
        return []
    return _give_turn(state, (after + 1) % state.players)


def _give_turn(state: TableState, seat: int) -> list[SnapEffect]:
    """The turn goes to ``seat``, or the first player in after it: a player whose pile is empty when
    its turn comes is out."""
    data = snap(state)
    if not any(pile(state, player) for player in players_in(state)):
        return _gather(state, seat)
    effects: list[SnapEffect] = []
    for _ in range(state.players):
        if seat not in data.out:
            if pile(state, seat):
                state.turn = seat
                return effects + _over_if_last(state)
            data.out.append(seat)
            out: PlayerOut = {"kind": "player_out", "seat": seat}
            effects.append(out)
            if len(players_in(state)) <= 1:
                return effects + _game_over(state, "last")
        seat = (seat + 1) % state.players
    return effects + _game_over(state, "last")  # cannot be: a player in holds a card


def _gather(state: TableState, seat: int) -> list[SnapEffect]:
    """Every player in has an empty pile (every card lies in the centre): the centre is shuffled
    (``Shuffle``, from a seed the table agrees) and dealt again among them, from ``seat``."""
    snap(state).deal_from = seat
    state.phase = "shuffling"
    state.turn = None
    gathered: Gathered = {"kind": "gathered", "cards": len(state.zones[CENTRE]), "wake": ()}
    return [gathered]


@HANDLERS.on(Shuffle)
def _shuffle(engine: Engine, event: Shuffle) -> list[SnapEffect]:
    state = engine.state
    _expect(state, "shuffling", "nothing is being shuffled now")
    data = snap(state)
    old = state.zones[CENTRE]
    new = state.new_tokens(len(old))
    for token in old:
        state.faces.pop(token, None)  # the cards are face down again, in an order nobody knows
    seats = players_in(state)
    first = seats.index(data.deal_from) if data.deal_from in seats else 0
    seats = seats[first:] + seats[:first]
    for index, seat in enumerate(seats):
        state.zones[pile_zone(seat)] = new[index :: len(seats)]
    state.zones[CENTRE] = []
    data.face_up, data.top_seq, data.slapped = 0, None, []
    state.turn = seats[0]
    state.phase = "playing"
    _count(state)
    shuffled: Shuffled = {"kind": "shuffled", "zone": CENTRE, "tokens": new, "from_tokens": old,
                          "seed": event.seed}  # fmt: skip
    redealt: Redealt = {"kind": "redealt", "piles": [state.scores[seat] for seat in seats]}
    return [shuffled, redealt]


def _over_if_last(state: TableState) -> list[SnapEffect]:
    return _game_over(state, "last") if len(players_in(state)) <= 1 else []


@HANDLERS.on(Slap)
def _slap(engine: Engine, event: Slap) -> list[SnapEffect]:
    state = engine.state
    data = snap(state)
    window = data.window
    if state.phase not in ("playing", "slapping"):
        raise IllegalAction("no slapping now: a card is being turned")
    if not 0 <= event.seat < state.players:
        raise IllegalAction(f"there is no seat {event.seat}")
    if event.seat in data.out:
        raise IllegalAction(f"seat {event.seat} is out of the game")
    if data.top_seq is None:
        raise IllegalAction("there is nothing on the centre pile to slap")
    if event.trigger != data.top_seq:
        raise IllegalAction("this slap answered a card that has been covered since")
    if event.rt is None:
        raise IllegalAction("a slap says how long after the top card was shown it came (rt)")
    if event.seat in data.slapped:
        raise IllegalAction(f"seat {event.seat} has already slapped this card")
    # The top card's turn is the trigger, at effective time 0: a slap's place is its reaction time.
    rt = effective_time({data.top_seq: 0.0}, event, state.options["min_reaction_ms"])
    opened = window is None
    if window is None:
        window = data.window = Window(state.seq, is_pair(state))
        state.phase = "slapping"
    window.slaps.append((event.seat, rt, state.seq))
    data.slapped.append(event.seat)
    slapped: Slapped = {"kind": "slapped", "seat": event.seat, "seq": state.seq, "rt": rt, "opened": opened}
    if len(window.slaps) == len(players_in(state)):
        return [slapped, *_judge(state)]
    return [slapped]


@HANDLERS.on(SlapClose)
def _close(engine: Engine, event: SlapClose) -> list[SnapEffect]:
    _expect(engine.state, "slapping", "no slap window is open")
    return _judge(engine.state)


def _judge(state: TableState) -> list[SnapEffect]:
    """The fastest slapper takes a pair's centre under its pile; without a pair, every slapper puts its
    top card under the centre (a slapper without a card is out)."""
    data = snap(state)
    window = data.window
    assert window is not None
    order = sorted(window.slaps, key=lambda s: (s[1], data.tiebreak[s[0]], s[2]))
    first = order[0][0]
    taken, paid = 0, []
    effects: list[SnapEffect] = []
    if window.pair:
        centre = state.zones[CENTRE]
        taken = len(centre)
        pile(state, first)[:0] = centre  # under the pile, in the order they lay
        state.zones[CENTRE] = []
        data.top_seq = None
        data.slapped = []
        data.face_up = 0
        data.snaps += 1
    else:
        data.false_snaps += 1
        for seat, _rt, _seq in order:
            own = pile(state, seat)
            if own:
                state.zones[CENTRE].insert(0, own.pop())  # face down, under the centre
                paid.append(seat)
            elif seat not in data.out:
                data.out.append(seat)
                out: PlayerOut = {"kind": "player_out", "seat": seat}
                effects.append(out)
    data.window = None
    state.phase = "playing"
    _count(state)
    judged: SlapJudged = {
        "kind": "slap_judged",
        "pair": window.pair,
        "first": first,
        "order": [(seat, rt) for seat, rt, _seq in order],
        "taken": taken,
        "paid": paid,
        "cards": list(state.scores),
    }
    effects.insert(0, judged)
    if len(players_in(state)) <= 1:
        return effects + _game_over(state, "last")
    if data.turns >= state.options["max_turns"]:
        return effects + _game_over(state, "turns")
    if state.turn is not None and (state.turn in data.out or not pile(state, state.turn)):
        effects += _give_turn(state, state.turn)  # the seat to turn has just lost its last card
    return effects


@HANDLERS.on(SlapEnd)
def _end(engine: Engine, event: SlapEnd) -> list[SnapEffect]:
    state = engine.state
    if state.phase != "playing" or snap(state).turns < state.options["max_turns"]:
        raise IllegalAction(f"the game's turns are not used up (the table is {state.phase})")
    return _game_over(state, "turns")


def _game_over(state: TableState, reason: str) -> list[SnapEffect]:
    data = snap(state)
    data.reason = reason
    state.phase = "over"
    state.turn = None
    winners = kdm_winners(state)
    ended: RoundOver = {"kind": "round_over", "round": state.round, "scores": list(state.scores)}
    over: SnapOver = {"kind": "game_over", "winners": winners, "cards": list(state.scores), "reason": reason}
    return [ended, over]


def _count(state: TableState) -> None:
    """Each seat's score is the cards in its pile."""
    state.scores = [len(pile(state, seat)) for seat in range(state.players)]


@hookimpl
def kdm_winners(state: TableState) -> list[int]:
    """The players still in with the most cards (ties share the win); every player with the most
    cards when nobody is left in (false slaps put the last ones out together)."""
    seats = players_in(state) or list(range(state.players))
    most = max(state.scores[seat] for seat in seats)
    return [seat for seat in seats if state.scores[seat] == most]


@hookimpl
def kdm_summary(state: TableState) -> dict[str, Any]:
    """What ``kdm sim --json`` prints of a finished game."""
    data = snap(state)
    return {
        "turns": data.turns,
        "cards": list(state.scores),
        "out": list(data.out),
        "snaps": data.snaps,
        "false_snaps": data.false_snaps,
        "reason": data.reason,
        "winners": kdm_winners(state),
    }


@hookimpl
def kdm_claimed_faces(event: Event) -> Mapping[int, str] | None:
    """A card turned up shows the table its face."""
    return {event.token: event.card} if isinstance(event, TurnUp) else None


@hookimpl
def kdm_reveal(duty: Duty, state: TableState, faces: Mapping[int, str]) -> Event | None:
    """The card being turned, from the faces known here."""
    if duty.kind != TurnUp.kind or duty.seat is None or not duty.tokens or duty.tokens[0] not in faces:
        return None
    return TurnUp(seat=duty.seat, token=duty.tokens[0], card=faces[duty.tokens[0]])


@hookimpl
def kdm_player_may_return(state: TableState, seat: int) -> bool | None:
    """Not while a window is open: the stand-in's slap stands for the seat."""
    return state.phase != "slapping"


@hookimpl
def kdm_awaiting(state: TableState) -> list[Duty]:
    phase = state.phase
    if phase == "setup":
        return [Duty(StartGame.kind)]
    if phase == "shuffling":
        return [Duty(Shuffle.kind)]
    data = snap(state)
    if phase == "turning":
        assert state.turn is not None
        return [Duty(TurnUp.kind, seat=state.turn, tokens=(pile(state, state.turn)[-1],))]
    if phase == "slapping":
        assert data.window is not None
        return [Duty(SlapClose.kind, after_ms=state.options["slap_window_ms"], ref=data.window.opened_by)]
    if phase == "playing" and state.turn is None:
        return [Duty(SlapEnd.kind, after_ms=state.options["slap_window_ms"], ref=data.top_seq or 0)]
    return []


def _expect(state: TableState, phase: str, reason: str) -> None:
    if state.phase != phase:
        raise IllegalAction(f"{reason} (the table is {state.phase})")
