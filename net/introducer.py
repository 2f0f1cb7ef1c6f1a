"""Telling a joiner who was given ``HOST:PORT`` alone which key the node there listens under.

Every connection is CurveZMQ (see ``kdm.net.keys``), and a CURVE client must know the server's public key
before its first byte; mDNS advertisements carry it, but a network that blocks multicast leaves a joiner
with the address a friend read out. So each node also answers one question on UDP, at its own port
number: "which node are you?", with its node id, which ends with its key. The answer is trusted on first
use, like an SSH host key: a joiner shows the key's fingerprint, for people to compare with the host's
screen, and ``HOST:PORT~KEY`` skips the question altogether.

A question must be as long as its answer could be, so that nobody can use a node to send more bytes
than they sent (a reflection attack); the node answers at most ``ANSWERS_PER_S`` questions a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import cast

from .clock import PerSecond
from .keys import public_key_of

__all__ = ["QUESTION", "ask_node_id", "serve_node_id"]

log = logging.getLogger("kdm.net")

#: The question, padded to the longest answer a node gives.
QUESTION = b"kdm: which node are you?".ljust(300, b"\0")
ANSWER_PREFIX = b"kdm: I am "
ANSWERS_PER_S = 50


class _Answerer(asyncio.DatagramProtocol):
    def __init__(self, node_id: str) -> None:
        self.answer = ANSWER_PREFIX + node_id.encode()
        assert len(self.answer) <= len(QUESTION), "a node id longer than the question pads for"
        self.transport: asyncio.DatagramTransport | None = None
        self._answers = PerSecond(ANSWERS_PER_S)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A datagram endpoint's transport (the selector loop's class does not derive from the ABC).
        self.transport = cast(asyncio.DatagramTransport, transport)

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        if data != QUESTION or self.transport is None:
            return  # not our question: silence, as from a closed port
        if self._answers.allows():
            self.transport.sendto(self.answer, addr)


async def serve_node_id(host: str, port: int, node_id: str) -> asyncio.DatagramTransport | None:
    """Answer "which node are you?" on UDP ``host:port`` until the returned transport is closed; None
    (logged) when that UDP port is not ours to take: joiners then need the whole ``HOST:PORT~KEY``."""
    loop = asyncio.get_running_loop()
    try:
        transport, _protocol = await loop.create_datagram_endpoint(
            lambda: _Answerer(node_id), local_addr=(host, port)
        )
    except OSError as error:
        log.warning("cannot answer for this node on UDP %s:%d (%s): joiners need its key", host, port, error)
        return None
    return transport


class _Asker(asyncio.DatagramProtocol):
    def __init__(self) -> None:
        self.answered: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        if self.answered.done() or not data.startswith(ANSWER_PREFIX):
            return
        with contextlib.suppress(UnicodeDecodeError):
            node_id = data[len(ANSWER_PREFIX) :].decode()
            if public_key_of(node_id) is not None:
                self.answered.set_result(node_id)


async def ask_node_id(host: str, port: int, timeout_s: float = 2.0, tries: int = 4) -> str | None:
    """The id of the node at ``host:port`` (asked on UDP, a few times: datagrams get lost), or None
    when nothing answered within ``timeout_s``."""
    loop = asyncio.get_running_loop()
    try:
        transport, asker = await loop.create_datagram_endpoint(_Asker, remote_addr=(host, port))
    except OSError as error:
        log.info("cannot ask %s:%d which node it is: %s", host, port, error)
        return None
    try:
        for _ in range(tries):
            transport.sendto(QUESTION)
            done, _pending = await asyncio.wait([asker.answered], timeout=timeout_s / tries)
            if done:
                return asker.answered.result()
        return None
    finally:
        transport.close()
