"""Kem's bots (RULES 3): collect four of a kind, sign to the partner, call on the partner's sign, and
watch the opponents' gestures to catch their sign with a Contre Kem's.

A bot decides from its ``SeatView`` only (its hand, the public table and gesture feed, its team's
privately agreed signs). What it remembers lives in ``bot.memory``: the gestures it has seen, and for
each opponent team how often each gesture came just before one of their confirmed calls (less each
time a Contre Kem's of its team on that gesture failed). Two settings there shape a bot (the bot
league in ``benchmarks/kems_league.py`` plays them against each other):

- ``kems_signs``: ``fixed`` (one sign for the whole game) or ``vary`` (a different sign each deal, from
  a rotation agreed with the single note before play);
- ``kems_watch``: whether it learns the opponents' signs and calls Contre Kem's on them.

The team's first seat chooses the signs and sends them to its partner in a ``PrivateNote``; nothing
about them reaches the table. Decoy gestures are drawn once per slot so a bot's plan is stable while
it waits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from itertools import islice

from kdm.agents import Bot, Decision
from kdm.cards import RANK_OF, RANKS, rank_of
from kdm.deck import PrivateNote
from kdm.engine import SeatView
from kdm.events import ShowHand
from kdm.hookspecs import hookimpl
from kdm.plugins.kems.events import Call, Exchange, Gesture, ShowTwo, Sweep, SweepAnswer, TeamReady
from kdm.plugins.kems.rules import GESTURES, HAND, NAME, is_four_of_a_kind, partner_of, team_of
from kdm.plugins.kems.view import SALT_SIZE, KemsView, Signs

#: A learned gesture must have come before an opponent's confirmed call this often to be trusted...
CATCH_MIN_SCORE = 2.0
#: ...and lead the next likeliest gesture of that team by this much.
CATCH_MARGIN = 1.0
#: How much a failed Contre takes off the evidence for the gesture it trusted.
DOUBT = 1.0
#: How many sign sets a team that varies its sign agrees before play (one per deal, in turn).
ROTATION = 12
#: Re-sign when the partner has not called after this many events.
RESIGN_AFTER_EVENTS = 40
PRESIGN_CHANCE = 0.5
#: Mean ms between decoy gestures of one bot.
DECOY_EVERY_MS = (4000.0, 12000.0)


@dataclass
class Watch:
    """What a Kem's bot remembers: the gestures it has seen (by seq), for each opponent team the weight
    of evidence for each gesture being their sign, and the choices it drew once so that its plans stay
    the same while it waits (signs it chose, the sign it makes, pre-signs, decoys)."""

    #: seq → (seat, gesture), in log order (the feed is in log order and only newer gestures join it).
    gestures: dict[int, tuple[int, str]] = field(default_factory=dict)
    evidence: dict[int, dict[str, float]] = field(default_factory=dict)
    last_result_seq: int = -1
    chosen: dict[int, Signs] = field(default_factory=dict)
    signing: dict[tuple[int, int | None], str] = field(default_factory=dict)
    presigning: dict[int, bool] = field(default_factory=dict)
    #: (deal, decoys made) → the decoy gesture planned and the decision that makes it (made once).
    decoys: dict[tuple[int, int], tuple[str, Decision]] = field(default_factory=dict)
    #: For each opponent team, its likeliest sign once the evidence is strong enough (None: not yet);
    #: worked out again only when the evidence changes.
    suspects: dict[int, str | None] = field(default_factory=dict)
    #: The last hand and table this bot weighed, and what it concluded (most events change neither).
    weighed: tuple[tuple[object, object], Weighing] | None = None
    #: Gestures (by seq) this bot has already been tempted to misread or bluff on: once each.
    tempted: set[int] = field(default_factory=set)
    #: This deal's gestures as ``_this_deal`` last made them: (deal started, newest seq, gestures).
    this_deal: tuple[int, int | None, tuple[tuple[int, int, str], ...]] | None = None


@dataclass(slots=True)
class Weighing:
    """What a bot concludes from its hand and the table's cards: how many it holds of each rank, its
    largest set, whether that is four of a kind, and the exchange worth making (None: none is)."""

    held: dict[str, int]
    largest: int
    four: bool
    exchange: Exchange | None
    #: The exchange it makes when obliged to swap (after refusing a sweep), worked out when needed.
    obliged: dict[bool, Exchange | None]


@hookimpl
def kdm_bot_decide(view: SeatView, bot: Bot) -> Decision | None:
    part = view.rules.get(NAME)
    if not isinstance(part, KemsView):
        return None
    return decide(view, part, bot)


def decide(view: SeatView, table: KemsView, bot: Bot) -> Decision | None:
    """A Kem's bot's next move, in order of urgency."""
    watch = _watch(bot)
    _observe(view, table, watch)
    if view.phase in ("setup", "over"):
        return None
    if view.phase == "signing":
        return _agree_signs(view, table, bot, watch)
    # Each chooser looked up by its name at every look, as a call by name would: one replaced in this
    # module (a test's) is the one asked.
    module = globals()
    for name in _choosers(view.phase, table.signs_closed):
        decision: Decision | None = module[name](view, table, bot, watch)
        if decision is not None:
            return decision
    return None


# --- signs ----------------------------------------------------------------------------------------


def _agree_signs(view: SeatView, table: KemsView, bot: Bot, watch: Watch) -> Decision | None:
    """The team's first seat chooses the signs once, before play (RULES 3.2), tells its partner, then
    tells the table its team has agreed: with ``kems_signs=vary``, a rotation of one sign set per deal,
    so that no private word is needed once play has begun."""
    if view.seat >= view.players // 2 or table.signs_closed:
        return None
    if table.signs:
        if view.phase == "signing" and table.team not in table.agreed:
            return Decision(TeamReady(seat=view.seat, note=table.note), 50.0)
        return None
    chosen = watch.chosen.get(0)
    if chosen is None:
        count = 2 if view.options["signs"] == "multi" else 1
        picked = bot.rng.sample(GESTURES, count + 1)
        rotation: tuple[tuple[str, ...], ...] = ()
        if bot.memory.get("kems_signs", "fixed") == "vary":
            others = [g for g in GESTURES if g != picked[count]]
            rotation = tuple(tuple(bot.rng.sample(others, count)) for _ in range(ROTATION))
        salt = bot.rng.randbytes(SALT_SIZE)  # as secret as the bot's signs, and a simulation replays it
        chosen = watch.chosen[0] = Signs(tuple(picked[:count]), picked[count], table.deal, rotation, salt)
    note = PrivateNote(sender=view.seat, to=table.partner, data=chosen.note_data())
    return Decision(note, 50.0)


def _sign(view: SeatView, table: KemsView, bot: Bot, watch: Watch) -> Decision | None:
    """Holding four of a kind: make the team's sign (again if the partner seems to have missed it);
    holding three: sometimes the pre-sign."""
    if not table.signs:
        return None
    weighing = _weigh(view, table, watch)
    if weighing.four:
        last_sign = max((seq for seq, g in _mine(view, table, watch) if g in table.signs), default=None)
        if last_sign is not None and view.seq - last_sign < RESIGN_AFTER_EVENTS:
            return None
        key = (table.deal, last_sign)
        if key not in watch.signing:
            watch.signing[key] = bot.rng.choice(table.signs)
        sign = watch.signing[key]
        return Decision(Gesture(seat=view.seat, gesture=sign), bot.think_ms())
    presign = table.presign
    if presign is None or weighing.largest != 3:
        return None
    if any(g == presign for _seq, g in _mine(view, table, watch)):
        return None
    if table.deal not in watch.presigning:
        watch.presigning[table.deal] = bot.chance(PRESIGN_CHANCE)
    if not watch.presigning[table.deal]:
        return None
    return Decision(Gesture(seat=view.seat, gesture=presign), bot.think_ms())


def _mine(view: SeatView, table: KemsView, watch: Watch) -> list[tuple[int, str]]:
    """This bot's gestures this deal, newest first (a modified client's chooser asks for them too:
    ``tests/modified_clients.py``)."""
    seat = view.seat
    return [(seq, g) for seq, s, g in _this_deal(watch, table.deal_started) if s == seat]


def _answer_sign(view: SeatView, table: KemsView, bot: Bot, watch: Watch) -> Decision | None:
    """The partner signed this deal and nobody has called yet: Kem's (Double with four here too)."""
    if view.phase not in ("hunt", "calling") or not table.signs:
        return None
    if table.calls and any(seat == view.seat for seat, _c, _t in table.calls):
        return None
    # The partner's latest sign this deal, and its latest gesture (one look at this deal's gestures).
    partner, signs = table.partner, table.signs
    trigger: int | None = None
    latest: tuple[int, str] | None = None
    for seq, seat, gesture in _this_deal(watch, table.deal_started):
        if seat != partner:
            continue
        if latest is None:
            latest = (seq, gesture)
        if gesture in signs and (trigger is None or seq > trigger):
            trigger = seq
    if trigger is None:
        return _misread(view, bot, watch, latest)
    call = "double" if _weigh(view, table, watch).four else "kems"
    return Decision(Call(seat=view.seat, call=call, trigger=trigger), bot.reaction_ms())


# --- watching the opponents -----------------------------------------------------------------------


def _watch(bot: Bot) -> Watch:
    watch = bot.memory.get("kems_memory")
    if watch is None:
        watch = bot.memory["kems_memory"] = Watch()
    assert isinstance(watch, Watch)
    return watch


def _this_deal(watch: Watch, deal_started: int) -> tuple[tuple[int, int, str], ...]:
    """This deal's gestures, newest first: the memory holds every gesture seen, in log order, so
    decisions made at every event look back only as far as the deal goes. Kept until a gesture or a
    deal is new (the memory only grows, at its end)."""
    newest = next(reversed(watch.gestures), None)
    kept = watch.this_deal
    if kept is not None and kept[0] == deal_started and kept[1] == newest:
        return kept[2]
    gestures = []
    for seq in reversed(watch.gestures):
        if seq <= deal_started:
            break
        seat, gesture = watch.gestures[seq]
        gestures.append((seq, seat, gesture))
    made = tuple(gestures)
    watch.this_deal = (deal_started, newest, made)
    return made


def _observe(view: SeatView, table: KemsView, watch: Watch) -> None:
    """Remember new gestures; after an opponent's confirmed call, weigh the gestures that led to it."""
    # Gestures and results come in log order: when the newest is known, so is every one before it.
    if table.gestures and table.gestures[-1][2] not in watch.gestures:
        for seat, gesture, seq in table.gestures:
            watch.gestures.setdefault(seq, (seat, gesture))
    if not table.results or table.results[-1][4] <= watch.last_result_seq:
        return
    for caller, call, target, result, seq in table.results:
        if seq <= watch.last_result_seq:
            continue
        watch.last_result_seq = seq
        if call == "contre" and result == "failed":
            _doubt(view, watch, caller, target, seq)
        if call == "contre" or result != "confirmed":
            continue
        signers = [partner_of(caller, view.players)] + ([caller] if call == "double" else [])
        watch.suspects.pop(team_of(caller, view.players), None)
        evidence = watch.evidence.setdefault(team_of(caller, view.players), {})
        for signer in signers:
            before = sorted((s, g) for s, (who, g) in watch.gestures.items() if who == signer and s < seq)
            if before:
                evidence[before[-1][1]] = (
                    evidence.get(before[-1][1], 0.0) + 1.0
                )  # the sign is most likely the last gesture before the call
                for _s, gesture in before[-4:-1]:
                    evidence[gesture] = evidence.get(gesture, 0.0) + 0.25


def _doubt(view: SeatView, watch: Watch, caller: int, accused: int, seq: int) -> None:
    """A Contre of this bot's team failed: the gesture it trusted was no sign (not, or no longer)."""
    if team_of(caller, view.players) != team_of(view.seat, view.players):
        return
    before = [(s, g) for s, (who, g) in watch.gestures.items() if who == accused and s < seq]
    if before:
        gesture = max(before)[1]
        watch.suspects.pop(team_of(accused, view.players), None)
        evidence = watch.evidence.setdefault(team_of(accused, view.players), {})
        evidence[gesture] = evidence.get(gesture, 0.0) - DOUBT


def _catch_sign(view: SeatView, table: KemsView, bot: Bot, watch: Watch) -> Decision | None:
    """An opponent just made the gesture that has preceded their team's calls: Contre Kem's."""
    if not bot.memory.get("kems_watch", True) or view.seat in table.barred:
        return None
    if view.phase not in ("hunt", "calling") or (
        table.calls and any(seat == view.seat for seat, _c, _t in table.calls)
    ):
        return None
    mine = table.team
    for seq in islice(reversed(watch.gestures), 3):
        if seq <= table.deal_started:
            continue
        seat, gesture = watch.gestures[seq]
        team = team_of(seat, view.players)
        if team == mine:
            continue
        if team not in watch.suspects:
            watch.suspects[team] = _suspect(watch.evidence.get(team, {}))
        if watch.suspects[team] == gesture:
            return Decision(Call(seat=view.seat, call="contre", target=seat, trigger=seq), bot.reaction_ms())
        bluff = _bluff(view, seat, seq, bot, watch)
        if bluff is not None:
            return bluff
    return None


def _misread(view: SeatView, bot: Bot, watch: Watch, latest: tuple[int, str] | None) -> Decision | None:
    """Now and then the partner's ``latest`` gesture this deal, no sign, is taken for one: « Kem's ! »,
    wrongly."""
    if latest is None or latest[0] in watch.tempted:
        return None
    watch.tempted.add(latest[0])
    if not bot.chance(bot.timing.misread_chance):
        return None
    return Decision(Call(seat=view.seat, call="kems", trigger=latest[0]), bot.reaction_ms())


def _bluff(view: SeatView, seat: int, seq: int, bot: Bot, watch: Watch) -> Decision | None:
    """Now and then an opponent's gesture is taken for their sign on no evidence: a Contre that may fail."""
    if seq in watch.tempted:
        return None
    watch.tempted.add(seq)
    if not bot.chance(bot.timing.bluff_chance):
        return None
    return Decision(Call(seat=view.seat, call="contre", target=seat, trigger=seq), bot.reaction_ms())


def _suspect(weights: dict[str, float]) -> str | None:
    """The gesture the evidence names as a team's sign: well supported, and well ahead of the next."""
    likely = sorted(weights.items(), key=lambda item: (-item[1], item[0]))[:2]
    if not likely or likely[0][1] < CATCH_MIN_SCORE:
        return None
    runner_up = likely[1][1] if len(likely) > 1 else 0.0
    return likely[0][0] if likely[0][1] - runner_up >= CATCH_MARGIN else None


# --- the hunt -------------------------------------------------------------------------------------


#: Where each rank comes in ``RANKS``: ties go to the lower rank.
RANK_ORDER = {rank: index for index, rank in enumerate(RANKS)}


def _count_ranks(faces: Iterable[str]) -> dict[str, int]:
    """How many of each rank (a plain dict: this runs at every look of every bot)."""
    counts: dict[str, int] = {}
    for face in faces:
        rank = RANK_OF[face]
        counts[rank] = counts.get(rank, 0) + 1
    return counts


def best_exchange(view: SeatView, table: KemsView, forced: bool = False) -> Exchange | None:
    """The exchange that brings this hand closest to four of a kind: take the table's cards of one
    rank, give the cards of the ranks held least. Only an exchange that makes the largest set larger is
    worth making; ``forced`` (after refusing a sweep) swaps one card all the same."""
    return _exchange_for(view, table, _count_ranks(view.cards), forced)


def _exchange_for(view: SeatView, table: KemsView, held: dict[str, int], forced: bool) -> Exchange | None:
    """``best_exchange``, for a hand whose ranks are counted (``held``)."""
    if sum(held.values()) != HAND or not table.table:  # (``held`` counts the faces the seat knows)
        return None
    best = max(held.values())
    if best == HAND and not forced:
        return None  # four of a kind already (as below, without counting the table)
    # Loops, not comprehensions: every bot weighs the table whenever it changes.
    on_table: dict[str, int] = {}
    for _token, face in table.table:
        rank = RANK_OF[face]
        on_table[rank] = on_table.get(rank, 0) + 1
    gains: dict[str, int] = {}
    for rank, count in on_table.items():
        mine = held.get(rank, 0)
        gains[rank] = mine + min(count, HAND - mine)
    if not forced and max(gains.values()) <= best:
        return None  # as below, without choosing among ranks that are no use: most looks end here
    hand = [(t, f) for t, f in view.hand if f is not None]
    rank = max(gains, key=lambda r: (gains[r], -RANK_ORDER[r]))
    if gains[rank] <= best or best == HAND:
        if not forced:
            return None
        # Keep the largest set; give away one card of the rank held least, for any table card.
        keep = max(held, key=lambda r: (held[r], -RANK_ORDER[r]))
        rank = next((r for r in on_table if r != keep), keep)
    faces = dict(hand)
    count = min(on_table.get(rank, 0), HAND - held.get(rank, 0)) or 1
    # The cards of other ranks, those of the ranks held least first (then by token).
    spare = [t for _held, t in sorted([(held[RANK_OF[f]], t) for t, f in hand if RANK_OF[f] != rank])]
    take = [t for t, f in table.table if RANK_OF[f] == rank][:count]
    give = tuple(spare[: len(take)])
    if not give:
        return None
    take = take[: len(give)]
    return Exchange(seat=view.seat, give=give, cards=tuple([faces[t] for t in give]), take=tuple(take))


def _weigh(view: SeatView, table: KemsView, watch: Watch) -> Weighing:
    """What this bot concludes from its hand and the table, worked out again only when either changed
    (and its hand counted again only when the hand changed: the table changes far more often)."""
    weighed = watch.weighed
    if weighed is not None and weighed[0][0] is view.hand and weighed[0][1] is table.table:
        return weighed[1]  # the very hand and table (views keep them while they stay the same)
    key = (view.hand, table.table)
    if weighed is not None and weighed[0] == key:
        watch.weighed = (key, weighed[1])  # kept with these very tuples, for the look above
        return weighed[1]
    if weighed is not None and weighed[0][0] == key[0]:
        held, largest, four = weighed[1].held, weighed[1].largest, weighed[1].four
    else:
        cards = view.cards
        held = _count_ranks(cards)
        largest = max(held.values(), default=0)
        four = len(cards) == HAND and largest == HAND
    weighing = Weighing(held, largest, four, _exchange_for(view, table, held, forced=False), {})
    watch.weighed = (key, weighing)
    return weighing


def _exchange(view: SeatView, table: KemsView, bot: Bot, watch: Watch) -> Decision | None:
    exchange = _weigh(view, table, watch).exchange
    return None if exchange is None else Decision(exchange, bot.think_ms())


def _answer_contre(view: SeatView, table: KemsView, bot: Bot, watch: Watch) -> Decision | None:
    """Accused by a Contre (RULES 3.5): a hand of four is shown whole at once (there is no choice);
    otherwise two cards of different ranks, chosen as a person would, before the table chooses."""
    if view.phase != "answering" or table.judged is None or table.judged[2] != view.seat:
        return None
    held = [(token, face) for token, face in view.hand if face is not None]
    if len(held) == HAND and is_four_of_a_kind([face for _token, face in held]):
        tokens, cards = zip(*held, strict=True)
        return Decision(ShowHand(seat=view.seat, tokens=tokens, cards=cards), bot.think_ms() / 4)
    pairs = [
        (a, b) for i, (a, fa) in enumerate(held) for b, fb in held[i + 1 :] if rank_of(fa) != rank_of(fb)
    ]
    if not pairs:
        return None  # the table chooses when the time is up
    in_time = view.options["show_answer_ms"] / 2  # a person chooses within the time the table gives
    return Decision(ShowTwo(seat=view.seat, tokens=bot.rng.choice(pairs)), min(bot.think_ms(), in_time))


def _obliged(view: SeatView, table: KemsView, bot: Bot, watch: Watch) -> Decision | None:
    """Refused a sweep: exchange right away."""
    if view.phase != "refused" or table.refuser != view.seat:
        return None
    obliged = _weigh(view, table, watch).obliged
    if True not in obliged:
        obliged[True] = _exchange_for(view, table, _weigh(view, table, watch).held, forced=True)
    exchange = obliged[True]
    return None if exchange is None else Decision(exchange, bot.think_ms())


#: At a table of people, how much longer than its own thinking a bot lets the quiet table be before
#: asking « Balayage ? »: a person looks the four table cards over against their hand first (a bot
#: that asked as soon as it may kept people answering every 4 s).
PEOPLE_SWEEP_WAIT_MS = 4000.0


def _ask_sweep(view: SeatView, table: KemsView, bot: Bot, watch: Watch) -> Decision | None:
    if not table.sweepable or _weigh(view, table, watch).four:  # holding four: it waits for its partner
        return None
    wait = PEOPLE_SWEEP_WAIT_MS if bot.paced else 0.0
    return Decision(Sweep(seat=view.seat), wait + bot.think_ms())


def _sweep_answer(view: SeatView, table: KemsView, bot: Bot, watch: Watch) -> Decision | None:
    """Accept, unless the table holds a card worth taking."""
    if view.phase != "sweep" or table.sweep_asker == view.seat or view.seat in table.sweep_accepted:
        return None
    refuse = _weigh(view, table, watch).exchange is not None
    return Decision(SweepAnswer(seat=view.seat, accept=not refuse), bot.think_ms())


def _decoy(view: SeatView, table: KemsView, bot: Bot, watch: Watch) -> Decision | None:
    """Now and then a gesture that means nothing, so the real sign does not stand out."""
    seat, started = view.seat, table.deal_started
    made = 0
    for maker, _gesture, seq in table.gestures:
        if maker == seat and seq > started:
            made += 1
    key = (table.deal, made)
    planned = watch.decoys.get(key)
    if planned is None:
        choices = [g for g in GESTURES if g not in table.signs and g != table.presign]
        gesture, delay = bot.rng.choice(choices), bot.rng.uniform(*DECOY_EVERY_MS)
        planned = watch.decoys[key] = (gesture, Decision(Gesture(seat=seat, gesture=gesture), delay))
    gesture, decision = planned
    if gesture in table.signs or gesture == table.presign:
        # Planned before the team agreed (or agreed anew): now it would tell the partner a lie.
        choices = [g for g in GESTURES if g not in table.signs and g != table.presign]
        gesture = bot.rng.choice(choices)
        decision = Decision(Gesture(seat=seat, gesture=gesture), decision.delay_ms)
        watch.decoys[key] = (gesture, decision)
    return decision


# --- in order of urgency --------------------------------------------------------------------------

Chooser = Callable[[SeatView, KemsView, Bot, Watch], Decision | None]

#: What a bot may do in play, most urgent first (``decide`` asks each in turn): the partner's sign
#: answered before a hand is bettered, anything before a decoy.
CHOOSERS: tuple[Chooser, ...] = (
    _agree_signs, _answer_contre, _answer_sign, _catch_sign, _obliged, _sweep_answer,
    _sign, _exchange, _ask_sweep,
    _decoy,
)  # fmt: skip
#: The phases in which a chooser may decide something (the others' in every phase of play). Asked in
#: another, it answers None at once and changes nothing, so it is not asked: bots look at most events.
ONLY_IN: dict[Chooser, frozenset[str]] = {
    _answer_contre: frozenset({"answering"}),
    _answer_sign: frozenset({"hunt", "calling"}),
    _catch_sign: frozenset({"hunt", "calling"}),
    _obliged: frozenset({"refused"}),
    _sweep_answer: frozenset({"sweep"}),
    _sign: frozenset({"hunt"}),
    _exchange: frozenset({"hunt"}),
    _ask_sweep: frozenset({"hunt"}),
}


@cache
def _choosers(phase: str, signs_closed: bool) -> tuple[str, ...]:
    """The names of the choosers that may decide something in ``phase``, most urgent first (once the
    signs are closed, nobody agrees signs any more)."""
    return tuple(
        choose.__name__
        for choose in CHOOSERS
        if (choose not in ONLY_IN or phase in ONLY_IN[choose])
        and not (signs_closed and choose is _agree_signs)
    )
