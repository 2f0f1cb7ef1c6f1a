"""Admission to a table that has a PIN: a joiner proves it knows the PIN, and the PIN never travels.

The proof is SPAKE2 (Abdalla and Pointcheval, 2005) over the prime-order group of edwards25519, with key
confirmation, built on libsodium's group operations through PyNaCl. A plain challenge-response (a hash
of the PIN and a nonce) would let whoever asks the challenge, or answers it, try every PIN offline
against what it saw: four digits fall in a millisecond. With SPAKE2 each exchange tests one guess of
the PIN, for either side, so a stranger must ask the table once per guess, and the table answers a few
exchanges a second (`EXCHANGES_PER_S`).

One exchange, between a joiner J and a member M of table T, where ``w`` is a scalar hashed from T and
the PIN, and M and N are two fixed points nobody knows the logarithm of (hashed to the curve):

1. J picks x and offers X = x·G + w·M (in its ``hello``);
2. M picks y, answers Y = y·G + w·N, and computes K = y·(X − w·M); it sends Y and its confirmation,
   a keyed hash of the transcript (T, J, M, X, Y, K) under "member";
3. J computes K = x·(Y − w·N) and checks M's confirmation: a wrong one means a wrong PIN (or a table
   that does not know it); else it sends its own confirmation, under "joiner", in its next ``hello``;
4. M checks it and admits J (``kdm.net.node`` then adds J as a learner).

Both sides are pure: `Prover` (the joiner's) and `Verifier` (a member's) take and return bytes, and
the node carries them in its messages.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections import OrderedDict

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

__all__ = ["EXCHANGES_PER_S", "PIN_RULE", "Prover", "Verifier", "check_pin"]

#: Exchanges a member starts per second, for every joiner together: each tests one guess of the PIN,
#: so a four-digit PIN takes a stranger about half an hour of guessing on average, and six digits days.
EXCHANGES_PER_S = 4
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


def _confirmations(table: str, joiner: str, member: str, x: bytes, y: bytes, k: bytes) -> tuple[bytes, bytes]:
    """The member's and the joiner's confirmations of one exchange's transcript."""
    transcript = b"\0".join([table.encode(), joiner.encode(), member.encode(), x, y, k])
    key = hashlib.blake2b(transcript, digest_size=32, person=b"kdm-admission").digest()
    return (
        hashlib.blake2b(b"member", digest_size=32, key=key).digest(),
        hashlib.blake2b(b"joiner", digest_size=32, key=key).digest(),
    )


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

    def confirm(self, member: str, answer: bytes, member_confirmation: bytes) -> bytes | None:
        """This joiner's confirmation for ``member``'s answer; None when the member's confirmation is
        wrong: the PIN given here is not the table's (or ``member`` does not know it)."""
        k = _shared(self._secret, self._w, answer, _N)
        if k is None:
            return None
        theirs, ours = _confirmations(self.table, self.joiner, member, self.offer, answer, k)
        return ours if hmac.compare_digest(theirs, member_confirmation) else None


class Verifier:
    """A member's side: answers offers (a few a second) and checks the confirmations that follow."""

    def __init__(self, table: str, member: str, pin: str, exchanges_per_s: int = EXCHANGES_PER_S) -> None:
        self.table = table
        self.member = member
        self._w = _pin_scalar(table, pin)
        self._rate = PerSecond(exchanges_per_s)
        #: joiner → (its offer, our answer and confirmation, the confirmation expected from it).
        self._open: OrderedDict[str, tuple[bytes, tuple[bytes, bytes], bytes]] = OrderedDict()
        #: Confirmations that did not match: each is a wrong guess of the PIN.
        self.wrong = 0

    def answer(self, joiner: str, offer: bytes) -> tuple[bytes, bytes] | str:
        """(Y, this member's confirmation) for ``joiner``'s offer, or why there is none. The same offer
        again (a joiner says hello until it is admitted) gets the same answer: it is still one guess."""
        opened = self._open.get(joiner)
        if opened is not None and opened[0] == offer:
            return opened[1]
        if not self._rate.allows():
            return f"more than {self._rate.limit} PIN exchanges this second"
        secret = _fresh_secret()
        k = _shared(secret, self._w, offer, _M)
        if k is None:
            return "its offer is not a point of the group"
        answer = _blinded(secret, self._w, _N)
        ours, theirs = _confirmations(self.table, joiner, self.member, offer, answer, k)
        self._open[joiner] = (offer, (answer, ours), theirs)
        self._open.move_to_end(joiner)
        while len(self._open) > MAX_OPEN_EXCHANGES:
            self._open.popitem(last=False)
        return answer, ours

    def check(self, joiner: str, offer: bytes, confirmation: bytes) -> bool | None:
        """Whether ``joiner`` proved the PIN with ``confirmation``; None when no exchange with it is
        open for that offer (answer it first). One exchange takes one confirmation: right or wrong."""
        opened = self._open.get(joiner)
        if opened is None or opened[0] != offer:
            return None
        del self._open[joiner]
        if hmac.compare_digest(opened[2], confirmation):
            return True
        self.wrong += 1
        return False
