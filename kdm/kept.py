"""The secrets a seat's process can make again after a crash: every one it uses at a table (its fair
deck's keys and permutations, its key for sealed keys and notes, its nonces for the seeds) drawn from a
root its player's key gives for that table (``Identity.table_secret``), each by a label that says what
it is for.

So a process killed mid-round and started again (the same data directory: the same key) replays the
log and makes again, from the turns there, the keys its seat committed to: it takes its place in the
same round, the card it owed is the card it gets, and nothing is dealt again (RULES 1.4).
A secret drawn from the root is as secret as the player's key, and no two labels draw the same bytes.

Pure: hashing only (BLAKE2b keyed by the root, in counter mode).
"""

from __future__ import annotations

import hashlib

__all__ = ["Kept", "Stream", "nonce_label"]

#: The bytes one BLAKE2b block gives.
BLOCK = 64


class Kept:
    """Secrets drawn from ``root`` (32 bytes), one per label."""

    def __init__(self, root: bytes) -> None:
        if len(root) != 32:
            raise ValueError("a kept root is 32 bytes")
        self._root = root

    def secret(self, label: str, size: int = 32) -> bytes:
        """``size`` bytes for ``label``: the same each time, and unrelated to any other label's."""
        return self.stream(label).read(size)

    def stream(self, label: str) -> Stream:
        """As many bytes for ``label`` as are read from it, in order (a permutation's draws, keys)."""
        return Stream(self._root, label)


class Stream:
    """The bytes a label draws from a root, read in order: what ``secrets.token_bytes`` and
    ``secrets.randbelow`` give a shuffle, made again the same way from the same root and label."""

    def __init__(self, root: bytes, label: str) -> None:
        self._root, self._label = root, label.encode()
        self._block, self._buffer = 0, b""

    def read(self, size: int) -> bytes:
        while len(self._buffer) < size:
            self._buffer += hashlib.blake2b(
                self._label + b"\x00" + self._block.to_bytes(8, "big"), key=self._root, person=b"kdm kept"
            ).digest()
            self._block += 1
        out, self._buffer = self._buffer[:size], self._buffer[size:]
        return out

    def below(self, bound: int) -> int:
        """A uniform integer in ``[0, bound)`` (rejection sampling, as ``secrets.randbelow`` does)."""
        if bound <= 0:
            raise ValueError("the bound must be positive")
        bits = bound.bit_length()
        size = (bits + 7) // 8
        while True:
            value = int.from_bytes(self.read(size), "big") >> (size * 8 - bits)
            if value < bound:
                return value


def nonce_label(why: str, shuffle: int) -> str:
    """Which of its commitments to a nonce a seat makes (``why``: ``join``, or ``next`` with its reveal)
    while the table is at shuffle ``shuffle``: the label its nonce is drawn by."""
    return f"{why} {shuffle}"
