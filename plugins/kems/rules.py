"""RULES 3, Kem's: the rules of the team game with secret signs.

Owns the deal (with the three-of-a-kind redraw), the face-up table and its refill, the talon and the bin,
exchanges, the sweep question, gestures and chat, calls (Kem's, Double Kem's, Contre Kem's) judged by
effective time like slaps, scoring, new deals and the game to ``target``. Its public data lives in
``state.rules["kems"]`` (a ``KemsTable``); ``state.scores`` gives every seat its team's points.

Phases of a deal: ``dealing`` → ``checking`` (each seat in deal order keeps its hand or shows three or
four of a rank, which go back into the talon: ``reshuffling``, then it draws again) → ``turning`` (the
dealer turns cards face up until four lie there without three of a rank; an empty talon takes the bin
back: ``reshuffling``) → ``hunt``. In the hunt: exchanges; after ``sweep_after_ms`` without one, a
``Quiet`` timer makes a sweep askable: ``sweep`` (everyone else answers; all yes: the table goes to the
bin and ``turning`` again; a no: ``refused`` until that seat exchanges). A call opens ``calling`` for
``call_window_ms`` (other calls race it by effective time), then ``showing`` hands or ``answering`` a
Contre. A call that shows a whole hand ends the deal: ``dealing`` again, or ``over`` at ``target``.

Secret signs never enter the log: partners agree them with a ``PrivateNote`` (``kdm.deck``) before the
game's first « La chasse est ouverte ! », and never after (``kdm_note_refused``, RULES 3.2); every
gesture here is public. Faces shown to one player (after a failed Contre) are named by token only; the
deck service lets that player alone learn them.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kdm.cards import faces_of_ranks, full_deck, rank_of
from kdm.deck import PrivateNote
from kdm.effects import ShownPrivately
from kdm.engine import MIN_REACTION_OPTION, Duty, Engine, Handlers, IllegalAction, effective_time
from kdm.entries import chat_problem
from kdm.events import Deal, Event, ShowHand, Shuffle, Withheld
from kdm.hookspecs import hookimpl
from kdm.options import OptionWords, TableOption
from kdm.plugins.kems.effects import CallJudged, CallResult, HandKept, KemsEffect, SweepAnswered
from kdm.plugins.kems.events import (
    EVENTS,
    Call,
    Exchange,
    Gesture,
    KeepHand,
    Quiet,
    ReadyTime,
    Redraw,
    Say,
    ShowTwo,
    Sweep,
    SweepAnswer,
    SweepTime,
    TeamReady,
    Turn,
)
from kdm.state import TableState, canonical_bytes
from kdm.window import Close, race, tiebreaks

NAME = "kems"
PLAYER_COUNTS = (4, 6, 8)
HAND = 4
TABLE_CARDS = 4
TABLE, TALON, BIN = "table", "talon", "bin"
#: Cards that must stay out of the hands so that four table cards without three of a rank always exist.
MIN_SPARE = 8
#: RULES 3.2: the gestures anyone may make, in catalogue order.
GESTURES: tuple[str, ...] = (
    "scratch_head", "touch_nose", "wink", "yawn", "cough", "sigh",
    "tap_table", "look_ceiling", "adjust_glasses", "shrug", "smile", "rub_eyes",
)  # fmt: skip
CALLS = ("kems", "double", "contre")
#: How many recent gestures and chat lines the public feed keeps.
FEED = 16


# --- public data ----------------------------------------------------------------------------------


@dataclass
class CallStats:
    """How calls of one kind ended, over the game."""

    confirmed: int = 0
    failed: int = 0
    void: int = 0


@dataclass
class KemsTable:
    """Kem's public data: game-wide fields, then this deal's."""

    teams: int = 2
    team_scores: list[int] = field(default_factory=list)
    deals: int = 0
    winner: int | None = None
    stats: dict[str, CallStats] = field(default_factory=lambda: {call: CallStats() for call in CALLS})
    #: (seat, gesture, seq), newest last; and (seat, text), newest last.
    gestures: list[tuple[int, str, int]] = field(default_factory=list)
    chat: list[tuple[int, str]] = field(default_factory=list)
    #: Scored calls, newest last: (caller, call, target, result, seq of the call).
    results: list[tuple[int, str, int, str, int]] = field(default_factory=list)
    #: The teams whose first seat said their signs are agreed, and the seq at which the signs closed
    #: (every team agreed, or ``signs_ms`` passed): a private note written after it is refused.
    agreed: list[int] = field(default_factory=list)
    signs_closed_at: int | None = None
    #: Each team's note, as its ``TeamReady`` committed it (``note_digest``): the one note a partner may
    #: still be handed once the signs are closed.
    agreed_notes: dict[int, bytes] = field(default_factory=dict)
    # This deal's:
    dealer: int = -1
    deal_started: int = 0
    tiebreak: list[bytes] = field(default_factory=list)
    #: Seats still to check their dealt hand, in deal order.
    to_check: list[int] = field(default_factory=list)
    #: After a redraw, the seat that draws once the talon is reshuffled, and how many cards.
    redraw: tuple[int, int] | None = None
    #: Which zone a ``reshuffling`` phase takes back into the talon: ``talon`` or ``bin``.
    reshuffle: str = TALON
    #: The seq the quiet timer counts from (the hunt's opening or its latest exchange).
    quiet_since: int = 0
    sweepable: bool = False
    sweep_asker: int | None = None
    #: The seq of the sweep question, from which its answers' time counts (``sweep_answer_ms``).
    sweep_asked_at: int = 0
    sweep_accepted: list[int] = field(default_factory=list)
    refuser: int | None = None
    #: seq of every gesture and call this deal → its effective time (what a ``trigger`` names).
    reactions: dict[int, float] = field(default_factory=dict)
    #: The open call window: (seat, call, target, effective time, seq), in commit order.
    calls: list[tuple[int, str, int, float, int]] = field(default_factory=list)
    window_opened_by: int = -1
    #: The call that counted: (seat, call, target), and its seq.
    judged: tuple[int, str, int] | None = None
    judged_seq: int = -1
    #: Seats that must show their whole hand now, in order; and the shown hands' verdicts.
    to_show: list[int] = field(default_factory=list)
    shown: dict[int, bool] = field(default_factory=dict)
    #: Seats barred from calling Contre Kem's again this deal.
    barred: list[int] = field(default_factory=list)
    #: Cards shown to one seat only: (to seat, from seat, tokens).
    private_shows: list[tuple[int, int, tuple[int, ...]]] = field(default_factory=list)


#: What outlives a deal (the dealer seat too: it moves on by one each deal); the rest is the deal's.
GAME_FIELDS = frozenset(
    {
        "teams",
        "team_scores",
        "deals",
        "winner",
        "stats",
        "gestures",
        "chat",
        "results",
        "dealer",
        "agreed",
        "signs_closed_at",
        "agreed_notes",
    }
)
DEAL_FIELDS = tuple(f.name for f in dataclasses.fields(KemsTable) if f.name not in GAME_FIELDS)


def kems(state: TableState) -> KemsTable:
    """Kem's data of a table."""
    data: KemsTable = state.rules[NAME]
    return data


def partner_of(seat: int, players: int) -> int:
    """RULES 3.1: partners sit opposite each other."""
    return (seat + players // 2) % players


def team_of(seat: int, players: int) -> int:
    return seat % (players // 2)


def team_seats(team: int, players: int) -> tuple[int, int]:
    return (team, team + players // 2)


def is_four_of_a_kind(cards: list[str] | tuple[str, ...]) -> bool:
    return len(cards) == HAND and len({rank_of(card) for card in cards}) == 1


def has_three_of_a_rank(cards: list[str] | tuple[str, ...]) -> bool:
    return any(count >= 3 for count in Counter(map(rank_of, cards)).values())


def deck_faces(options: Mapping[str, Any]) -> list[str]:
    """RULES 3.1: 52 cards, or 32 (7 to ace)."""
    if options["deck"] == "32":
        return faces_of_ranks(("7", "8", "9", "10", "J", "Q", "K", "A"))
    return full_deck()


#: The faces of each deck, as sets: every card shown or exchanged is checked against its deck.
DECK_SETS: dict[str, frozenset[str]] = {deck: frozenset(deck_faces({"deck": deck})) for deck in ("52", "32")}


# --- set-up ---------------------------------------------------------------------------------------


@hookimpl
def kdm_table_options() -> list[TableOption]:
    return [
        TableOption(
            "deck",
            str,
            "52",
            "cards in the deck: 52, or 32 (7 to ace)",
            choices=("52", "32"),
            french=OptionWords("paquet", "cartes du paquet : 52, ou 32 (du 7 à l'as)"),
        ),
        TableOption(
            "target",
            int,
            10,
            "points a team needs to win",
            minimum=1,
            french=OptionWords("objectif", "points qu'il faut à une équipe pour gagner"),
        ),
        MIN_REACTION_OPTION,
        TableOption(
            "signs",
            str,
            "one",
            "secret signs: one per team, or multi (several per team, one per player)",
            choices=("one", "multi"),
            french=OptionWords(
                "signes",
                "signes secrets : un par équipe, ou plusieurs (plusieurs par équipe, un par joueur)",
                (("one", "un"), ("multi", "plusieurs")),
            ),
        ),
        TableOption(
            "spoken",
            bool,
            False,
            "« à la parlante »: players may also say lines everyone sees",
            french=OptionWords(
                "à la parlante", "« à la parlante » : on peut aussi dire des phrases que tous voient"
            ),
        ),
        TableOption(
            "signs_ms",
            int,
            60000,
            "ms the teams have to agree their signs before the first deal",
            minimum=0,
            french=OptionWords(
                "temps des signes (ms)",
                "ms qu'ont les équipes pour convenir de leurs signes avant la 1re donne",
            ),
        ),
        TableOption(
            "sweep_after_ms",
            int,
            3000,
            "ms without an exchange before a sweep may be asked",
            minimum=0,
            french=OptionWords(
                "balayage après (ms)", "ms sans échange avant qu'on puisse demander « Balayage ? »"
            ),
        ),
        TableOption(
            "sweep_answer_ms",
            int,
            5000,
            "ms to answer « Balayage ? »: the silent accept",
            minimum=0,
            french=OptionWords(
                "réponse au balayage (ms)", "ms pour répondre à « Balayage ? » : qui se tait accepte"
            ),
        ),
        TableOption(
            "call_window_ms",
            int,
            400,
            "ms during which a racing call may still beat the first",
            minimum=0,
            french=OptionWords(
                "course des annonces (ms)", "ms pendant lesquelles une annonce rivale peut battre la première"
            ),
        ),
        TableOption(
            "show_answer_ms",
            int,
            5000,
            "ms the accused of a failed Contre has to choose the two cards shown: then the table chooses",
            minimum=0,
            french=OptionWords(
                "choix des cartes (ms)",
                "ms qu'a l'accusé d'un Contre raté pour choisir les deux cartes montrées ;"
                " puis la table choisit",
            ),
        ),
    ]


@hookimpl
def kdm_event_types() -> list[type[Event]]:
    # A call window's close and a hand turned up are the base game's events, borrowed: Kem's replaces the
    # base game, so nothing registers them at its tables but Kem's itself.
    return [*EVENTS, Close, ShowHand]


@hookimpl
def kdm_check_table(players: int, options: dict[str, Any], plugins: list[str]) -> str | None:
    if NAME not in plugins:
        return None
    if players not in PLAYER_COUNTS:
        return f"Kem's is played by 4, 6 or 8 players in teams of two, not {players}"
    spare = len(deck_faces(options)) - HAND * players
    if spare < MIN_SPARE:
        return (
            f"a {options['deck']}-card deck leaves {spare} cards beside {players} hands; "
            f"the table needs {MIN_SPARE}: use deck=52"
        )
    return None


@hookimpl
def kdm_setup_table(state: TableState) -> None:
    teams = state.players // 2
    state.rules[NAME] = KemsTable(teams=teams, team_scores=[0] * teams)
    for zone in (TALON, TABLE, BIN):
        state.zones[zone] = []
    state.phase = "signing"  # RULES 3.2: each team agrees its signs privately before the game


#: The handlers of this plugin's events, by event class (``kdm_apply`` calls the one for an event).
HANDLERS: Handlers[list[KemsEffect]] = Handlers()


@HANDLERS.on(TeamReady)
def _team_ready(engine: Engine, event: TeamReady) -> list[KemsEffect]:
    """RULES 3.2: the first seat of a team says its team's signs are agreed; play begins once every team
    has (or at ``ready_time``)."""
    state = engine.state
    _expect(state, "signing", "signs are agreed before the game")
    data = kems(state)
    if not 0 <= event.seat < state.players:
        raise IllegalAction(f"there is no seat {event.seat}")
    team = team_of(event.seat, state.players)
    if team_seats(team, state.players)[0] != event.seat:
        raise IllegalAction(f"the first seat of team {team} says its signs are agreed, not seat {event.seat}")
    if not isinstance(event.note, bytes) or len(event.note) not in (0, NOTE_DIGEST_SIZE):
        raise IllegalAction(f"a note's digest is {NOTE_DIGEST_SIZE} bytes")
    if team in data.agreed and (not event.note or data.agreed_notes.get(team) == event.note):
        raise IllegalAction(f"team {team} has agreed its signs already")
    if event.note:  # partners who chose again before play say which note holds
        data.agreed_notes[team] = event.note
    effects: list[KemsEffect] = [{"kind": "team_ready", "seat": event.seat, "wake": ()}]
    if team in data.agreed:
        return effects
    data.agreed.append(team)
    if len(data.agreed) == data.teams:
        effects += _close_signs(state)
    return effects


@HANDLERS.on(ReadyTime)
def _ready_time(engine: Engine, event: ReadyTime) -> list[KemsEffect]:
    state = engine.state
    _expect(state, "signing", "the time for signs is over")
    return _close_signs(state)


def _close_signs(state: TableState) -> list[KemsEffect]:
    data = kems(state)
    data.signs_closed_at = state.seq
    state.phase = "dealing"
    missing = [team for team in range(data.teams) if team not in data.agreed]
    return [{"kind": "signs_closed", "missing": missing}]


# --- the event loop -------------------------------------------------------------------------------


@hookimpl
def kdm_apply(engine: Engine, event: Event) -> list[KemsEffect] | None:
    return HANDLERS.apply(engine, event)


@HANDLERS.on(Deal)
def _deal(engine: Engine, event: Deal) -> list[KemsEffect]:
    """RULES 3.3: a fresh deck, shuffled, four cards to each player one at a time; the rest is the talon."""
    state = engine.state
    _expect(state, "dealing", "cards are dealt only between deals")
    data = kems(state)
    pool = deck_faces(state.options)
    tokens = state.new_tokens(len(pool))
    data.deals += 1
    data.dealer = (data.dealer + 1) % state.players
    first = (data.dealer + 1) % state.players
    order = [(first + i) % state.players for i in range(state.players)]
    state.hands = [[] for _ in range(state.players)]
    for index in range(HAND * state.players):
        state.hands[order[index % state.players]].append(tokens[-1 - index])
    state.zones[TALON] = tokens[: len(tokens) - HAND * state.players]
    state.zones[TABLE], state.zones[BIN] = [], []
    _new_deal_fields(data, event.seed, state.players)
    data.deal_started = state.seq
    data.to_check = order
    state.phase = "checking"
    # Hands are checked and cards turned by the table before anyone may play: no bot has news yet
    # (the hunt's opening wakes them all).
    return [
        {"kind": "shuffled", "zone": TALON, "tokens": tokens, "pool": pool, "seed": event.seed, "wake": ()},
        {"kind": "dealt", "round": data.deals, "dealer": data.dealer, "wake": ()},
    ]


def _new_deal_fields(data: KemsTable, seed: bytes, players: int) -> None:
    """Every field but the game-wide ones starts afresh (a field added for the deal needs no line here)."""
    fresh = KemsTable()
    for name in DEAL_FIELDS:
        setattr(data, name, getattr(fresh, name))
    data.tiebreak = tiebreaks(seed, players)


@HANDLERS.on(KeepHand)
def _keep_hand(engine: Engine, event: KeepHand) -> list[KemsEffect]:
    state = engine.state
    _expect(state, "checking", "hands are checked only after the deal")
    data = kems(state)
    if event.seat != data.to_check[0]:
        raise IllegalAction(f"seat {data.to_check[0]} checks its hand now, not seat {event.seat}")
    data.to_check.pop(0)
    # The next check, or the turn of the table's cards, is a duty, not a player's choice: no bot has news.
    kept: HandKept = {"kind": "hand_kept", "seat": event.seat, "wake": ()}
    return [kept, *_after_check(state)]


def _after_check(state: TableState) -> list[KemsEffect]:
    if not kems(state).to_check:
        _start_turning(state)
    return []


def _start_turning(state: TableState) -> None:
    """Cards are turned from the talon; RULES 3.4.4: an empty talon takes the shuffled bin first."""
    if state.zones[TALON]:
        state.phase = "turning"
    else:
        kems(state).reshuffle = BIN
        state.phase = "reshuffling"


@HANDLERS.on(Redraw)
def _redraw(engine: Engine, event: Redraw) -> list[KemsEffect]:
    """RULES 3.3: three or four of a rank are shown, go back into the talon (shuffled), and are redrawn."""
    state = engine.state
    _expect(state, "checking", "hands are checked only after the deal")
    data = kems(state)
    if event.seat != data.to_check[0]:
        raise IllegalAction(f"seat {data.to_check[0]} checks its hand now, not seat {event.seat}")
    hand = state.hands[event.seat]
    _check_shown(engine, event.seat, event.tokens, event.cards, hand)
    if len(event.tokens) < 3 or len({rank_of(card) for card in event.cards}) != 1:
        raise IllegalAction("only three or four cards of one rank are put back")
    state.faces.update(zip(event.tokens, event.cards, strict=True))
    for token in event.tokens:
        hand.remove(token)
    state.zones[TALON].extend(event.tokens)
    data.redraw = (event.seat, len(event.tokens))
    data.reshuffle = TALON
    state.phase = "reshuffling"
    return [{"kind": "redrawn", "seat": event.seat, "cards": list(event.cards)}]


@HANDLERS.on(Shuffle)
def _shuffle(engine: Engine, event: Shuffle) -> list[KemsEffect]:
    """The talon (after a redraw) or the bin (when the talon ran out) is shuffled into a new talon."""
    state = engine.state
    _expect(state, "reshuffling", "nothing is being shuffled now")
    data = kems(state)
    old = state.zones[TALON] + (state.zones[BIN] if data.reshuffle == BIN else [])
    new = state.new_tokens(len(old))
    for token in old:
        state.faces.pop(token, None)
    state.zones[TALON] = list(new)
    if data.reshuffle == BIN:
        state.zones[BIN] = []
    effects: list[KemsEffect] = [
        {"kind": "shuffled", "zone": TALON, "tokens": new, "from_tokens": old, "seed": event.seed},
        {"kind": "talon_shuffled", "from": data.reshuffle, "cards": len(new)},
    ]
    if data.redraw is not None:
        seat, count = data.redraw
        data.redraw = None
        for _ in range(count):
            state.hands[seat].append(state.zones[TALON].pop())
        state.phase = "checking"  # the same seat checks its new hand
    else:
        _start_turning(state)
    return effects


@HANDLERS.on(Turn)
def _turn(engine: Engine, event: Turn) -> list[KemsEffect]:
    """RULES 3.4.1 and 3.4.4: turn cards until four lie face up without three of a rank."""
    state = engine.state
    _expect(state, "turning", "no cards are being turned now")
    data = kems(state)
    if event.seat != data.dealer:
        raise IllegalAction(f"the dealer, seat {data.dealer}, turns the cards")
    talon, on_table = state.zones[TALON], state.zones[TABLE]
    wanted = min(TABLE_CARDS - len(on_table), len(talon))
    tops = tuple(reversed(talon[len(talon) - wanted :]))
    if event.tokens != tops or len(event.cards) != len(event.tokens):
        raise IllegalAction(f"the next cards to turn are {list(tops)}")
    _check_faces(engine, event.cards)
    del talon[len(talon) - wanted :]
    on_table.extend(event.tokens)
    state.faces.update(zip(event.tokens, event.cards, strict=True))
    effects: list[KemsEffect] = [{"kind": "turned", "cards": list(event.cards)}]
    if len(on_table) < TABLE_CARDS:
        data.reshuffle = BIN
        state.phase = "reshuffling"
        return effects
    faces = [state.faces[t] for t in on_table]
    if has_three_of_a_rank(faces):
        state.zones[BIN].extend(on_table)
        state.zones[TABLE] = []
        _start_turning(state)
        return [*effects, {"kind": "binned", "cards": faces, "reason": "three"}]
    return [*effects, *_open_hunt(state)]


def _open_hunt(state: TableState) -> list[KemsEffect]:
    data = kems(state)
    data.quiet_since = state.seq
    data.sweepable = False
    state.phase = "hunt"
    return [{"kind": "hunt_open", "table": [state.faces[t] for t in state.zones[TABLE]]}]


@HANDLERS.on(Exchange)
def _exchange(engine: Engine, event: Exchange) -> list[KemsEffect]:
    """RULES 3.4.2: give k cards, take k table cards; a card already taken voids the whole exchange."""
    state = engine.state
    data = kems(state)
    _check_seat(state, event.seat)
    if state.phase == "refused":
        if event.seat != data.refuser:
            raise IllegalAction(f"seat {data.refuser} refused the sweep and exchanges first")
    else:
        _expect(state, "hunt", "no exchanging now")
    k = len(event.give)
    if not 1 <= k <= HAND or len(event.take) != k or len(event.cards) != k:
        raise IllegalAction("an exchange gives and takes the same number of cards, 1 to 4")
    if len(set(event.take)) != k:
        raise IllegalAction("a table card is taken once")
    hand, on_table = state.hands[event.seat], state.zones[TABLE]
    gone = [t for t in event.take if t not in on_table]
    if gone:
        raise IllegalAction(f"card {gone[0]} is no longer on the table")
    _check_shown(engine, event.seat, event.give, event.cards, hand)
    state.faces.update(zip(event.give, event.cards, strict=True))
    for given, taken in zip(event.give, event.take, strict=True):
        hand[hand.index(given)] = taken
        on_table[on_table.index(taken)] = given
    data.quiet_since = state.seq
    data.sweepable = False
    effects: list[KemsEffect] = [
        {
            "kind": "exchanged",
            "seat": event.seat,
            "gave": list(event.cards),
            "took": [state.faces[t] for t in event.take],
        }
    ]
    if state.phase == "refused":
        data.refuser = None
        state.phase = "hunt"
    return effects


@HANDLERS.on(Quiet)
def _quiet(engine: Engine, event: Quiet) -> list[KemsEffect]:
    state = engine.state
    _expect(state, "hunt", "the hunt is not on")
    kems(state).sweepable = True
    return [{"kind": "quiet"}]


@HANDLERS.on(Sweep)
def _sweep(engine: Engine, event: Sweep) -> list[KemsEffect]:
    """RULES 3.4.3: « Balayage ? », once nobody has exchanged for ``sweep_after_ms``."""
    state = engine.state
    _expect(state, "hunt", "a sweep is asked during the hunt")
    _check_seat(state, event.seat)
    data = kems(state)
    if not data.sweepable:
        raise IllegalAction(
            f"a sweep may be asked after {state.options['sweep_after_ms']} ms without an exchange"
        )
    data.sweep_asker = event.seat
    data.sweep_asked_at = state.seq
    data.sweep_accepted = []
    state.phase = "sweep"
    others = tuple(seat for seat in range(state.players) if seat != event.seat)  # the asker waits
    return [{"kind": "sweep_asked", "seat": event.seat, "wake": others}]


@HANDLERS.on(SweepAnswer)
def _sweep_answer(engine: Engine, event: SweepAnswer) -> list[KemsEffect]:
    state = engine.state
    _expect(state, "sweep", "nobody asked for a sweep")
    _check_seat(state, event.seat)
    data = kems(state)
    if event.seat == data.sweep_asker or event.seat in data.sweep_accepted:
        raise IllegalAction(f"seat {event.seat} has no sweep question to answer")
    answered: SweepAnswered = {"kind": "sweep_answered", "seat": event.seat, "accept": event.accept}
    if not event.accept:
        data.refuser = event.seat
        data.sweep_asker = None
        state.phase = "refused"
        return [answered]
    data.sweep_accepted.append(event.seat)
    if len(data.sweep_accepted) < state.players - 1:
        answered["wake"] = (event.seat,)  # the others' answers stand: only this seat has news
        return [answered]
    answered["wake"] = ()  # the turn of new cards that follows wakes every bot
    return [answered, *_sweep_table(state)]


@HANDLERS.on(SweepTime)
def _sweep_time(engine: Engine, event: SweepTime) -> list[KemsEffect]:
    """RULES 3.4.3: a question left unanswered for ``sweep_answer_ms`` counts as accepted by the silent."""
    state = engine.state
    _expect(state, "sweep", "nobody asked for a sweep")
    data = kems(state)
    silent = [s for s in range(state.players) if s != data.sweep_asker and s not in data.sweep_accepted]
    data.sweep_accepted.extend(silent)
    answered: list[KemsEffect] = [
        {"kind": "sweep_answered", "seat": seat, "accept": True, "wake": ()} for seat in silent
    ]
    return [*answered, *_sweep_table(state)]


def _sweep_table(state: TableState) -> list[KemsEffect]:
    """Every answer accepts: the table cards go to the bin and four new ones are turned."""
    data = kems(state)
    faces = [state.faces[t] for t in state.zones[TABLE]]
    state.zones[BIN].extend(state.zones[TABLE])
    state.zones[TABLE] = []
    data.sweep_asker = None
    _start_turning(state)
    # New cards are turned by the table before anyone may exchange: the turn wakes every bot.
    return [{"kind": "binned", "cards": faces, "reason": "sweep", "wake": ()}]


@HANDLERS.on(Gesture)
def _gesture(engine: Engine, event: Gesture) -> list[KemsEffect]:
    """RULES 3.2: anyone may make any gesture at any time, and everyone sees it."""
    state = engine.state
    _playing(state)
    _check_seat(state, event.seat)
    if event.gesture not in GESTURES:
        raise IllegalAction(f"{event.gesture!r} is not a gesture; gestures: {', '.join(GESTURES)}")
    data = kems(state)
    data.reactions[state.seq] = effective_time(data.reactions, event, state.options["min_reaction_ms"])
    data.gestures.append((event.seat, event.gesture, state.seq))
    del data.gestures[:-FEED]
    return [{"kind": "gestured", "seat": event.seat, "gesture": event.gesture, "seq": state.seq}]


@HANDLERS.on(Say)
def _say(engine: Engine, event: Say) -> list[KemsEffect]:
    state = engine.state
    _playing(state)
    _check_seat(state, event.seat)
    if not state.options["spoken"]:
        raise IllegalAction("this table plays without words (spoken=off)")
    problem = chat_problem(event.text)  # the same form as a chat line's
    if problem:
        raise IllegalAction(problem)
    text = event.text.strip()
    data = kems(state)
    data.chat.append((event.seat, text))
    del data.chat[:-FEED]
    return [{"kind": "said", "seat": event.seat, "text": text}]


@HANDLERS.on(Call)
def _call(engine: Engine, event: Call) -> list[KemsEffect]:
    """RULES 3.5: a call opens a window (or joins it); the earliest effective time counts."""
    state = engine.state
    if state.phase not in ("hunt", "calling"):
        raise IllegalAction("calls are made during the hunt only")
    _check_seat(state, event.seat)
    data = kems(state)
    if event.call not in CALLS:
        raise IllegalAction(f"{event.call!r} is not a call; calls: {', '.join(CALLS)}")
    if event.call == "contre":
        if not (0 <= event.target < state.players) or team_of(event.target, state.players) == team_of(
            event.seat, state.players
        ):
            raise IllegalAction("Contre Kem's names an opponent")
        if event.seat in data.barred:
            raise IllegalAction(f"seat {event.seat} may not call Contre Kem's again this deal")
    elif event.target != -1:
        raise IllegalAction("Kem's and Double Kem's name no one")
    if any(seat == event.seat for seat, *_rest in data.calls):
        raise IllegalAction(f"seat {event.seat} has already called")
    eff = effective_time(data.reactions, event, state.options["min_reaction_ms"])
    data.reactions[state.seq] = eff
    opened = state.phase == "hunt"
    if opened:
        data.window_opened_by = state.seq
        state.phase = "calling"
    data.calls.append((event.seat, event.call, event.target, eff, state.seq))
    return [{"kind": "called", "seat": event.seat, "call": event.call, "target": event.target,
             "effective": eff, "opened": opened}]  # fmt: skip


@HANDLERS.on(Close)
def _close(engine: Engine, event: Close) -> list[KemsEffect]:
    """The call window's time is up: the earliest call counts, the others are void."""
    state = engine.state
    _expect(state, "calling", "no call is open")
    data = kems(state)
    ordered = race(data.calls, lambda call: call[0], lambda call: call[3], data.tiebreak)
    seat, call, target, _eff, seq = ordered[0]
    data.calls.clear()
    data.judged, data.judged_seq = (seat, call, target), seq
    judged: CallJudged = {"kind": "call_judged", "seat": seat, "call": call, "target": target,
                          "void": [c[0] for c in ordered[1:]]}  # fmt: skip
    judged["wake"] = ()  # hands are shown by the table: no bot has news yet
    partner = partner_of(seat, state.players)
    if call == "contre":
        judged["wake"] = (target,)  # the accused answers (RULES 3.5): theirs to choose, or show four
        state.phase = "answering"
        return [judged]
    data.to_show = [partner] if call == "kems" else [seat, partner]
    state.phase = "showing"
    return [judged]


@HANDLERS.on(ShowHand)
def _show_hand(engine: Engine, event: ShowHand) -> list[KemsEffect]:
    """A whole hand shown for a call, or in answer to a Contre by an accused who holds four of a kind
    (without four, the accused answers with ``ShowTwo``: RULES 3.5, the deal goes on)."""
    state = engine.state
    data = kems(state)
    if state.phase == "answering":
        assert data.judged is not None
        shower = data.judged[2]
    else:
        _expect(state, "showing", "no hand is being shown now")
        shower = data.to_show[0]
    if event.seat != shower:
        raise IllegalAction(f"seat {shower} shows their hand, not seat {event.seat}")
    hand = state.hands[shower]
    if sorted(event.tokens) != sorted(hand):
        raise IllegalAction(f"seat {shower} must show exactly the cards it holds")
    _check_shown(engine, shower, event.tokens, event.cards, hand)
    four = is_four_of_a_kind(event.cards)
    if state.phase == "answering" and not four:
        assert data.judged is not None
        raise IllegalAction(
            f"seat {shower} holds no four of a kind: it shows two cards to seat {data.judged[0]} only"
        )
    state.faces.update(zip(event.tokens, event.cards, strict=True))
    data.shown[shower] = four
    # The next hand shown, or the next deal, is the table's: no bot has news until play goes on.
    effects: list[KemsEffect] = [
        {"kind": "hand_shown", "seat": shower, "cards": list(event.cards), "four": four, "wake": ()}
    ]
    if state.phase == "answering":  # four: the Contre holds unless the partner has four too
        data.to_show = [partner_of(shower, state.players)]
        state.phase = "showing"
        return effects
    data.to_show.pop(0)
    if data.to_show:
        return effects
    return effects + _score(engine)


@HANDLERS.on(ShowTwo)
def _show_two(engine: Engine, event: ShowTwo) -> list[KemsEffect]:
    """RULES 3.5: a failed Contre: two cards to the caller only, -1, and no more Contre this deal."""
    state = engine.state
    _expect(state, "answering", "no Contre Kem's is being answered")
    data = kems(state)
    assert data.judged is not None
    caller, _call_kind, accused = data.judged
    if event.seat != accused:
        raise IllegalAction(f"seat {accused} answers the Contre, not seat {event.seat}")
    if (
        len(event.tokens) != 2
        or len(set(event.tokens)) != 2
        or not set(event.tokens) <= set(state.hands[accused])
    ):
        raise IllegalAction("two different cards of the accused's hand are shown")
    data.barred.append(caller)
    data.private_shows.append((caller, accused, tuple(event.tokens)))
    shown: ShownPrivately = {"kind": "shown_privately", "to": caller, "by": accused,
                             "tokens": list(event.tokens)}  # fmt: skip
    return [shown, _settle(state, "failed", -1), *_resume_hunt(state)]


def _resume_hunt(state: TableState) -> list[KemsEffect]:
    data = kems(state)
    data.quiet_since = state.seq
    data.sweepable = False
    state.phase = "hunt"
    return [{"kind": "hunt_resumed"}]


def _score(engine: Engine) -> list[KemsEffect]:
    """RULES 3.5: score the call that counted, from the hands shown; the deal ends."""
    state = engine.state
    data = kems(state)
    assert data.judged is not None
    caller, call, target = data.judged
    result: str
    if call == "kems":
        result = "confirmed" if data.shown[partner_of(caller, state.players)] else "failed"
        points = 1 if result == "confirmed" else -1
    elif call == "double":
        both = data.shown[caller] and data.shown[partner_of(caller, state.players)]
        result, points = ("confirmed", 2) if both else ("failed", -2)
    elif data.shown[partner_of(target, state.players)]:
        result, points = "void", 0  # against a double the Contre does not work
    else:
        result, points = "confirmed", 1
    return [{**_settle(state, result, points), "wake": ()}, *_end_deal(state)]


def _settle(state: TableState, result: str, points: int) -> CallResult:
    """The judged call is over: count it, add it to the results, give its team ``points``."""
    data = kems(state)
    assert data.judged is not None
    caller, call, target = data.judged
    team = team_of(caller, state.players)
    stats = data.stats[call]
    setattr(stats, result, getattr(stats, result) + 1)
    data.results.append((caller, call, target, result, data.judged_seq))
    del data.results[:-FEED]
    data.judged = None
    _add_points(state, team, points)
    return {"kind": "call_result", "seat": caller, "call": call, "target": target, "result": result,
            "points": points, "team": team, "scores": list(data.team_scores)}  # fmt: skip


@HANDLERS.on(Withheld)
def _withheld(engine: Engine, event: Withheld) -> list[KemsEffect]:
    """RULES 1.4 (Kem's): the team of the seat whose laptop withheld its keys loses 1, as for a call
    that failed; the deal is played again."""
    state = engine.state
    if not 0 <= event.seat < state.players:
        raise IllegalAction(f"there is no seat {event.seat}")
    team = team_of(event.seat, state.players)
    _add_points(state, team, -1)
    return [{"kind": "team_charged", "seat": event.seat, "team": team, "points": -1,
             "scores": list(kems(state).team_scores)}]  # fmt: skip


def _add_points(state: TableState, team: int, points: int) -> None:
    data = kems(state)
    data.team_scores[team] += points
    for seat in team_seats(team, state.players):
        state.scores[seat] = data.team_scores[team]


def _end_deal(state: TableState) -> list[KemsEffect]:
    data = kems(state)
    effects: list[KemsEffect] = [
        {"kind": "round_over", "round": data.deals, "scores": list(data.team_scores), "wake": ()}
    ]
    leaders = [t for t, score in enumerate(data.team_scores) if score >= state.options["target"]]
    if leaders:
        data.winner = max(leaders, key=lambda t: data.team_scores[t])
        state.phase = "over"
        winners = list(team_seats(data.winner, state.players))
        return [*effects, {"kind": "game_over", "winners": winners, "team": data.winner}]
    state.phase = "dealing"
    return effects


def _expect(state: TableState, phase: str, reason: str) -> None:
    if state.phase != phase:
        raise IllegalAction(f"{reason} (the table is {state.phase})")


def _playing(state: TableState) -> None:
    if state.phase in ("setup", "over"):
        raise IllegalAction(f"the game is not on (the table is {state.phase})")


def _check_seat(state: TableState, seat: int) -> None:
    if not 0 <= seat < state.players:
        raise IllegalAction(f"there is no seat {seat}")


def _check_faces(engine: Engine, cards: tuple[str, ...]) -> None:
    # A face of the deck is a well-formed face: membership alone checks both.
    if not DECK_SETS[engine.state.options["deck"]].issuperset(cards):
        raise IllegalAction("that is not a card of this deck")


def _check_shown(
    engine: Engine, seat: int, tokens: tuple[int, ...], cards: tuple[str, ...], hand: list[int]
) -> None:
    """Cards a seat shows must be distinct cards of its hand, with faces of this deck."""
    if len(cards) != len(tokens) or len(set(tokens)) != len(tokens) or not set(tokens) <= set(hand):
        raise IllegalAction(f"seat {seat} shows cards it does not hold")
    _check_faces(engine, cards)


# --- what the table waits for ---------------------------------------------------------------------


#: The phases of a hunt, when a table without ``spoken`` keeps silent (RULES 3.2: gestures only).
HUNTING = ("hunt", "sweep", "refused", "calling", "showing", "answering")


@hookimpl
def kdm_chat_refused(state: TableState, seat: int, text: str) -> str | None:
    """RULES 3.2: « à la parlante » (``spoken``) players may talk during play; otherwise no word is said
    during a hunt, only between deals."""
    if state.options["spoken"] or state.phase not in HUNTING:
        return None
    return "no words during a hunt at this table (spoken=off): gestures only"


#: Why a private note is refused once play has begun (RULES 3.2).
NOTES_CLOSED = "signs are agreed before the first « La chasse est ouverte ! »: no private word during play"


#: The size of a note's digest in a ``TeamReady``.
NOTE_DIGEST_SIZE = 16


def note_digest(data: Mapping[str, Any]) -> bytes:
    """What a ``TeamReady`` commits of its team's note: a digest of its data in canonical form. The data
    holds a secret salt (``Signs.salt``), so that nobody can find the signs from the digest by trying
    the few gestures there are."""
    packed = canonical_bytes(dict(data))
    return hashlib.blake2b(packed, digest_size=NOTE_DIGEST_SIZE, person=b"kdm kems note").digest()


@hookimpl
def kdm_note_refused(state: TableState, note: PrivateNote) -> str | None:
    """RULES 3.2: once the signs are closed (before the first deal, so before the first hunt), the only
    note taken is the one its team's ``TeamReady`` committed (``agreed_notes``), handed on again to a
    partner whose laptop came back: what the log proves was written in time, whatever a note says of
    itself."""
    data = kems(state)
    if data.signs_closed_at is None:
        return None
    agreed = data.agreed_notes.get(team_of(note.sender, state.players))
    if agreed is not None and note_digest(note.data) == agreed:
        return None
    return NOTES_CLOSED


@hookimpl
def kdm_player_may_return(state: TableState, seat: int) -> bool | None:
    """Not while calls race or are answered: the stand-in's call stands for the seat."""
    return state.phase not in ("calling", "showing", "answering")


@hookimpl
def kdm_awaiting(state: TableState) -> list[Duty]:
    phase = state.phase
    if phase == "dealing":
        return [Duty("deal")]
    if phase == "signing":
        return [Duty("ready_time", after_ms=state.options["signs_ms"], ref=0)]
    if phase == "reshuffling":
        return [Duty("shuffle")]
    data = kems(state)
    if phase == "checking":
        seat = data.to_check[0]
        return [Duty("check_hand", seat=seat, tokens=tuple(state.hands[seat]))]
    if phase == "turning":
        talon = state.zones[TALON]
        wanted = min(TABLE_CARDS - len(state.zones[TABLE]), len(talon))
        return [Duty("turn", seat=data.dealer, tokens=tuple(reversed(talon[len(talon) - wanted :])))]
    if phase == "hunt" and not data.sweepable:
        return [Duty("quiet", after_ms=state.options["sweep_after_ms"], ref=data.quiet_since)]
    if phase == "sweep":
        after = answer_ms(state, [s for s in state.people if s != data.sweep_asker])
        return [Duty("sweep_time", after_ms=after, ref=data.sweep_asked_at)]
    if phase == "refused" and data.refuser is not None:
        # RULES 3.4.3: the refuser's exchange, theirs to choose until sweep_answer_ms; then the first
        # card of their hand goes for the first table card.
        hand = tuple(state.hands[data.refuser])
        after = answer_ms(state, [data.refuser])
        return [Duty("exchange", seat=data.refuser, tokens=hand, after_ms=after, ref=data.sweep_asked_at)]
    if phase == "calling":
        return [Duty("close", after_ms=state.options["call_window_ms"], ref=data.window_opened_by)]
    if phase == "showing":
        seat = data.to_show[0]
        return [Duty("show_hand", seat=seat, tokens=tuple(state.hands[seat]))]
    if phase == "answering":
        assert data.judged is not None
        # RULES 3.5: the accused chooses the two cards shown, until show_answer_ms (a hand of four has no
        # choice: it is shown whole, at once); then the table chooses.
        accused = data.judged[2]
        after = state.options["show_answer_ms"]
        return [
            Duty(
                "answer_contre",
                seat=accused,
                tokens=tuple(state.hands[accused]),
                after_ms=after,
                ref=data.window_opened_by,  # the call's: gestures meanwhile do not restart the time
            )
        ]
    return []


#: The least time a person is given to answer « Balayage ? », or to make the exchange a refusal
#: obliges (issue "A first evening that works": 5 s ran out while a person was still marking cards).
PEOPLE_ANSWER_MS = 10000


def answer_ms(state: TableState, seats: list[int]) -> int:
    """How long ``seats`` have to answer the sweep (``sweep_answer_ms``), at least ``PEOPLE_ANSWER_MS``
    when one of them is a person's (``TableState.people``)."""
    chosen: int = state.options["sweep_answer_ms"]
    if state.people and not set(seats).isdisjoint(state.people):
        return max(chosen, PEOPLE_ANSWER_MS)
    return chosen


@hookimpl
def kdm_claimed_faces(event: Event) -> Mapping[int, str] | None:
    """The cards laid face up and named: given to the table, turned from the talon, shown for a redraw
    or a call."""
    if isinstance(event, Exchange):
        return dict(zip(event.give, event.cards, strict=False))
    if isinstance(event, Redraw | Turn | ShowHand):
        return dict(zip(event.tokens, event.cards, strict=False))
    return None


@hookimpl
def kdm_false_claim(event: Event, state: TableState, faces: Mapping[int, str]) -> str | None:
    """RULES 3.5: an accused who answers a Contre with two cards says its hand is no Kem's, and shows
    two of different ranks (a hand of four that is no four of a kind always has two). Judged when the
    deck reads every card of the hand."""
    if not isinstance(event, ShowTwo) or state.phase != "answering":
        return None
    hand = state.hands[event.seat] if 0 <= event.seat < state.players else []
    if len(set(event.tokens)) != 2 or not set(event.tokens) <= set(hand):
        return None  # not two cards of its hand: the rules refuse it (``_show_two``)
    if not all(token in faces for token in hand):
        return None
    if is_four_of_a_kind([faces[token] for token in hand]):
        return f"seat {event.seat} holds four of a kind: it answers the Contre by showing its hand"
    if len({rank_of(faces[token]) for token in event.tokens}) < 2:
        return "the two cards shown for a failed Contre Kem's are of different ranks (RULES 3.5)"
    return None


@hookimpl
def kdm_reveal(duty: Duty, state: TableState, faces: Mapping[int, str]) -> Event | None:
    """Build the events only a process that knows the faces can: it answers truthfully for the seat."""
    if duty.seat is None:
        return None
    seat = duty.seat
    if duty.kind == "check_hand":
        by_rank: dict[str, list[int]] = {}
        for token in state.hands[seat]:
            by_rank.setdefault(rank_of(faces[token]), []).append(token)
        triple = next((tokens for tokens in by_rank.values() if len(tokens) >= 3), None)
        if triple is None:
            return KeepHand(seat=seat)
        return Redraw(seat=seat, tokens=tuple(triple), cards=tuple(faces[t] for t in triple))
    if duty.kind == "turn":
        return Turn(seat=seat, tokens=duty.tokens, cards=tuple(faces[t] for t in duty.tokens))
    if duty.kind == "show_hand":  # a call asks for a whole hand: it is shown as it is
        shown = tuple(state.hands[seat])
        return ShowHand(seat=seat, tokens=shown, cards=tuple(faces[t] for t in shown))
    if duty.kind == "exchange":  # a refuser who let the time run out: first card for first table card
        first, table_card = state.hands[seat][0], state.zones[TABLE][0]
        return Exchange(seat=seat, give=(first,), cards=(faces[first],), take=(table_card,))
    if duty.kind == "answer_contre":
        hand = state.hands[seat]
        cards = tuple(faces[t] for t in hand)
        if is_four_of_a_kind(cards):  # the rules leave no choice: the Contre was right
            return ShowHand(seat=seat, tokens=tuple(hand), cards=cards)
        return ShowTwo(seat=seat, tokens=two_different_ranks(hand, faces))
    return None


def two_different_ranks(hand: list[int], faces: Mapping[int, str]) -> tuple[int, ...]:
    """Two cards of different ranks: the proof, to the caller, that this hand is no Kem's."""
    first = hand[0]
    second = next(t for t in hand[1:] if rank_of(faces[t]) != rank_of(faces[first]))
    return (first, second)
