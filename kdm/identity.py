"""Who a player is from one run to the next: a key pair made on first run, and the seats it holds.

The key (Ed25519, PyNaCl) lives in the user data directory (platformdirs), readable by its owner only.
A seat is bound to the key that took it: a ``join`` entry names the player's public key and carries a
signature over the table and the node that sits (`seat_claim`), which every peer checks on apply
(`claim_is_valid`, pure), so that nobody but the key's holder can take the seat back after a crash.
Bots that fill seats for a player use a key of their own, made for the run and never kept
(`Identity.ephemeral`).

`SeatMemory` remembers, beside the key, which tables this player holds a seat at, so the lobby can
offer "return to your seat at TABLE"; the table's log, not this file, decides whether the seat is theirs.

`NodeMemory` remembers the consensus node this data directory was at each table (its key, address and
port, and how many times it started there), private like the key: a process started again after a
crash listens where it did, under the same key, and so comes back as the same Raft member, with its
log and its vote. A new node each time would leave the table's quorum to nodes that will never come
back: once enough of them were gone the table could never commit again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs
from nacl.exceptions import BadSignatureError
from nacl.signing import SigningKey, VerifyKey

__all__ = ["Identity", "NodeMemory", "RememberedNode", "SeatMemory", "claim_is_valid", "data_root"]

log = logging.getLogger("kdm.identity")

KEY_FILE = "identity.key"
SEATS_FILE = "seats.json"
NODES_FILE = "nodes.json"
PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64
_CLAIM = b"kdm seat claim\x00"


def data_root(data_dir: Path | None = None) -> Path:
    """Where kdm keeps a player's files: ``data_dir`` when given (tests), else the user data directory."""
    return data_dir or Path(platformdirs.user_data_dir("kdm"))


def _claim_message(table: str, node: str) -> bytes:
    return _CLAIM + table.encode() + b"\x00" + node.encode()


@dataclass(frozen=True)
class Identity:
    """A player's key pair."""

    signing_key: SigningKey

    @classmethod
    def ephemeral(cls) -> Identity:
        """A key for this run only (a bot helper's): it never comes back for a seat."""
        return cls(SigningKey.generate())

    @classmethod
    def load_or_create(cls, data_dir: Path | None = None) -> Identity:
        """The player's key from ``identity.key`` in the data directory, made there on first run.

        A file that cannot be read as a key is kept aside (``identity.key.bad``) and a new key is made:
        losing a seat's claim is better than not being able to play.
        """
        path = data_root(data_dir) / KEY_FILE
        try:
            seed = bytes.fromhex(path.read_text().strip())
            if len(seed) == 32:
                return cls(SigningKey(seed))
            log.warning("%s does not hold a 32-byte key: making a new one", path)
            path.replace(path.with_suffix(".key.bad"))
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as error:
            log.warning("cannot read %s (%s): making a new key", path, error)
            if path.exists():
                path.replace(path.with_suffix(".key.bad"))
        identity = cls(SigningKey.generate())
        path.parent.mkdir(parents=True, exist_ok=True)
        # Created private: nobody else on the machine may take this player's seats.
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(bytes(identity.signing_key).hex() + "\n")
        return identity

    @property
    def public_key(self) -> bytes:
        return bytes(self.signing_key.verify_key)

    @property
    def fingerprint(self) -> str:
        """A short name for the key, for people: the first 8 hex digits of the public key."""
        return self.public_key.hex()[:8]

    def table_secret(self, table: str) -> bytes:
        """The root of every secret this player's seat keeps at ``table`` (``kdm.kept``): made again
        from the key alone, so a process started again after a crash has them back; no one without
        the key can tell it from random."""
        return hashlib.blake2b(
            table.encode(), key=bytes(self.signing_key), person=b"kdm table", digest_size=32
        ).digest()

    def seat_claim(self, table: str, node: str) -> bytes:
        """The signature a ``join`` entry carries: this key lets ``node`` sit at ``table`` for it."""
        return bytes(self.signing_key.sign(_claim_message(table, node)).signature)


def claim_is_valid(player: bytes, signature: bytes, table: str, node: str) -> bool:
    """Whether ``signature`` is ``player``'s key letting ``node`` sit at ``table`` (pure, for the record)."""
    if len(player) != PUBLIC_KEY_BYTES or len(signature) != SIGNATURE_BYTES:
        return False
    try:
        VerifyKey(player).verify(_claim_message(table, node), signature)
    except (BadSignatureError, ValueError, TypeError):
        return False
    return True


class SeatMemory:
    """The tables at which this player holds a seat, as last seen here (``seats.json``)."""

    def __init__(self, data_dir: Path | None = None) -> None:
        self.path = data_root(data_dir) / SEATS_FILE

    def held(self) -> dict[str, dict[str, Any]]:
        """Table id -> ``{"name": table name, "seat": seat}``; empty when unreadable."""
        try:
            held = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        if not isinstance(held, dict):
            return {}
        return {
            table: seat
            for table, seat in held.items()
            if isinstance(seat, dict)
            and isinstance(seat.get("name"), str)
            and isinstance(seat.get("seat"), int)
        }

    def remember(self, table: str, name: str, seat: int) -> None:
        held = self.held()
        if held.get(table) != {"name": name, "seat": seat}:
            held[table] = {"name": name, "seat": seat}
            self._write(held)

    def forget(self, table: str) -> None:
        held = self.held()
        if held.pop(table, None) is not None:
            self._write(held)

    def _write(self, held: dict[str, dict[str, Any]]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(".tmp")
            temporary.write_text(json.dumps(held, sort_keys=True))
            temporary.replace(self.path)
        except OSError as error:  # a hint for the lobby only: the game goes on without it
            log.warning("cannot remember seats in %s: %s", self.path, error)


@dataclass(frozen=True)
class RememberedNode:
    """The node a data directory was at one table: where it listened, its key, and its starts there."""

    host: str
    port: int
    key: SigningKey
    starts: int


class NodeMemory:
    """The node this data directory was at each table (``nodes.json``, readable by its owner only)."""

    def __init__(self, data_dir: Path | None = None) -> None:
        self.path = data_root(data_dir) / NODES_FILE

    def get(self, table: str) -> RememberedNode | None:
        """The node last used at ``table``, if one is remembered and readable."""
        found = self._all().get(table)
        try:
            assert isinstance(found, dict)
            host, port, key, starts = (
                found["host"],
                found["port"],
                bytes.fromhex(found["key"]),
                found["starts"],
            )
            assert isinstance(host, str) and isinstance(port, int) and isinstance(starts, int)
            return RememberedNode(host, port, SigningKey(key), starts)
        except (AssertionError, KeyError, TypeError, ValueError):
            return None

    def remember(self, table: str, host: str, port: int, key: SigningKey, starts: int) -> None:
        nodes = self._all()
        nodes[table] = {"host": host, "port": port, "key": bytes(key).hex(), "starts": starts}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(".tmp")
            temporary.unlink(missing_ok=True)
            # Created private: the key signs this node's entries at the table.
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w") as file:
                file.write(json.dumps(nodes, sort_keys=True))
            temporary.replace(self.path)
        except OSError as error:  # the game goes on; after a crash this process comes back as a new node
            log.warning("cannot remember this node in %s: %s", self.path, error)

    def _all(self) -> dict[str, Any]:
        try:
            nodes = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return nodes if isinstance(nodes, dict) else {}
