"""A shuffle as the log holds it (``Shuffle``), and its turns in seat order (``Turns``: taking the turns
of the seats played here, and taking in the turns the log holds).

A fresh shuffle takes two turns of every seat, ``lock`` then ``key``; a reshuffle of cards already dealt
takes a ``strip`` of every seat first (each swaps its key on them for a blind). A turn names the deck it
was taken on by its hash (``deck_hash``), commits to its keys and proves it used them
(``kdm.fair.proofs``): a turn whose proof does not hold is refused when the log has it, and its seat
named. Decks, keys and commitments travel as points of ``POINT`` bytes concatenated (``split_points``),
numbers as 4 bytes each (``join_ints``, ``split_ints``).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kdm.fair.group import (
    BASE,
    POINT_BYTES,
    GroupError,
    commitment,
    invert,
    lock,
    product,
    random_key,
    sum_of,
)
from kdm.fair.messages import Finding, ToLog, ToNext
from kdm.fair.proofs import PROOF_BYTES, prove, proves
from kdm.fair.shuffle import Secrets, deal_secrets, open_deck, pass_one, unblinding
from kdm.fair.state import Private, Shared
from kdm.kept import Stream

__all__ = [
    "FRESH_STEPS",
    "POINT",
    "RESHUFFLE_STEPS",
    "Shuffle",
    "Turns",
    "deck_hash",
    "join_ints",
    "split_ints",
    "split_points",
]

log = logging.getLogger("kdm.fair")

POINT = POINT_BYTES
FRESH_STEPS = ("lock", "key")
RESHUFFLE_STEPS = ("strip", "lock", "key")


def deck_hash(deck: Sequence[bytes]) -> bytes:
    """What a turn names the deck it was taken on by."""
    return hashlib.sha256(b"kdm deck\x00" + b"".join(deck)).digest()


def split_points(data: bytes, count: int, what: str) -> list[bytes]:
    if len(data) != count * POINT:
        raise ValueError(f"{what} must be {count} points of {POINT} bytes")
    return [data[i : i + POINT] for i in range(0, len(data), POINT)]


def join_ints(values: Iterable[int]) -> bytes:
    return b"".join(value.to_bytes(4, "big") for value in values)


def split_ints(data: bytes) -> list[int]:
    if len(data) % 4:
        raise ValueError("numbers come in 4 bytes each")
    return [int.from_bytes(data[i : i + 4], "big") for i in range(0, len(data), 4)]


@dataclass
class Shuffle:
    """One shuffle, as the log holds it."""

    index: int
    #: Position j of the final deck → the token the engine made j-th.
    tokens: list[int]
    #: The deck before the first turn: a fresh shuffle's open deck, or the cards a reshuffle takes.
    start: list[bytes]
    #: A fresh shuffle's faces, in the open deck's order; a reshuffle's come from its sources.
    faces: tuple[str, ...] = ()
    #: A reshuffle: the tokens whose cards it shuffles, in the order of ``start``.
    sources: tuple[int, ...] = ()
    decks: dict[str, list[list[bytes]]] = field(default_factory=lambda: {s: [] for s in RESHUFFLE_STEPS})
    committed: list[list[bytes]] = field(default_factory=list)
    #: seat → its secrets and blind as it published them for the audit.
    opened: dict[int, tuple[Secrets, bytes]] = field(default_factory=dict)
    audited: bool = False
    #: A turn that could not be taken (a deck that is not one): the shuffle stops here.
    broken: str = ""
    #: Turns the log holds ahead of their time (taken on a deck handed straight from the seat before,
    #: and committed first): (step, seat) → deck, commitments, proofs, the hash of the deck it was taken on.
    waiting: dict[tuple[str, int], tuple[bytes, bytes, bytes, bytes]] = field(default_factory=dict)
    #: seat → the commitment its ``lock`` published to its deck key, and its ``strip`` to its blind.
    deck_keys: dict[int, bytes] = field(default_factory=dict)
    blinds: dict[int, bytes] = field(default_factory=dict)

    @property
    def steps(self) -> tuple[str, ...]:
        return RESHUFFLE_STEPS if self.sources else FRESH_STEPS

    def turn(self, players: int) -> tuple[str, int] | None:
        """The step and seat whose turn it is, or None once the shuffle is complete."""
        for step in self.steps:
            if len(self.decks[step]) < players:
                return step, len(self.decks[step])
        return None

    def order(self, step: str, seat: int, players: int) -> int:
        """Where a turn comes in the shuffle, from 0."""
        return self.steps.index(step) * players + seat

    def turn_after(self, step: str, seat: int, players: int) -> tuple[str, int] | None:
        """The turn that follows ``(step, seat)``, or None after the last."""
        if seat + 1 < players:
            return step, seat + 1
        following = self.steps.index(step) + 1
        return (self.steps[following], 0) if following < len(self.steps) else None

    def current(self) -> list[bytes]:
        """The deck as the last turn left it."""
        for step in reversed(self.steps):
            if self.decks[step]:
                return self.decks[step][-1]
        return self.start


class Turns:
    """The turns of the shuffles at a table: taking those of the seats played here (on the deck the log
    holds, or on one handed straight from the seat before), and taking in those the log holds. Once a
    shuffle's last turn is in, ``on_dealt`` hears of it (its cards' keys can be handed from then on)."""

    def __init__(self, shared: Shared, private: Private, on_dealt: Callable[[Shuffle], None]) -> None:
        self.shared, self.private, self.on_dealt = shared, private, on_dealt
        #: Turns handed straight here, or taken here, ahead of the log: (shuffle, step, seat) → deck, hash
        #: of its input.
        self.ahead: dict[tuple[int, str, int], tuple[list[bytes], bytes]] = {}

    def start(self, effect: Mapping[str, Any]) -> None:
        """A shuffle of the cards a ``shuffled`` effect names: a fresh one from its pool, or a reshuffle of
        cards already dealt (``from_tokens``)."""
        index, tokens = len(self.shared.shuffles), list(effect["tokens"])
        if "pool" in effect:
            faces = tuple(sorted(effect["pool"]))
            self.shared.all_faces = sorted(set(self.shared.all_faces) | set(faces))
            shuffle = Shuffle(index, tokens, open_deck(faces, self.shared.table), faces=faces)
        else:
            sources = tuple(effect["from_tokens"])
            start = [self.shared.point(token) for token in sources]
            shuffle = Shuffle(index, tokens, [p for p in start if p is not None], sources=sources)
            if len(shuffle.start) != len(sources):
                shuffle.broken = "it reshuffles cards whose shuffle never ended"
        self.shared.shuffles.append(shuffle)
        self.private.timings.start(("shuffle", index))
        for position, token in enumerate(tokens):
            self.shared.where[token] = (index, position)
            self.shared.public.pop(token, None)

    def owed(self) -> list[ToLog | ToNext]:
        """The turns of seats played here that have come: on the deck the log holds, or on one the
        seat before handed straight here (``keep_ahead``), which saves waiting for the log at every turn."""
        out: list[ToLog | ToNext] = []
        for shuffle in self.shared.shuffles:
            while not shuffle.broken:
                taken = self._next(shuffle)
                if not taken:
                    break
                out += taken
        return out

    def _next(self, shuffle: Shuffle) -> list[ToLog | ToNext]:
        """The next turn of a seat played here, if it has come: every turn before it is in the log or
        was handed here (or taken here), each on the deck the one before it made."""
        turn, deck = shuffle.turn(self.shared.players), shuffle.current()
        while turn is not None and (
            turn[1] not in self.private.here
            or ("shuffle_turn", shuffle.index, *turn, deck_hash(deck)) in self.private.owed
        ):
            handed = self.ahead.get((shuffle.index, *turn))
            if handed is None or handed[1] != deck_hash(deck):
                return []
            deck, turn = handed[0], shuffle.turn_after(*turn, self.shared.players)
        if turn is None:
            return []
        step, seat = turn
        # Owed once per deck: taken on a deck the log turns out not to hold, it is taken again on the
        # log's (its first part is refused: ``_append``).
        self.private.owed.add(("shuffle_turn", shuffle.index, step, seat, deck_hash(deck)))
        self.private.timings.start(("shuffle_turn", shuffle.index))
        try:
            fields = self._take(shuffle, step, seat, deck)
            self.private.timings.stop(("shuffle_turn", shuffle.index), "turn_ms")
        except GroupError as error:
            before = seat - 1 if seat else self.shared.players - 1
            self.private.find(Finding(before, f"passed a deck that is not one ({error})"))
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
        self.ahead[(shuffle.index, step, seat)] = (points, after)  # for this process's next seat, if any
        following = shuffle.turn_after(step, seat, self.shared.players)
        if following is not None and following[1] not in self.private.here:
            out.append(ToNext(seat, following[1], shuffle.index, step, fields["deck"], after))
        return out

    def keep_ahead(self, message: ToNext) -> str | None:
        """A turn the seat before handed straight to a seat played here: kept until the log has it,
        to take our turn on at once. Why not, for a turn that cannot be one."""
        if not 0 <= message.shuffle < len(self.shared.shuffles):
            return f"there is no shuffle {message.shuffle} yet"
        shuffle = self.shared.shuffles[message.shuffle]
        if (
            message.step not in shuffle.steps
            or shuffle.turn_after(message.step, message.sender, self.shared.players) is None
        ):
            return f"no turn of seat {message.sender} hands a deck on in {message.step}"
        try:
            points = split_points(message.deck, len(shuffle.tokens), "a deck")
        except ValueError as error:
            return str(error)
        self.ahead[(message.shuffle, message.step, message.sender)] = (points, message.after)
        return None

    def _take(self, shuffle: Shuffle, step: str, seat: int, deck: list[bytes]) -> dict[str, Any]:
        """Seat ``seat``'s turn on ``deck``: the new deck, what it commits to, and its proofs."""
        mine = (shuffle.index, seat)
        stream = self._stream(shuffle, step, seat, deck_hash(deck))
        if step == "strip":
            blind = self.private.blinds[mine] = random_key(stream.read) if stream else random_key()
            blinded = commitment(blind)
            stripped, proofs = [], []
            for position, (point, token) in enumerate(zip(deck, shuffle.sources, strict=True)):
                source, old = self.shared.where[token]
                swap = product(invert(self.private.secrets[(source, seat)].position_keys[old]), blind)
                stripped.append(lock(point, swap))
                was = self._old_commitment(token, seat)
                proofs.append(
                    prove(swap, point, stripped[-1], was, blinded, _context(shuffle, step, seat, position))
                )
            return {"deck": b"".join(stripped), "commits": blinded, "proof": b"".join(proofs)}
        if step == "lock":
            secrets = self.private.secrets[mine] = deal_secrets(len(deck), stream=stream)
            locking, base = secrets, BASE
            if shuffle.sources:
                blind = self.private.blinds[mine]
                locking = Secrets(unblinding(secrets, blind), secrets.permutation, ())
                base = commitment(blind)
            locked = pass_one(deck, locking)
            key = commitment(secrets.deck_key)
            proof = prove(
                locking.deck_key, sum_of(deck), sum_of(locked), base, key, _context(shuffle, step, seat)
            )
            return {"deck": b"".join(locked), "commits": key, "proof": proof}
        secrets = self.private.secrets[mine]
        off, key = invert(secrets.deck_key), commitment(secrets.deck_key)
        keyed, commits, proofs = [], secrets.commitments(), []
        for position, (point, position_key) in enumerate(zip(deck, secrets.position_keys, strict=True)):
            swap = product(off, position_key)
            keyed.append(lock(point, swap))
            context = _context(shuffle, step, seat, position)
            proofs.append(prove(swap, point, keyed[-1], key, commits[position], context))
        return {"deck": b"".join(keyed), "commits": b"".join(commits), "proof": b"".join(proofs)}

    def _stream(self, shuffle: Shuffle, step: str, seat: int, taken_on: bytes) -> Stream | None:
        """What a turn's secrets are drawn from when its seat's player keeps them (``kdm.kept``): one
        stream per shuffle, step, seat and deck taken on (a turn taken again on another deck draws anew,
        so no two decks are ever locked with the same secrets); None: the OS's randomness."""
        kept = self.private.kept.get(seat)
        label = f"fair deck {shuffle.index} {step} {seat} {taken_on.hex()}"
        return None if kept is None else kept.stream(label)

    def _remake(
        self, shuffle: Shuffle, step: str, seat: int, taken_on: list[bytes], committed: bytes
    ) -> None:
        """A turn of a seat played here that this process holds no secrets for: one it took before it
        was started again. Its secrets are made again from what its player keeps, if they are the
        ones the turn committed to (a process that kept nothing can read none of the seat's cards, and
        the seat is waited for as one that withholds)."""
        mine = (shuffle.index, seat)
        if step == "key" or mine in (self.private.secrets if step == "lock" else self.private.blinds):
            return
        stream = self._stream(shuffle, step, seat, deck_hash(taken_on))
        if stream is None:
            return
        if step == "lock":
            secrets = deal_secrets(len(taken_on), stream=stream)
            if commitment(secrets.deck_key) == committed:
                self.private.secrets[mine] = secrets
                return
        else:
            blind = random_key(stream.read)
            if commitment(blind) == committed:
                self.private.blinds[mine] = blind
                return
        log.warning("seat %d's %s in shuffle %d is not one its kept secrets make", seat, step, shuffle.index)

    def _old_commitment(self, token: int, seat: int) -> bytes:
        """What seat ``seat`` committed to for the card ``token`` in the shuffle that dealt it."""
        source, position = self.shared.where[token]
        return self.shared.shuffles[source].committed[seat][position]

    def taken(
        self, shuffle: Shuffle, seat: int, step: str, deck: bytes, commits: bytes, proof: bytes, after: bytes
    ) -> str | None:
        """A turn in the log: taken if it is the one the shuffle waits for and was taken on the deck the
        log holds; kept for later if a turn before it is still to come (it was taken on a deck handed
        straight from the seat before, and reached the log first)."""
        size = len(shuffle.tokens)
        split_points(deck, size, "a deck")
        split_points(commits, size if step == "key" else 1, "commitments")
        if len(proof) != PROOF_BYTES * (1 if step == "lock" else size):
            each = "" if step == "lock" else " a card"
            raise ValueError(f"a {step} turn's proofs are {PROOF_BYTES} bytes{each}")
        turn = shuffle.turn(self.shared.players)
        if turn != (step, seat):
            later = turn is not None and shuffle.order(step, seat, self.shared.players) > shuffle.order(
                *turn, self.shared.players
            )
            if not later or (step, seat) in shuffle.waiting:
                return f"it is not seat {seat}'s turn to {step} shuffle {shuffle.index}"
            shuffle.waiting[(step, seat)] = (deck, commits, proof, after)
            return None
        problem = self._append(shuffle, step, seat, deck, commits, proof, after)
        while problem is None and (turn := shuffle.turn(self.shared.players)) in shuffle.waiting:
            assert turn is not None
            waited = shuffle.waiting.pop(turn)
            late = self._append(shuffle, *turn, *waited)
            if late is not None:
                log.info("shuffle %d: %s", shuffle.index, late)  # its seat takes it again on this deck
        return problem

    def _append(
        self, shuffle: Shuffle, step: str, seat: int, deck: bytes, commits: bytes, proof: bytes, after: bytes
    ) -> str | None:
        """A turn appended to the shuffle, if taken on the deck the log holds and its proofs hold; why
        not (a proof that does not hold names the seat: every peer finds it, from the log alone)."""
        if after and after != deck_hash(shuffle.current()):
            return f"seat {seat}'s {step} was taken on a deck the log does not hold"
        size = len(shuffle.tokens)
        points, committed = (
            split_points(deck, size, "a deck"),
            split_points(commits, len(commits) // POINT, ""),
        )
        false = self._refuted(shuffle, step, seat, points, committed, proof)
        if false:
            self.private.find(Finding(seat, f"in shuffle {shuffle.index}: {false}"))
            return f"seat {seat}'s {step}: {false}"
        if seat in self.private.here:
            self._remake(shuffle, step, seat, shuffle.current(), committed[0])
        shuffle.decks[step].append(points)
        if step == "key":
            shuffle.committed.append(committed)
        elif step == "lock":
            shuffle.deck_keys[seat] = committed[0]
        else:
            shuffle.blinds[seat] = committed[0]
        if shuffle.turn(self.shared.players) is None:
            for handed in [key for key in self.ahead if key[0] == shuffle.index]:
                del self.ahead[handed]  # the log holds every turn now
            self.on_dealt(shuffle)
        return None

    def _refuted(
        self, shuffle: Shuffle, step: str, seat: int, deck: list[bytes], commits: list[bytes], proof: bytes
    ) -> str:
        """What is false in seat ``seat``'s ``step`` (``deck``, after the deck the log holds), from its
        commitments and proofs (``kdm.fair.proofs``); "" when nothing is."""
        before = shuffle.current()
        if step == "lock":
            if len(set(deck)) != len(set(before)):  # (two jokers are one point: the same twice after)
                return "its lock deck holds a card twice"
            base = BASE if not shuffle.sources else shuffle.blinds[seat]
            try:
                summed = sum_of(before), sum_of(deck)
            except GroupError:
                return "its lock deck holds a point that is no card"
            if not proves(proof, *summed, base, commits[0], _context(shuffle, step, seat)):
                return "its lock deck is not the deck it was handed, locked with the key it committed to"
            return ""
        chunks = [proof[i : i + PROOF_BYTES] for i in range(0, len(proof), PROOF_BYTES)]
        for position, (point, new, chunk) in enumerate(zip(before, deck, chunks, strict=True)):
            if step == "key":
                a, b = shuffle.deck_keys[seat], commits[position]
            else:
                a, b = self._old_commitment(shuffle.sources[position], seat), commits[0]
            if not proves(chunk, point, new, a, b, _context(shuffle, step, seat, position)):
                return (
                    f"its {step} deck at position {position} is not the card it was handed, under the key"
                    " it committed to"
                )
        return ""

    def void(self) -> None:
        """The round went back to its deal: every shuffle still under way stops."""
        for shuffle in self.shared.shuffles:
            if shuffle.turn(self.shared.players) is not None:
                shuffle.broken = shuffle.broken or "voided"


def _context(shuffle: Shuffle, step: str, seat: int, position: int = -1) -> bytes:
    """What a turn's proof is bound to: its shuffle, step, seat and position (good for no other)."""
    return f"{shuffle.index}:{step}:{seat}:{position}".encode()
