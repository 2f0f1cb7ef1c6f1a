"""The fair deck: the table's deck service when no process may see a face the rules do not show it.

It stands where ``kdm.deck.OpenDeck`` stands (``observe``, ``knowledge``, ``fulfil``, ``false_claim``,
``note``) and runs DESIGN 7 over the table's log and direct messages, sans-I/O: the peer proposes the
log entries ``work`` returns (``ToLog``), sends what it returns for other seats' processes (``ToNext``
turns, ``ToSeat`` keys and ``ToTable`` secrets, the last two sealed; ``Reseal`` keys it seals into the
log), and feeds back what was committed (``committed``, ``show_keys``, ``applied``) and what arrived
(``ahead``, ``received``, ``opened``). Every process holds two parts:

- **shared**, the same everywhere because it comes from the log alone: each shuffle's turns and
  commitments, which token lies at which position of which shuffle, the keys shown for cards the table
  saw and so their faces, the keys asked for in the log;
- **private**, this process's alone: the secrets of the seats it plays and, for each, the keys handed to
  it (``kdm.fair.keyring.KeyRing``), so the faces of its own cards; the secrets others sent for the
  audits, and what the audits found.

The engine goes on making tokens as it does with the open deck (a ``shuffled`` effect); here each one
starts a shuffle of the cards it names, every seat's turn in seat order (``lock`` then ``key``; a
reshuffle of cards already dealt first has each seat swap its key on them for a blind, ``strip``), and the
token made ``j``-th is the card at position ``j``. Then:

- a token in a seat's hand: every other process hands that seat its keys for it (the one who passed it
  there hands all it holds: a pass needs no one else);
- a token a duty awaits that lies in no hand (a card drawn from the pile, the talon's cards turned up):
  every process hands its key to the seat the duty names, whose event carries them all (a duty of
  nobody's in particular: every seat shows its key in the log);
- a face an action names (a hand shown, cards laid on the table: ``kdm_claimed_faces``): the acting
  process attaches every key for it to the action, checked before the rules see it;
- a card shown to one seat (``shown_privately``): the seat that shows it hands over its keys;
- a shuffle none of whose cards is hidden any more (a round's deal once the next round is dealt; every
  shuffle when the game is over): every seat sends every other process its secrets (never through the
  log) and each audits it, naming a seat that cheated (a duplicated card, a key that is not the one
  committed, a face claimed falsely, a reveal taken on its word that was false);
- a key that does not come within ``ASK_AFTER_MS``: asked for in the log, and owed there, sealed.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from kdm.deck import MAX_NOTES, Knowledge, OpenDeck, PrivateNote, Reveal, reveal_duty
from kdm.effects import Effect
from kdm.engine import Duty, Engine
from kdm.entries import DeckPart
from kdm.events import Event
from kdm.fair.group import GroupError, commitment, invert, lock, product, random_key
from kdm.fair.keyring import KeyRing
from kdm.fair.messages import (
    Finding,
    Reseal,
    ToLog,
    ToNext,
    ToSeat,
    ToTable,
    pack_keys,
    unpack_keys,
)
from kdm.fair.shuffle import (
    Cheat,
    Secrets,
    audit,
    deal_secrets,
    face_of,
    open_deck,
    pass_one,
    pass_two,
    reveal,
    unblinding,
)  # fmt: skip
from kdm.fair.timings import Timings
from kdm.fair.turns import (
    POINT,
    RESHUFFLE_STEPS,
    Shuffle,
    deck_hash,
    join_ints,
    split_ints,
    split_points,
)
from kdm.record import TableRecord
from kdm.state import TableState

log = logging.getLogger("kdm.fair")

__all__ = [
    "ASK_AFTER_MS",
    "FairDeck",
    "Finding",
    "Reseal",
    "Timings",
    "ToLog",
    "ToNext",
    "ToSeat",
    "ToTable",
    "deck_hash",
    "deck_of_table",
    "pack_keys",
    "unpack_keys",
]

#: How long a seat waits for a key of a card in its hand before it asks for it in the log (ms): keys
#: come in milliseconds; this is a process that does not send them.
ASK_AFTER_MS = 3000.0
#: A key sealed for one seat, as the log holds it (PyNaCl ``Box``: nonce, key, tag).
SEALED_KEY = 24 + POINT + 16


class FairDeck:
    """The fair deck of one process at one table (``table``: its id, which cards' points hash)."""

    def __init__(self, table: str, players: int, clock: Callable[[], float] | None = None) -> None:
        self.table = table
        self.players = players
        #: What this process measures of the deck (``Timings``), on ``clock`` (ms); nothing without one.
        self.timings = Timings(clock)
        #: The seats this process plays (its peer keeps it up to date).
        self.here: set[int] = set()
        self.shuffles: list[Shuffle] = []
        #: token → (shuffle, position).
        self.where: dict[int, tuple[int, int]] = {}
        #: Every face a shuffle at this table dealt from (a reshuffle's cards are some of them).
        self.all_faces: list[str] = []
        #: Faces shown to the table, by token, and the keys seats published for the cards being shown.
        self.public: dict[int, str] = {}
        self.shown_keys: dict[int, dict[int, bytes]] = {}
        #: Faces the audit showed (every card of an audited shuffle).
        self.audited_faces: dict[int, str] = {}
        self.findings: list[Finding] = []
        self.over = False
        #: Cards shown to one seat alone: (by, to, tokens), and the tokens each seat was shown.
        self._private_shows: list[tuple[int, int, tuple[int, ...]]] = []
        self.shown_to: dict[int, set[int]] = {}
        #: Reveals the table took on one seat's word (a queen called, a hand kept), to check at the audit:
        #: (seat, the duty, the state then, the event).
        self._on_trust: list[tuple[int, Duty, TableState, Event]] = []
        #: The reveal last checked on trust, until the rules take it (``applied``).
        self._trusting: tuple[int, Duty, TableState, Event] | None = None
        self._reveal: Reveal | None = None
        # --- private ---
        self._secrets: dict[tuple[int, int], Secrets] = {}
        self._blinds: dict[tuple[int, int], bytes] = {}
        self._rings: dict[tuple[int, int], KeyRing] = {}
        #: seat here → token → face it read.
        self.known: dict[int, dict[int, str]] = {}
        self._served: set[tuple[int, int]] = set()
        #: Keys the log asks a seat for, (token, owner) → the seat that asked (shared); and since when a
        #: seat played here has missed the key of a card in its hand (private, on the process's clock).
        self.asked: dict[tuple[int, int], int] = {}
        self._missing_since: dict[tuple[int, int], float] = {}
        #: Turns handed straight here, or taken here: (shuffle, step, seat) → deck, hash of its input.
        self._ahead: dict[tuple[int, str, int], tuple[list[bytes], bytes]] = {}
        self._owed: set[tuple[Any, ...]] = set()
        self._early: list[ToSeat] = []
        self.notes: dict[int, list[PrivateNote]] = {}
        self._notes_memo: dict[int, dict[Any, Any]] = {}

    # --- what the engine made ----------------------------------------------------------------------

    def observe(self, effects: Iterable[Effect]) -> None:
        """Start a shuffle for every ``shuffled`` effect; note the cards shown to one seat alone."""
        for effect in effects:
            kind = effect["kind"]
            if kind == "shuffled":
                self._start_shuffle(effect)
            elif kind == "shown_privately":
                tokens = tuple(effect["tokens"])
                self._private_shows.append((effect["by"], effect["to"], tokens))
                self.shown_to.setdefault(effect["to"], set()).update(tokens)
            elif kind == "game_over":
                self.over = True

    def _start_shuffle(self, effect: Mapping[str, Any]) -> None:
        index, tokens = len(self.shuffles), list(effect["tokens"])
        if "pool" in effect:
            faces = tuple(sorted(effect["pool"]))
            self.all_faces = sorted(set(self.all_faces) | set(faces))
            shuffle = Shuffle(index, tokens, open_deck(faces, self.table), faces=faces)
        else:
            sources = tuple(effect["from_tokens"])
            start = [self.point(token) for token in sources]
            shuffle = Shuffle(index, tokens, [p for p in start if p is not None], sources=sources)
            if len(shuffle.start) != len(sources):
                shuffle.broken = "it reshuffles cards whose shuffle never ended"
        self.shuffles.append(shuffle)
        self.timings.start(("shuffle", index))
        for position, token in enumerate(tokens):
            self.where[token] = (index, position)
            self.public.pop(token, None)

    def point(self, token: int) -> bytes | None:
        """The card ``token`` stands for, as its shuffle's final deck holds it (None: not dealt yet)."""
        where = self.where.get(token)
        if where is None or self.shuffles[where[0]].turn(self.players) is not None:
            return None
        return self.shuffles[where[0]].decks["key"][-1][where[1]]

    def dealt(self, token: int) -> bool:
        """Whether ``token``'s shuffle is complete (its keys can be handed or shown)."""
        return self.point(token) is not None

    # --- what this process owes -------------------------------------------------------------------

    def work(
        self, state: TableState, duties: Sequence[Duty], now_ms: float | None = None
    ) -> list[ToLog | ToNext | ToSeat | ToTable | Reseal]:
        """What the seats played here owe now: their turns in shuffles, keys for cards in others'
        hands or shown to one of them, keys for cards the table awaits, secrets for audits; and, at
        ``now_ms`` (the process's clock), asks in the log for keys of its own cards that never came,
        and the keys others asked it for."""
        self.timings.watch(self, state)
        out: list[ToLog | ToNext | ToSeat | ToTable | Reseal] = []
        out += self._turns()
        out += self._serve(state)
        out += self._show(state, duties)
        out += self._open(state)
        if now_ms is not None:
            out += self._ask(state, duties, now_ms)
        out += self._answer()
        return out

    def _ask(self, state: TableState, duties: Sequence[Duty], now_ms: float) -> list[ToLog]:
        """Ask in the log for the keys of cards in a hand played here, or that a seat played here is to
        show, that have not come in ``ASK_AFTER_MS``: the seats asked must give them there
        (``sealed``), or be taken as withholding."""
        out: list[ToLog] = []
        for seat in sorted(self.here):
            wanted: list[int] = []
            showing = [token for duty in duties if duty.seat == seat for token in duty.tokens]
            for token in dict.fromkeys([*state.hands[seat], *showing]):
                where = self.where.get(token)
                if where is None or not self.dealt(token) or token in self.public:
                    continue
                ring = self._ring(where[0], seat)
                if ring is None or ring.face(where[1]) is not None:
                    self._missing_since.pop((token, seat), None)
                    continue
                since = self._missing_since.setdefault((token, seat), now_ms)
                if now_ms - since < ASK_AFTER_MS:
                    continue
                held = ring.handoff(where[1])
                for owner in range(self.players):
                    if owner not in held and ("ask", token, owner, seat) not in self._owed:
                        self._owed.add(("ask", token, owner, seat))
                        wanted += [token, owner]
            if wanted:
                out.append(ToLog(seat, {"step": "missing", "tokens": join_ints(wanted)}))
        return out

    def _answer(self) -> list[Reseal]:
        """The keys the log asks seats played here for, to seal to the seat that asked."""
        answers: dict[tuple[int, int], dict[int, bytes]] = {}
        for (token, owner), asker in sorted(self.asked.items()):
            if owner not in self.here or ("sealed", token, owner, asker) in self._owed:
                continue
            ring = self._ring(self.where[token][0], owner)
            if ring is None:
                continue
            self._owed.add(("sealed", token, owner, asker))
            answers.setdefault((owner, asker), {})[token] = ring.own_key(self.where[token][1])
        return [Reseal(owner, asker, keys) for (owner, asker), keys in sorted(answers.items())]

    def sealed_part(self, reseal: Reseal, seal: Callable[[bytes], bytes]) -> dict[str, Any]:
        """The fields of the ``sealed`` part that gives what ``reseal`` asks, each key sealed by ``seal``
        (to the asker): what ``sealed_for`` reads."""
        tokens = sorted(reseal.keys)
        return {
            "step": "sealed",
            "tokens": join_ints(number for token in tokens for number in (token, reseal.to)),
            "keys": b"".join(seal(reseal.keys[token]) for token in tokens),
        }

    def sealed_for(self, seat: int, tokens: bytes, sealed: bytes) -> list[tuple[int, int, bytes]]:
        """The keys a ``sealed`` part of ``seat`` carries, as (token, the seat they are for, sealed
        key), once checked to be answers to what the log asked it."""
        pairs = split_ints(tokens)
        if len(pairs) % 2 or len(sealed) != SEALED_KEY * (len(pairs) // 2):
            raise ValueError("sealed keys come as (token, seat) pairs with a sealed key each")
        found = []
        for index in range(0, len(pairs), 2):
            token, asker = pairs[index], pairs[index + 1]
            if self.asked.get((token, seat)) != asker:
                raise ValueError(f"nobody asked seat {seat} for its key of card {token}")
            start = SEALED_KEY * (index // 2)
            found.append((token, asker, sealed[start : start + SEALED_KEY]))
        return found

    def _turns(self) -> list[ToLog | ToNext]:
        """The turns of seats played here that have come: on the deck the log holds, or on one the
        seat before handed straight here (``ahead``), which saves waiting for the log at every turn."""
        out: list[ToLog | ToNext] = []
        for shuffle in self.shuffles:
            while not shuffle.broken:
                taken = self._next_turn(shuffle)
                if not taken:
                    break
                out += taken
        return out

    def _next_turn(self, shuffle: Shuffle) -> list[ToLog | ToNext]:
        """The next turn of a seat played here, if it has come: every turn before it is in the log or
        was handed here (or taken here), each on the deck the one before it made."""
        turn, deck = shuffle.turn(self.players), shuffle.current()
        while turn is not None and (
            turn[1] not in self.here or ("shuffle_turn", shuffle.index, *turn, deck_hash(deck)) in self._owed
        ):
            handed = self._ahead.get((shuffle.index, *turn))
            if handed is None or handed[1] != deck_hash(deck):
                return []
            deck, turn = handed[0], shuffle.turn_after(*turn, self.players)
        if turn is None:
            return []
        step, seat = turn
        # Owed once per deck: taken on a deck the log turns out not to hold, it is taken again on the
        # log's (its first part is refused: ``_append_turn``).
        self._owed.add(("shuffle_turn", shuffle.index, step, seat, deck_hash(deck)))
        self.timings.start(("shuffle_turn", shuffle.index))
        try:
            fields = self._take_turn(shuffle, step, seat, deck)
            self.timings.stop(("shuffle_turn", shuffle.index), "turn_ms")
        except GroupError as error:
            before = seat - 1 if seat else self.players - 1
            self._find(Finding(before, f"passed a deck that is not one ({error})"))
            shuffle.broken = f"seat {before} passed a deck that is not one"
            return []
        except KeyError:
            log.error("seat %d holds no secrets for the cards shuffle %d takes", seat, shuffle.index)
            return []
        after = deck_hash(deck)
        out: list[ToLog | ToNext] = [
            ToLog(seat, {"step": step, "shuffle": shuffle.index, "after": after, **fields})
        ]
        points = split_points(fields["deck"], len(deck), "a deck")
        self._ahead[(shuffle.index, step, seat)] = (points, after)  # for this process's next seat, if any
        following = shuffle.turn_after(step, seat, self.players)
        if following is not None and following[1] not in self.here:
            out.append(ToNext(seat, following[1], shuffle.index, step, fields["deck"], after))
        return out

    def ahead(self, message: ToNext) -> str | None:
        """A turn the seat before handed straight to a seat played here: kept until the log has it,
        to take our turn on at once. Why not, for a turn that cannot be one."""
        if not 0 <= message.shuffle < len(self.shuffles):
            return f"there is no shuffle {message.shuffle} yet"
        shuffle = self.shuffles[message.shuffle]
        if (
            message.step not in shuffle.steps
            or shuffle.turn_after(message.step, message.sender, self.players) is None
        ):
            return f"no turn of seat {message.sender} hands a deck on in {message.step}"
        try:
            points = split_points(message.deck, len(shuffle.tokens), "a deck")
        except ValueError as error:
            return str(error)
        self._ahead[(message.shuffle, message.step, message.sender)] = (points, message.after)
        return None

    def _take_turn(self, shuffle: Shuffle, step: str, seat: int, deck: list[bytes]) -> dict[str, Any]:
        mine = (shuffle.index, seat)
        if step == "strip":
            blind = self._blinds[mine] = random_key()
            stripped = []
            for point, token in zip(deck, shuffle.sources, strict=True):
                source, position = self.where[token]
                old = self._secrets[(source, seat)].position_keys[position]
                stripped.append(lock(point, product(invert(old), blind)))
            return {"deck": b"".join(stripped)}
        if step == "lock":
            secrets = self._secrets[mine] = deal_secrets(len(deck))
            if shuffle.sources:
                locking = Secrets(unblinding(secrets, self._blinds[mine]), secrets.permutation, ())
                return {"deck": b"".join(pass_one(deck, locking))}
            return {"deck": b"".join(pass_one(deck, secrets))}
        secrets = self._secrets[mine]
        return {"deck": b"".join(pass_two(deck, secrets)), "commits": b"".join(secrets.commitments())}

    def _serve(self, state: TableState) -> list[ToSeat]:
        """Keys for every card in a hand that its seat does not hold yet, and for cards shown to one
        seat alone by a seat played here."""
        sending: dict[tuple[int, int], dict[int, dict[int, bytes]]] = {}
        for seat, hand in enumerate(state.hands):
            for token in hand:
                if (token, seat) in self._served or not self.dealt(token):
                    continue
                self._served.add((token, seat))
                for giver in self.here:
                    if giver != seat:
                        sending.setdefault((giver, seat), {})[token] = self._keys_of(giver, token)
        for by, to, tokens in self._private_shows:
            if by not in self.here:
                continue
            for token in tokens:
                if (token, to) not in self._served and self.dealt(token):
                    self._served.add((token, to))
                    sending.setdefault((by, to), {})[token] = self._keys_of(by, token)
        return self._hand_over(sending)

    def _hand_over(self, sending: Mapping[tuple[int, int], dict[int, dict[int, bytes]]]) -> list[ToSeat]:
        """The keys to hand, by (giver, receiver): to send, or kept here when both seats are played here."""
        out: list[ToSeat] = []
        for (giver, to), keys in sorted(sending.items()):
            message = ToSeat(giver, to, keys)
            if to in self.here:
                self.received(message)  # no need to send anything
            else:
                out.append(message)
        return out

    def _keys_of(self, seat: int, token: int) -> dict[int, bytes]:
        """What seat ``seat`` hands over for ``token``: every key it holds when it reads the card (it
        passes it on), else its own."""
        shuffle, position = self.where[token]
        ring = self._ring(shuffle, seat)
        if ring is None:
            return {}
        return ring.handoff(position) if ring.face(position) is not None else {seat: ring.own_key(position)}

    def _show(self, state: TableState, duties: Sequence[Duty]) -> list[ToLog | ToSeat]:
        """Keys for the cards the table awaits to see that are in nobody's hand (a draw, a turn): to
        the seat whose event shows them, which reads them first and carries every key in that event
        (one commit); for a duty of nobody's in particular, in the log."""
        held = {token for hand in state.hands for token in hand}
        wanted: list[int] = []
        handing: dict[tuple[int, int], dict[int, dict[int, bytes]]] = {}
        for duty in duties:
            for token in duty.tokens:
                if token in held or token in self.public or not self.dealt(token):
                    continue
                self.timings.start(("public", token))
                if duty.seat is None:
                    wanted.append(token)
                    continue
                if (token, duty.seat) in self._served:
                    continue
                self._served.add((token, duty.seat))
                for giver in self.here - {duty.seat}:
                    handing.setdefault((giver, duty.seat), {})[token] = self._keys_of(giver, token)
        out: list[ToLog | ToSeat] = [*self._hand_over(handing)]
        for seat in sorted(self.here):
            tokens = [t for t in dict.fromkeys(wanted) if ("show", t, seat) not in self._owed]
            keys = []
            for token in tokens:
                self._owed.add(("show", token, seat))
                ring = self._ring(self.where[token][0], seat)
                if ring is not None:
                    keys.append(ring.own_key(self.where[token][1]))
            if keys:
                out.append(ToLog(seat, {"step": "show", "tokens": join_ints(tokens), "keys": b"".join(keys)}))
        return out

    def _open(self, state: TableState) -> list[ToTable]:
        """Secrets for the audit of every shuffle none of whose cards is hidden any more."""
        live = {token for hand in state.hands for token in hand}
        live.update(token for zone in state.zones.values() for token in zone)
        out: list[ToTable] = []
        for shuffle in self.shuffles:
            if all(("open", shuffle.index, seat) in self._owed for seat in self.here):
                continue  # opened already by every seat here (most shuffles, most of the time)
            if shuffle.turn(self.players) is not None or not self._may_open(shuffle, live):
                continue
            for seat in sorted(self.here):
                key = ("open", shuffle.index, seat)
                secrets = self._secrets.get((shuffle.index, seat))
                if key in self._owed or secrets is None:
                    continue
                self._owed.add(key)
                blind = self._blinds.get((shuffle.index, seat), b"")
                keys = secrets.deck_key + blind + b"".join(secrets.position_keys)
                opened = ToTable(seat, shuffle.index, keys, join_ints(secrets.permutation))
                self.opened(opened)
                out.append(opened)
        return out

    def _may_open(self, shuffle: Shuffle, live: set[int]) -> bool:
        if self.over:
            return True
        if any(token in live and token not in self.public for token in shuffle.tokens):
            return False
        # A reshuffle's audit needs the keys its seats stripped: their shuffles are opened too.
        sources = {self.where[token][0] for token in shuffle.sources}
        return all(self._may_open(self.shuffles[index], live) for index in sources)

    # --- what the log said -----------------------------------------------------------------------

    def committed(self, part: DeckPart, seat: int) -> str | None:
        """Seat ``seat``'s part, committed: taken, or why not (the same on every process: the log's
        alone)."""
        step, shuffle, deck, commits, keys, tokens, after = (
            part.step, part.shuffle, part.deck, part.commits, part.keys, part.tokens, part.after
        )  # fmt: skip
        try:
            if step == "show":
                shown = zip(split_ints(tokens), split_points(keys, len(tokens) // 4, "keys"), strict=True)
                return self._shown(seat, dict(shown))
            if step == "missing":
                return self._asked_for(seat, split_ints(tokens))
            if step == "sealed":
                for token, _asker, _key in self.sealed_for(seat, tokens, keys):
                    del self.asked[(token, seat)]
                return None
            if not 0 <= shuffle < len(self.shuffles) or step not in RESHUFFLE_STEPS:
                return f"there is no shuffle {shuffle} to {step}"
            return self._turn_taken(self.shuffles[shuffle], seat, step, deck, commits, after)
        except ValueError as error:
            return str(error)

    def _turn_taken(
        self, shuffle: Shuffle, seat: int, step: str, deck: bytes, commits: bytes, after: bytes
    ) -> str | None:
        """A turn in the log: taken if it is the one the shuffle waits for and was taken on the deck the
        log holds; kept for later if a turn before it is still to come (it was taken on a deck handed
        straight from the seat before, and reached the log first)."""
        size = len(shuffle.tokens)
        split_points(deck, size, "a deck")
        if step == "key":
            split_points(commits, size, "commitments")
        turn = shuffle.turn(self.players)
        if turn != (step, seat):
            later = turn is not None and shuffle.order(step, seat, self.players) > shuffle.order(
                *turn, self.players
            )
            if not later or (step, seat) in shuffle.waiting:
                return f"it is not seat {seat}'s turn to {step} shuffle {shuffle.index}"
            shuffle.waiting[(step, seat)] = (deck, commits, after)
            return None
        problem = self._append_turn(shuffle, step, seat, deck, commits, after)
        while problem is None and (turn := shuffle.turn(self.players)) in shuffle.waiting:
            assert turn is not None
            waited = shuffle.waiting.pop(turn)
            late = self._append_turn(shuffle, *turn, *waited)
            if late is not None:
                log.info("shuffle %d: %s", shuffle.index, late)  # its seat takes it again on this deck
        return problem

    def _append_turn(
        self, shuffle: Shuffle, step: str, seat: int, deck: bytes, commits: bytes, after: bytes
    ) -> str | None:
        if after and after != deck_hash(shuffle.current()):
            return f"seat {seat}'s {step} was taken on a deck the log does not hold"
        size = len(shuffle.tokens)
        shuffle.decks[step].append(split_points(deck, size, "a deck"))
        if step == "key":
            shuffle.committed.append(split_points(commits, size, "commitments"))
        if shuffle.turn(self.players) is None:
            for handed in [key for key in self._ahead if key[0] == shuffle.index]:
                del self._ahead[handed]  # the log holds every turn now
            for mine in self.here:
                self._ring(shuffle.index, mine)
            early, self._early = self._early, []
            for message in early:
                self.received(message)
        return None

    def _asked_for(self, seat: int, pairs: list[int]) -> str | None:
        """Seat ``seat`` says the keys of these (token, owner) pairs never came: each owner now owes its
        key in the log, sealed to it (``sealed``); the table waits on it (``waiting_on``)."""
        if len(pairs) % 2:
            return "asked keys come as (token, seat) pairs"
        for index in range(0, len(pairs), 2):
            token, owner = pairs[index], pairs[index + 1]
            if not self.dealt(token) or not 0 <= owner < self.players or owner == seat:
                return f"seat {seat} asks for a key of card {token} that seat {owner} does not owe it"
            self.asked.setdefault((token, owner), seat)
        return None

    def _shown(self, seat: int, keys: Mapping[int, bytes]) -> str | None:
        """Seat ``seat``'s keys for cards shown to the table, each checked against its commitment."""
        for token, key in keys.items():
            where = self.where.get(token)
            if where is None or not self.dealt(token):
                return f"card {token} is not dealt"
            committed = self.shuffles[where[0]].committed[seat][where[1]]
            try:
                if commitment(key) != committed:
                    raise GroupError("not the key committed")
            except GroupError:
                self._find(Finding(seat, f"showed a key for card {token} that is not the one it committed"))
                return f"seat {seat}'s key for card {token} is not the one it committed"
            self.shown_keys.setdefault(token, {})[seat] = key
            self._maybe_public(token)
        return None

    def show_keys(self, seat: int, data: bytes) -> str | None:
        """The keys an action of ``seat`` carries for the faces it names (``kdm.entries.Act.keys``),
        checked before the action is: why they do not show what they should, or None."""
        try:
            keys = unpack_keys(data)
        except ValueError as error:
            return str(error)
        for token, owners in keys.items():
            for owner, key in owners.items():
                if not 0 <= owner < self.players:
                    return f"a key of seat {owner}, which the table does not have"
                problem = self._shown(owner, {token: key})
                if problem:
                    return problem
        return None

    def _maybe_public(self, token: int) -> None:
        keys = self.shown_keys.get(token, {})
        if token in self.public or len(keys) < self.players:
            return
        point = self.point(token)
        assert point is not None
        face = face_of(reveal(point, [keys[s] for s in range(self.players)]), self.all_faces, self.table)
        if face is None:
            self._find(Finding(-1, f"card {token} is no card of the deck: a shuffle was false"))
            return
        self.public[token] = face
        del self.shown_keys[token]
        self.timings.stop(("public", token), "public_draw_ms")

    def opened(self, secrets: ToTable) -> str | None:
        """A seat's secrets for an audit (its own, or sent by its process): kept, and the shuffle
        audited once every seat's are in; why not, for secrets that cannot be a seat's."""
        if not 0 <= secrets.shuffle < len(self.shuffles) or not 0 <= secrets.sender < self.players:
            return f"there is no shuffle {secrets.shuffle} or no seat {secrets.sender}"
        shuffle = self.shuffles[secrets.shuffle]
        if shuffle.turn(self.players) is not None or secrets.sender in shuffle.opened:
            return f"shuffle {secrets.shuffle} is not open to seat {secrets.sender}'s secrets"
        try:
            return self._opened(shuffle, secrets.sender, secrets.keys, secrets.order)
        except ValueError as error:
            return str(error)

    def _opened(self, shuffle: Shuffle, seat: int, keys: bytes, order: bytes) -> str | None:
        size = len(shuffle.tokens)
        blind = POINT if shuffle.sources else 0
        scalars = split_points(keys, 1 + size + (1 if blind else 0), "the secrets")
        secrets = Secrets(scalars[0], tuple(split_ints(order)), tuple(scalars[1 + (1 if blind else 0) :]))
        shuffle.opened[seat] = (secrets, scalars[1] if blind else b"")
        for each in self.shuffles:  # a reshuffle is audited once the shuffles it took cards from are
            sources = {self.where[token][0] for token in each.sources}
            ready = [each, *(self.shuffles[index] for index in sources)]
            if not each.audited and all(len(s.opened) == self.players for s in ready):
                self._audit(each)
        return None

    # --- the audit --------------------------------------------------------------------------------

    def _audit(self, shuffle: Shuffle) -> None:
        self.timings.start(("audit", shuffle.index))
        try:
            self._audit_shuffle(shuffle)
        finally:
            self.timings.stop(("audit", shuffle.index), "audit_ms")

    def _audit_shuffle(self, shuffle: Shuffle) -> None:
        shuffle.audited = True
        published = [shuffle.opened[seat][0] for seat in range(self.players)]
        start = shuffle.start
        blinds: list[bytes] | None = None
        if shuffle.sources:
            blinds = [shuffle.opened[seat][1] for seat in range(self.players)]
            cheat = self._audit_strips(shuffle, blinds)
            if cheat is not None:
                self._find(Finding(cheat.seat, f"in shuffle {shuffle.index}: {cheat.reason}"))
                return
            start = shuffle.decks["strip"][-1]
        claimed = {
            position: (-1, self.public[token])
            for position, token in enumerate(shuffle.tokens)
            if token in self.public
        }
        cheats = audit(self.all_faces if shuffle.sources else shuffle.faces, self.table,
                       shuffle.decks["lock"], shuffle.decks["key"], published, shuffle.committed, claimed,
                       start=start if shuffle.sources else None, blinds=blinds)  # fmt: skip
        for cheat in cheats:
            self._find(Finding(cheat.seat, f"in shuffle {shuffle.index}: {cheat.reason}"))
        if cheats:
            return
        for position, token in enumerate(shuffle.tokens):
            keys = [published[seat].position_keys[position] for seat in range(self.players)]
            face = face_of(reveal(shuffle.decks["key"][-1][position], keys), self.all_faces, self.table)
            if face is not None:
                self.audited_faces[token] = face
        self._check_trusted()

    def _audit_strips(self, shuffle: Shuffle, blinds: Sequence[bytes]) -> Cheat | None:
        deck = shuffle.start
        for seat in range(self.players):
            expected = []
            for point, token in zip(deck, shuffle.sources, strict=True):
                source, position = self.where[token]
                opened = self.shuffles[source].opened.get(seat)
                if opened is None:
                    return None  # its source is not opened yet: nothing to hold against anyone
                old = opened[0].position_keys[position]
                expected.append(lock(point, product(invert(old), blinds[seat])))
            if shuffle.decks["strip"][seat] != expected:
                return Cheat(seat, "its strip is not what its keys make")
            deck = expected
        return None

    def _check_trusted(self) -> None:
        """The reveals taken on a seat's word, now that the faces they spoke of are known."""
        faces = {**self.audited_faces, **self.public}
        waiting = []
        for seat, duty, state, event in self._on_trust:
            tokens = {token for hand in state.hands for token in hand} | set(duty.tokens)
            if not all(token in faces for token in tokens):
                waiting.append((seat, duty, state, event))
                continue
            expected = self._reveal(duty=duty, state=state, faces=faces) if self._reveal else event
            if expected != event:
                self._find(Finding(seat, f"its {event.kind} did not say what its cards were"))
        self._on_trust = waiting

    def _find(self, finding: Finding) -> None:
        log.warning("fair deck: seat %d %s", finding.seat, finding.reason)
        self.findings.append(finding)

    # --- keys handed to a seat played here ---------------------------------------------------------

    def received(self, message: ToSeat) -> list[int]:
        """Keys handed to seat ``message.to`` (played here): kept if they are the committed ones, the
        sender named if not. Returns the seats that learnt a face."""
        learnt: set[int] = set()
        for token, keys in message.keys.items():
            where = self.where.get(token)
            if where is None or not self.dealt(token):
                self._early.append(ToSeat(message.sender, message.to, {token: keys}))
                del self._early[:-256]
                continue
            ring = self._ring(where[0], message.to)
            if ring is None:
                continue
            cheat = ring.receive(where[1], keys, message.sender)
            if cheat is not None:
                self._find(Finding(cheat.seat, cheat.reason))
                continue
            face = ring.face(where[1])
            if face is not None:
                self.known.setdefault(message.to, {})[token] = face
                learnt.add(message.to)
                self.timings.stop(("private_pass", token), "private_pass_ms")
        return sorted(learnt)

    def _ring(self, shuffle: int, seat: int) -> KeyRing | None:
        """Seat ``seat``'s key ring for a complete shuffle, if this process holds its secrets."""
        ring = self._rings.get((shuffle, seat))
        secrets = self._secrets.get((shuffle, seat))
        if ring is None and secrets is not None:
            done = self.shuffles[shuffle]
            ring = self._rings[(shuffle, seat)] = KeyRing(
                seat, self.all_faces, self.table, secrets, done.decks["key"][-1], done.committed
            )
        return ring

    # --- a seat that changed hands ---------------------------------------------------------------

    def waiting_on(self, state: TableState, duties: Sequence[Duty]) -> set[int]:
        """The seats whose part in the log the table waits for: a turn in a shuffle, a key for a card
        awaited face up. (A seat that withholds one past a timeout is taken over: ``kdm.peer``.)"""
        seats = set()
        for shuffle in self.shuffles:
            turn = shuffle.turn(self.players)
            if turn is not None and not shuffle.broken:
                seats.add(turn[1])
        held = {token for hand in state.hands for token in hand}
        for duty in duties:
            for token in duty.tokens:
                if duty.seat is None and token not in held and token not in self.public and self.dealt(token):
                    seats.update(set(range(self.players)) - set(self.shown_keys.get(token, {})))
        live = held | {token for zone in state.zones.values() for token in zone}
        seats.update(owner for (token, owner) in self.asked if token in live)
        return seats

    def voided(self, state: TableState) -> None:
        """A seat changed hands (``kdm.record``: its keys left with the process that played it), and the
        round, if one was in play, went back to its deal. Every shuffle still under way is dropped, and
        every card lying on the table (not in a hand: hands are dealt again) whose face can no longer
        be read is dealt again by a fresh shuffle of the same tokens: the faces behind them are the
        cards their shuffle took, less those of its other cards, which the table saw."""
        for shuffle in self.shuffles:
            if shuffle.turn(self.players) is not None:
                shuffle.broken = shuffle.broken or "voided"
        self._on_trust, self._trusting = [], None
        self.asked.clear()  # keys of the round played again, or lost with a process: nobody owes them
        self._missing_since.clear()
        held = {token for hand in state.hands for token in hand}
        lying = [token for zone in state.zones.values() for token in zone if token not in held]
        lost: dict[int, list[int]] = {}
        for token in lying:
            where = self.where.get(token)
            if where is not None and token not in state.faces and not self.shuffles[where[0]].audited:
                lost.setdefault(where[0], []).append(token)
        for index, tokens in sorted(lost.items()):
            faces = self._faces_behind(self.shuffles[index], set(tokens))
            if faces is None:
                log.info("shuffle %d: its cards cannot be told apart again; they are not dealt again", index)
                continue
            for token in tokens:
                self.public.pop(token, None)
                self.shown_keys.pop(token, None)
                for known in self.known.values():
                    known.pop(token, None)
                self._served = {(t, seat) for t, seat in self._served if t != token}
            self._start_shuffle({"tokens": tokens, "pool": faces})

    def _faces_behind(self, shuffle: Shuffle, tokens: set[int]) -> list[str] | None:
        """The faces behind ``tokens`` of ``shuffle``: the cards it took less those of its other
        tokens, when every one of those is known; None when one is not."""
        cards = self._cards_of(shuffle)
        if cards is None:
            return None
        left = Counter(cards)
        for token in shuffle.tokens:
            if token in tokens:
                continue
            face = self.public.get(token) or self.audited_faces.get(token)
            if face is None or not left[face]:
                return None
            left[face] -= 1
        return sorted(left.elements())

    def _cards_of(self, shuffle: Shuffle) -> list[str] | None:
        """The faces a shuffle took: a fresh one's pool; a reshuffle's, those of its sources."""
        if not shuffle.sources:
            return list(shuffle.faces)
        cards: list[str] = []
        hidden: dict[int, set[int]] = {}
        for token in shuffle.sources:
            face = self.public.get(token) or self.audited_faces.get(token)
            if face is not None:
                cards.append(face)
            else:
                hidden.setdefault(self.where[token][0], set()).add(token)
        for index, tokens in hidden.items():
            behind = self._faces_behind(self.shuffles[index], tokens)
            if behind is None:
                return None
            cards += behind
        return cards

    # --- the deck's interface -----------------------------------------------------------------------

    def faces_here(self) -> dict[int, str]:
        """Every face this process may read: the table's, and its seats' own."""
        faces = dict(self.public)
        for known in self.known.values():
            faces.update(known)
        return faces

    def knowledge(self, state: TableState, seat: int) -> Knowledge:
        """What ``seat`` knows: the faces of its cards and of cards shown to it alone, its notes."""
        known, public = self.known.get(seat, {}), self.public
        faces = {}
        for token in [*state.hands[seat], *self.shown_to.get(seat, ())]:
            face = known.get(token) or public.get(token)
            if face is not None:
                faces[token] = face
        notes = self.notes.get(seat)
        memo = self._notes_memo.setdefault(seat, {})
        return Knowledge(faces, tuple(notes) if notes else (), memo)

    def note(self, note: PrivateNote) -> None:
        """Keep a private note, as ``OpenDeck.note`` does."""
        for seat in {note.sender, note.to}:
            kept = self.notes.setdefault(seat, [])
            kept.append(note)
            del kept[:-MAX_NOTES]
            self._notes_memo.pop(seat, None)

    def fulfil(self, duty: Duty, state: TableState, reveal: Reveal) -> Event | None:
        """The event that fulfils a reveal duty from what this process may read, or None while a face
        it needs is not known here (its keys are on their way, or it is not this process's to know)."""
        faces = self.faces_here()
        if not all(token in faces for token in duty.tokens):
            return None
        for seat in self.here:
            if not all(token in faces for token in state.hands[seat]):
                return None  # a seat played here does not know its hand yet: it would answer blind
        event: Event | None = reveal(duty=duty, state=state, faces=faces)
        return event

    def keys_for(self, seat: int, claimed: Mapping[int, str] | None) -> bytes:
        """The keys an action of ``seat`` carries so the table sees the faces it names."""
        keys = {}
        for token in claimed or {}:
            where = self.where.get(token)
            if token in self.public or where is None:
                continue
            ring = self._ring(where[0], seat)
            if ring is not None and ring.face(where[1]) is not None:
                keys[token] = ring.handoff(where[1])
        return pack_keys(keys)

    def false_claim(self, engine: Engine, event: Event) -> str | None:
        """Why ``event`` shows faces other than the ones dealt, from the faces shown to the table (its
        own keys came with it, ``show_keys``); a reveal nobody can check yet (a queen called: its holder
        alone knows the card) is taken on trust and checked at the audit."""
        rules = engine.rules
        self._reveal = rules.hooks.reveal
        claimed = rules.hooks.claimed_faces(event=event) or {}
        for token, face in claimed.items():
            shown = self.public.get(token)
            if shown is None:
                return f"it names card {token} {face} without the keys that show it"
            if shown != face:
                return f"it names card {token} {face}, but card {token} is {shown}"
        seat = getattr(event, "seat", None)
        duty = reveal_duty(engine, event)
        if duty is None:
            return None
        if duty.tokens and all(token in self.public for token in duty.tokens):
            expected = self.fulfil_public(duty, engine.state)
            if expected is not None and expected != event:
                return "it claims faces that are not the ones dealt"
            return None
        if seat is not None:
            # Kept for the audit once the rules take it (``applied``): a reveal they refuse (too late, the
            # queen called already) harmed nobody.
            self._trusting = (seat, duty, engine.snapshot(), event)
        return None

    def applied(self, event: Event, seq: int) -> None:
        """The rules took ``event`` as event ``seq``: a reveal taken on its seat's word is kept for the
        audit."""
        trusting, self._trusting = self._trusting, None
        if trusting is not None and trusting[3] == event and trusting[2].seq == seq:
            self._on_trust.append(trusting)

    def fulfil_public(self, duty: Duty, state: TableState) -> Event | None:
        """What the game reveals for ``duty`` from the faces shown to the table alone."""
        if self._reveal is None:
            return None
        event: Event | None = self._reveal(duty=duty, state=state, faces=self.public)
        return event


def deck_of_table(record: TableRecord, clock: Callable[[], float] | None = None) -> OpenDeck | FairDeck:
    """The deck service the table ``record`` was created with (``Create.deck``): its fair deck (keyed
    by the table's id, timed on ``clock``), or the open one."""
    if record.deck == "fair":
        return FairDeck(record.table or record.host, record.players, clock)
    return OpenDeck()
