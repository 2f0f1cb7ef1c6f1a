"""The chaos hook: what a peer does differently when ``kdm selfplay --chaos`` runs it, and nothing else.

``kdm selfplay --chaos`` (``kdm.faults``) kills, stops and cuts off real peer processes; to cut one off
without root (no network namespaces), and to check afterwards that no commit was lost, it starts every
peer with ``KDM_CHAOS=1`` in its environment. Only then does ``install`` (called by ``kdm.session``
before the node starts) change the node:

- its transport is wrapped in a ``CuttableTransport``: on ``SIGUSR1`` the process drops every message it
  would send or receive (its network is cut, the process runs on), on ``SIGUSR2`` it delivers them again;
- it appends every entry it learns is committed to ``commits.journal`` in its data directory, one line
  each, ``index term hash monotonic_s`` (the hash is BLAKE2b of the entry's kind and bytes), flushed before
  the entry is applied, so the line survives a ``kill -9``;
- once both are in place it writes its pid to ``chaos.ready`` there: a ``SIGUSR1`` sent before would
  kill the process (the signal's default action), so the injector waits for that file.

Without ``KDM_CHAOS`` none of this exists: the node keeps its own transport and no journal, and nothing
on the path of a message looks at chaos.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

from .keys import NodeKeys
from .raft_messages import Entry
from .transport import Transport

if TYPE_CHECKING:
    from .node import Node

__all__ = [
    "CHAOS_ENV", "CUT_SIGNAL", "HEAL_SIGNAL", "JOURNAL_FILE", "READY_FILE", "CommitJournal",
    "CuttableTransport", "enabled", "entry_hash", "install",
]  # fmt: skip

log = logging.getLogger("kdm.net")

CHAOS_ENV = "KDM_CHAOS"
CUT_SIGNAL, HEAL_SIGNAL = signal.SIGUSR1, signal.SIGUSR2
JOURNAL_FILE = "commits.journal"
READY_FILE = "chaos.ready"


def enabled() -> bool:
    """Whether this process runs under ``kdm selfplay --chaos`` (``KDM_CHAOS=1``)."""
    return os.environ.get(CHAOS_ENV) == "1"


def entry_hash(entry: Entry) -> str:
    """What the journal records of an entry's content: a hash of its kind and bytes."""
    return hashlib.blake2b(entry.kind.encode() + b"\0" + entry.data, digest_size=12).hexdigest()


class CuttableTransport:
    """A transport that can be cut off from the network: while ``cut``, everything sent is dropped (as
    a transport drops to an unreachable peer, returning False) and everything received is discarded."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner
        self.node_id = inner.node_id
        self.cut = False

    @property
    def keys(self) -> NodeKeys | None:
        return self.inner.keys

    @property
    def address(self) -> str:
        return self.inner.address

    @property
    def connections(self) -> int:
        return self.inner.connections

    async def start(self) -> None:
        await self.inner.start()

    def connect(self, peer_id: str, address: str) -> None:
        self.inner.connect(peer_id, address)

    def disconnect(self, peer_id: str) -> None:
        self.inner.disconnect(peer_id)

    def send(self, peer_id: str, data: bytes) -> bool:
        return False if self.cut else self.inner.send(peer_id, data)

    async def recv(self) -> tuple[str, bytes]:
        while True:
            message = await self.inner.recv()
            if not self.cut:
                return message

    async def close(self) -> None:
        await self.inner.close()

    def set_cut(self, cut: bool) -> None:
        if cut != self.cut:
            log.warning("chaos: this process is %s the network", "cut off from" if cut else "back on")
        self.cut = cut


class CommitJournal:
    """``commits.journal``: every entry this process saw committed, in the order it saw them."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] = path.open("a", encoding="ascii")
        self._loop = asyncio.get_running_loop()

    def __call__(self, entries: Sequence[Entry]) -> None:
        now = self._loop.time()  # the loop's clock is time.monotonic: one clock for every process
        self._file.write("".join(f"{e.index} {e.term} {entry_hash(e)} {now:.4f}\n" for e in entries))
        self._file.flush()  # in the kernel's hands: a kill -9 of this process cannot lose it

    def close(self) -> None:
        self._file.close()


def install(node: Node, data_dir: Path) -> None:
    """Make ``node`` (not started yet) cuttable by signal and journal its commits in ``data_dir``; call
    on the running loop, and only when ``enabled``."""
    transport = CuttableTransport(node.transport)
    node.transport = transport
    node.journal = CommitJournal(data_dir / JOURNAL_FILE)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(CUT_SIGNAL, transport.set_cut, True)
    loop.add_signal_handler(HEAL_SIGNAL, transport.set_cut, False)
    (data_dir / READY_FILE).write_text(str(os.getpid()))
