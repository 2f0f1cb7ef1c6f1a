"""Which node listens at HOST:PORT, asked on UDP at the same port number (for joiners without mDNS),
on 127.0.0.1: answered with the node's id, never more bytes than asked with, and never to other
questions."""

from __future__ import annotations

import asyncio
import logging
import socket

import pytest

from kdm.net.introducer import ANSWERS_PER_S, QUESTION, ask_node_id, serve_node_id
from kdm.net.keys import new_keys

HOST = "127.0.0.1"


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
    return port


async def serving(node_id: str) -> tuple[asyncio.DatagramTransport, int]:
    """A node answering for ``node_id`` on a free UDP port of 127.0.0.1, and that port."""
    port = free_udp_port()
    answering = await serve_node_id(HOST, port, node_id)
    assert answering is not None
    return answering, port


def test_a_node_says_its_id_and_a_joiner_gets_its_key() -> None:
    node_id = f"{HOST}:4000~{new_keys().token}"

    async def scene() -> None:
        answering, port = await serving(node_id)
        try:
            assert await ask_node_id(HOST, port) == node_id
        finally:
            answering.close()
        assert await ask_node_id(HOST, port, timeout_s=0.2) is None  # nobody answers any more

    asyncio.run(scene())


def test_only_the_padded_question_is_answered_and_never_with_more_bytes() -> None:
    node_id = f"{HOST}:4000~{new_keys().token}"

    async def scene() -> None:
        answering, port = await serving(node_id)
        loop = asyncio.get_running_loop()
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as asker:
            asker.setblocking(False)
            asker.connect((HOST, port))
            try:
                for wrong in (b"kdm: which node are you?", QUESTION[:-1], b"x" * len(QUESTION)):
                    asker.send(wrong)
                asker.send(QUESTION)
                answer = await asyncio.wait_for(loop.sock_recv(asker, 4096), 5)
                assert answer.endswith(node_id.encode()) and len(answer) <= len(QUESTION)
                for _ in range(3 * ANSWERS_PER_S):
                    asker.send(QUESTION)
                answers = 1
                while True:
                    try:
                        await asyncio.wait_for(loop.sock_recv(asker, 4096), 0.3)
                    except asyncio.TimeoutError:
                        break
                    answers += 1
                assert answers <= 2 * ANSWERS_PER_S  # bounded per second (the flood may straddle one)
            finally:
                answering.close()

    asyncio.run(scene())


def test_a_udp_port_taken_by_another_program_is_said_and_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    async def scene() -> None:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as other:
            other.bind((HOST, 0))
            port = other.getsockname()[1]
            with caplog.at_level(logging.WARNING, logger="kdm.net"):
                assert await serve_node_id(HOST, port, f"{HOST}:{port}~{new_keys().token}") is None
        assert f"cannot answer for this node on UDP {HOST}:{port}" in caplog.text

    asyncio.run(scene())
