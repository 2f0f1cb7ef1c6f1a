"""Admission to a table that has a PIN: a joiner proves it knows the PIN, and the PIN never travels.

The proof is SPAKE2 (Abdalla and Pointcheval, 2005) over the prime-order group of edwards25519, with the
joiner's key confirmation, built on libsodium's group operations through PyNaCl. A plain
challenge-response (a hash of the PIN and a nonce) would let whoever asks the challenge, or answers it,
try every PIN offline against what it saw: four digits fall in a millisecond. With SPAKE2 each exchange
tests one guess of the PIN, for either side, so a stranger must ask the table once per guess.

One exchange, between a joiner J and a member M of table T, where ``w`` is a scalar hashed from T and
the PIN, and M and N are two fixed points nobody knows the logarithm of (hashed to the curve):

1. J picks x and offers X = x·G + w·M (in its ``hello``);
2. M picks y and answers Y = y·G + w·N, nothing else: Y is a random point whatever the PIN, so it lets
   J check no guess;
3. J computes K = x·(Y − w·N) and sends its confirmation, a keyed hash of the transcript
   (T, J, M, X, Y, K) under "joiner", in its next ``hello``;
4. M computes K = y·(X − w·M), checks the confirmation, and admits J (``kdm.net.node`` then adds J as a
   learner), or counts a wrong guess and says so. One exchange takes one confirmation.

The joiner confirms first: every guess reaches a member as a confirmation that matches or does not, and
so is counted (when the member confirmed first, a guesser checked its answer offline and never sent a
confirmation: no member counted a wrong guess, and a four-digit PIN fell in half a minute). The members
tell each other of each wrong guess, and ``GuessBackoff`` slows the whole table down: after
``FREE_WRONG_PINS`` in ``GUESS_MEMORY_S``, one confirmation checked per ``SLOWED_INTERVAL_S`` at the
whole table (the leader's alone: ``kdm.net.node``), doubling every ``DOUBLING_EVERY`` more wrong
guesses, up to ``MAX_INTERVAL_S``. A stranger then needs 5,000 guesses × 20 s, over a day, for an even
chance at four digits, and months at six.

Why not the ``spake2`` package: it is the same exchange, but in pure Python big-integer arithmetic whose
branches follow the secret scalar's bits (not constant time), 25 times slower than libsodium here (8 ms
a side against 0.3: a flood of offers costs a member that much), and a dependency (``cryptography``)
for the few lines of group code below.

`Prover` (the joiner's side), `Verifier` (a member's) and `GuessBackoff` (told the times) do no I/O:
the node carries what they make in its messages, and decides who checks.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import os
from collections import OrderedDict, deque
from dataclasses import dataclass

from nacl.bindings import (
    crypto_core_ed25519_add,
    crypto_core_ed25519_from_uniform,
    crypto_core_ed25519_is_valid_point,
    crypto_core_ed25519_scalar_reduce,
    crypto_core_ed25519_sub,
    crypto_scalarmult_ed25519_base_noclamp,
    crypto_scalarmult_ed25519_noclamp,
)
from nacl.exceptions import RuntimeError as NaclRuntimeError

from .clock import PerSecond

__all__ = ["EXCHANGES_PER_S", "PIN_RULE", "GuessBackoff", "Prover", "Verifier", "check_pin"]

#: Exchanges a member starts per second, for every joiner together (each may become one guess).
EXCHANGES_PER_S = 4
#: Wrong guesses the table takes at a member's pace before it slows down: a person who mistyped.
FREE_WRONG_PINS = 3
#: How long a wrong guess counts, for the backoff and for what the screens say.
GUESS_MEMORY_S = 3600.0
#: Once slowed, the table checks one confirmation in this long, from anyone: 5,000 guesses (an even
#: chance at four digits) take 28 hours.
SLOWED_INTERVAL_S = 20.0
#: The interval doubles with every this many more wrong guesses in ``GUESS_MEMORY_S``...
DOUBLING_EVERY = 60
#: ... up to this (a stranger who keeps on settles near 40 s a guess: 90 an hour).
MAX_INTERVAL_S = 120.0
#: Wrong guesses a member remembers at most (a member that reports a flood of them only slows the table).
MAX_REMEMBERED_GUESSES = 10_000
#: Exchanges a member keeps open (answered, waiting for the joiner's confirmation); the oldest goes first.
MAX_OPEN_EXCHANGES = 16
#: What a PIN may be, as a user reads it.
PIN_RULE = "a PIN is 4 to 12 digits"


def check_pin(pin: str) -> str:
    """``pin`` if it is one (`PIN_RULE`), else ValueError saying what is allowed."""
    if not (4 <= len(pin) <= 12 and pin.isascii() and pin.isdigit()):
        raise ValueError(f"{pin!r} is not a PIN: {PIN_RULE}")
    return pin


def _point(label: bytes) -> bytes:
    return crypto_core_ed25519_from_uniform(hashlib.blake2b(label, digest_size=32).digest())


_M = _point(b"kdm admission: the joiner's blinding point M")
_N = _point(b"kdm admission: the member's blinding point N")


def _scalar(material: bytes) -> bytes:
    return crypto_core_ed25519_scalar_reduce(hashlib.blake2b(material, digest_size=64).digest())


def _pin_scalar(table: str, pin: str) -> bytes:
    return _scalar(b"kdm admission: pin\0" + table.encode() + b"\0" + pin.encode())


def _confirmation(table: str, joiner: str, member: str, x: bytes, y: bytes, k: bytes) -> bytes:
    """The joiner's confirmation of one exchange's transcript."""
    transcript = b"\0".join([table.encode(), joiner.encode(), member.encode(), x, y, k])
    key = hashlib.blake2b(transcript, digest_size=32, person=b"kdm-admission").digest()
    return hashlib.blake2b(b"joiner", digest_size=32, key=key).digest()


def _blinded(secret: bytes, w: bytes, blinding: bytes) -> bytes:
    """secret·G + w·blinding."""
    return crypto_core_ed25519_add(
        crypto_scalarmult_ed25519_base_noclamp(secret),
        crypto_scalarmult_ed25519_noclamp(w, blinding),
    )


def _shared(secret: bytes, w: bytes, theirs: bytes, blinding: bytes) -> bytes | None:
    """secret·(theirs − w·blinding), or None when ``theirs`` is not a point of the group (or the result
    is the neutral point, which only a forged message gives)."""
    if len(theirs) != 32 or not crypto_core_ed25519_is_valid_point(theirs):
        return None
    try:
        unblinded = crypto_core_ed25519_sub(theirs, crypto_scalarmult_ed25519_noclamp(w, blinding))
        return crypto_scalarmult_ed25519_noclamp(secret, unblinded)
    except NaclRuntimeError:
        return None


def _fresh_secret() -> bytes:
    return crypto_core_ed25519_scalar_reduce(os.urandom(64))


class Prover:
    """The joiner's side: one offer for the whole stay, and the confirmation each member's answer asks."""

    def __init__(self, table: str, joiner: str, pin: str) -> None:
        self.table = table
        self.joiner = joiner
        self._w = _pin_scalar(table, pin)
        self._secret = _fresh_secret()
        #: X, sent in every ``hello``.
        self.offer = _blinded(self._secret, self._w, _M)

    def confirm(self, member: str, answer: bytes) -> bytes | None:
        """This joiner's confirmation for ``member``'s answer, which the member checks (it cannot be
        checked here: a wrong PIN is known only from the member); None when the answer is not a point."""
        k = _shared(self._secret, self._w, answer, _N)
        if k is None:
            return None
        return _confirmation(self.table, self.joiner, member, self.offer, answer, k)


@dataclass
class _Exchange:
    """One exchange a member answered: the joiner's offer, the answer, the confirmation it expects, and
    the joiner's, once it came (held until the table checks it: ``Verifier.check_next``)."""

    offer: bytes
    answer: bytes
    expected: bytes
    confirmation: bytes = b""
    #: When the confirmation came, in order (the oldest is checked first among equals).
    turn: int = 0


class Verifier:
    """A member's side: answers offers (a few a second), holds the confirmations that follow, and checks
    them when the table lets it (``check_next``)."""

    def __init__(self, table: str, member: str, pin: str, exchanges_per_s: int = EXCHANGES_PER_S) -> None:
        self.table = table
        self.member = member
        self._w = _pin_scalar(table, pin)
        self._rate = PerSecond(exchanges_per_s)
        self._open: OrderedDict[str, _Exchange] = OrderedDict()
        self._turns = itertools.count(1)
        #: Confirmations that did not match: each is a wrong guess of the PIN.
        self.wrong = 0
        #: Wrong guesses by joiner (the most recent few): a joiner that guessed wrong waits behind one
        #: that did not.
        self._wrong_by: OrderedDict[str, int] = OrderedDict()

    def answer(self, joiner: str, offer: bytes) -> bytes | str:
        """Y for ``joiner``'s offer, or why there is none. The same offer again (a joiner says hello
        until it is admitted) gets the same answer: it is still one guess. A new offer ends the
        joiner's exchange before it, and its confirmation if one is held."""
        opened = self._open.get(joiner)
        if opened is not None and opened.offer == offer:
            return opened.answer
        if not self._rate.allows():
            return f"more than {self._rate.limit} PIN exchanges this second"
        secret = _fresh_secret()
        k = _shared(secret, self._w, offer, _M)
        if k is None:
            return "its offer is not a point of the group"
        answer = _blinded(secret, self._w, _N)
        expected = _confirmation(self.table, joiner, self.member, offer, answer, k)
        self._open[joiner] = _Exchange(offer, answer, expected)
        self._open.move_to_end(joiner)
        while len(self._open) > MAX_OPEN_EXCHANGES:
            self._open.popitem(last=False)
        return answer

    def confirmed(self, joiner: str, offer: bytes, confirmation: bytes) -> bool | None:
        """Hold ``joiner``'s confirmation of its exchange for ``offer`` until it is checked: True when
        it is held now, False when one was held already (the first counts: one exchange, one guess),
        None when no exchange with it is open for that offer (answer it first)."""
        opened = self._open.get(joiner)
        if opened is None or opened.offer != offer:
            return None
        if opened.confirmation:
            return False
        opened.confirmation, opened.turn = confirmation, next(self._turns)
        return True

    def waiting(self, joiner: str) -> bool:
        """Whether ``joiner``'s confirmation is held, not checked yet."""
        opened = self._open.get(joiner)
        return opened is not None and bool(opened.confirmation)

    @property
    def holds(self) -> bool:
        """Whether a confirmation waits to be checked."""
        return any(exchange.confirmation for exchange in self._open.values())

    def check_next(self) -> tuple[str, bool] | None:
        """Check one held confirmation: the joiner's that guessed wrong least, the oldest among those;
        (that joiner, whether it proved the PIN), or None when none is held. Its exchange ends."""
        held = [(self._wrong_by.get(j, 0), e.turn, j) for j, e in self._open.items() if e.confirmation]
        if not held:
            return None
        joiner = min(held)[2]
        exchange = self._open.pop(joiner)
        if hmac.compare_digest(exchange.expected, exchange.confirmation):
            return joiner, True
        self.wrong += 1
        self.guessed_wrong(joiner)
        return joiner, False

    def forget(self, joiner: str) -> None:
        """End ``joiner``'s exchange unchecked (a seated player let it in)."""
        self._open.pop(joiner, None)

    def guessed_wrong(self, joiner: str) -> None:
        """``joiner`` guessed wrong, here or at another member: it waits behind those that did not."""
        self._wrong_by[joiner] = self._wrong_by.pop(joiner, 0) + 1
        while len(self._wrong_by) > MAX_OPEN_EXCHANGES * 4:
            self._wrong_by.popitem(last=False)


class GuessBackoff:
    """The table's wrong guesses as one member knows them (its own and those the others told it), and
    how long it must wait before it checks another confirmation. Times are in ms, given."""

    def __init__(self) -> None:
        #: (when, the guesser's host) of each wrong guess of the last ``GUESS_MEMORY_S``, oldest first.
        self._wrong: deque[tuple[float, str]] = deque(maxlen=MAX_REMEMBERED_GUESSES)
        self._last_check_ms = float("-inf")

    def _forget(self, now_ms: float) -> None:
        while self._wrong and self._wrong[0][0] <= now_ms - GUESS_MEMORY_S * 1000:
            self._wrong.popleft()

    def wrong(self, host: str, now_ms: float) -> None:
        """A wrong guess from ``host``, checked here or told by another member: also a check."""
        self._wrong.append((now_ms, host))
        self.checked(now_ms)

    def checked(self, now_ms: float) -> None:
        """A confirmation was checked at the table."""
        self._last_check_ms = max(self._last_check_ms, now_ms)

    def slowed(self, now_ms: float) -> bool:
        """Whether the table has seen ``FREE_WRONG_PINS`` wrong guesses lately."""
        self._forget(now_ms)
        return len(self._wrong) >= FREE_WRONG_PINS

    def interval_s(self, now_ms: float) -> float:
        """The least time between two checks at the table: 0 while it is not slowed."""
        if not self.slowed(now_ms):
            return 0.0
        doublings = (len(self._wrong) - FREE_WRONG_PINS) // DOUBLING_EVERY
        return min(MAX_INTERVAL_S, SLOWED_INTERVAL_S * float(2 ** min(doublings, 16)))

    def wait_ms(self, now_ms: float) -> float:
        """How long until the table may check another confirmation (0: now)."""
        return max(0.0, self._last_check_ms + self.interval_s(now_ms) * 1000 - now_ms)

    def tried(self, host: str, now_ms: float) -> int:
        """The wrong guesses from ``host`` in the last ``GUESS_MEMORY_S``."""
        self._forget(now_ms)
        return sum(1 for _, guesser in self._wrong if guesser == host)
