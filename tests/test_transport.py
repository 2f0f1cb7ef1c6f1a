"""The transports: zmq on 127.0.0.1 (ports chosen by the OS) and the in-memory network, same contract.

Every test runs its own event loop with `asyncio.run`, bounds every wait with a timeout and closes every
socket and context it opened, also when it fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, TypeVar

import pytest
import zmq
import zmq.asyncio
from zmq.utils.monitor import parse_monitor_message

from kdm.net.keys import NodeKeys, new_keys
from kdm.net.transport import HANDSHAKES_PER_S, MemoryNetwork, Transport, TransportError, ZmqTransport
from kdm.net.wire import MAX_MESSAGE_BYTES

HOST = "127.0.0.1"
WAIT = 5.0

T = TypeVar("T")


def run(test: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run one test's coroutine on a fresh loop, bounded so that no test can hang the suite."""

    async def bounded() -> T:
        return await asyncio.wait_for(test(), 30)

    return asyncio.run(bounded())


async def within(awaitable: Awaitable[T]) -> T:
    return await asyncio.wait_for(awaitable, WAIT)


async def receive(transport: Transport) -> tuple[str, bytes]:
    return await within(transport.recv())


async def sent_until_heard(sender: Transport, to: Transport, data: bytes) -> tuple[str, bytes]:
    """Send ``data`` again every half second until ``to`` receives it (within ``WAIT``)."""
    receiving = asyncio.ensure_future(to.recv())
    try:
        for _ in range(int(WAIT / 0.5)):
            assert sender.send(to.node_id, data)
            done, _ = await asyncio.wait({receiving}, timeout=0.5)
            if done:
                return receiving.result()
        raise AssertionError(f"{to.node_id} never heard {data!r}")
    finally:
        receiving.cancel()


async def started_receiving(transport: Transport) -> asyncio.Future[tuple[str, bytes]]:
    """A task that is already waiting in `transport.recv()` when this returns."""
    started = asyncio.Event()

    async def wait_for_message() -> tuple[str, bytes]:
        started.set()
        return await transport.recv()

    task = asyncio.ensure_future(wait_for_message())
    # The task runs up to its first real wait (inside recv) before this coroutine is resumed.
    await within(started.wait())
    return task


def port_of(transport: Transport) -> int:
    return int(transport.address.rsplit(":", 1)[1])


@asynccontextmanager
async def zmq_nodes(*node_ids: str) -> AsyncIterator[list[Transport]]:
    """Started ZmqTransports on 127.0.0.1, each connected to all the others; closed on the way out."""
    async with AsyncExitStack() as stack:
        nodes: list[Transport] = []
        for node_id in node_ids:
            node = ZmqTransport(node_id, host=HOST)
            stack.push_async_callback(node.close)
            await node.start()
            nodes.append(node)
        connect_all(nodes)
        yield nodes


@asynccontextmanager
async def memory_nodes(
    *node_ids: str, network: MemoryNetwork | None = None
) -> AsyncIterator[list[Transport]]:
    """Started MemoryTransports on `network` (a new one by default), each connected to all the others."""
    network = network or MemoryNetwork()
    async with AsyncExitStack() as stack:
        nodes: list[Transport] = []
        for node_id in node_ids:
            node = network.transport(node_id)
            stack.push_async_callback(node.close)
            await node.start()
            nodes.append(node)
        connect_all(nodes)
        yield nodes


def connect_all(nodes: list[Transport]) -> None:
    for node in nodes:
        for peer in nodes:
            if peer is not node:
                node.connect(peer.node_id, peer.address)


NODES = {"zmq": zmq_nodes, "memory": memory_nodes}


# --- the contract, on both transports ------------------------------------------------------------------


@pytest.mark.parametrize("kind", NODES)
def test_a_pair_exchanges_messages_both_ways_in_order(kind: str) -> None:
    async def scenario() -> None:
        async with NODES[kind]("alice", "bob") as (alice, bob):
            assert alice.send(bob.node_id, b"hello bob")
            assert await receive(bob) == (alice.node_id, b"hello bob")
            assert bob.send(alice.node_id, b"hello alice")
            assert await receive(alice) == (bob.node_id, b"hello alice")
            for number in range(200):
                assert alice.send(bob.node_id, b"%d" % number)
            assert [await receive(bob) for _ in range(200)] == [
                (alice.node_id, b"%d" % n) for n in range(200)
            ]

    run(scenario)


@pytest.mark.parametrize("kind", NODES)
def test_a_mesh_of_four_delivers_every_message_with_its_sender(kind: str) -> None:
    async def scenario() -> None:
        async with NODES[kind]("n1", "n2", "n3", "n4") as nodes:
            for node in nodes:
                for peer in nodes:
                    if peer is not node:
                        assert node.send(peer.node_id, f"{node.node_id}->{peer.node_id}".encode())
            for node in nodes:
                got = sorted([await receive(node) for _ in range(3)])
                others = sorted(peer.node_id for peer in nodes if peer is not node)
                assert got == [(other, f"{other}->{node.node_id}".encode()) for other in others]

    run(scenario)


@pytest.mark.parametrize("kind", NODES)
def test_sending_to_an_unknown_or_disconnected_peer_is_refused(kind: str) -> None:
    async def scenario() -> None:
        async with NODES[kind]("alice", "bob") as (alice, bob):
            assert not alice.send("carol", b"hello")
            alice.disconnect(bob.node_id)
            alice.disconnect(bob.node_id)
            assert not alice.send(bob.node_id, b"hello")
            alice.connect(bob.node_id, bob.address)
            assert alice.send(bob.node_id, b"back")
            assert await receive(bob) == (alice.node_id, b"back")

    run(scenario)


@pytest.mark.parametrize("kind", NODES)
def test_connect_twice_to_the_same_address_changes_nothing(kind: str) -> None:
    async def scenario() -> None:
        async with NODES[kind]("alice", "bob") as (alice, bob):
            alice.connect(bob.node_id, bob.address)
            assert alice.send(bob.node_id, b"once")
            bob.connect(alice.node_id, alice.address)
            assert bob.send(alice.node_id, b"ack")
            assert await receive(bob) == (alice.node_id, b"once")
            assert await receive(alice) == (bob.node_id, b"ack")

    run(scenario)


@pytest.mark.parametrize("kind", NODES)
def test_close_wakes_a_waiting_receiver_with_transport_error(kind: str) -> None:
    async def scenario() -> None:
        async with NODES[kind]("alice") as (alice,):
            waiting = await started_receiving(alice)
            await alice.close()
            with pytest.raises(TransportError, match="closed"):
                await within(waiting)
            with pytest.raises(TransportError):
                await within(alice.recv())
            await alice.close()
            assert not alice.send("bob", b"x")
            with pytest.raises(TransportError):
                await alice.start()

    run(scenario)


@pytest.mark.parametrize("kind", NODES)
def test_messages_up_to_the_cap_are_delivered_and_bigger_ones_refused(
    kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> None:
        async with NODES[kind]("alice", "bob") as (alice, bob):
            with caplog.at_level(logging.WARNING, logger="kdm.net"):
                assert not alice.send(bob.node_id, b"x" * (MAX_MESSAGE_BYTES + 1))
            assert f"dropped a message of 65537 bytes to {bob.node_id}: over the limit" in caplog.text
            assert alice.send(bob.node_id, b"x" * MAX_MESSAGE_BYTES)
            assert await receive(bob) == (alice.node_id, b"x" * MAX_MESSAGE_BYTES)

    run(scenario)


def test_node_ids_must_fit_in_a_zmq_identity() -> None:
    network = MemoryNetwork()
    for bad in ["", "\0hidden", "x" * 256]:
        with pytest.raises(ValueError, match="node id"):
            ZmqTransport(bad)
        with pytest.raises(ValueError, match="node id"):
            network.transport(bad)
    ZmqTransport("é" * 101)  # a zmq node's id is its name, "~" and its 52-letter key
    with pytest.raises(ValueError, match="node id"):
        ZmqTransport("é" * 102)


def test_both_transports_are_transports() -> None:
    # Checked by mypy when it reads this file: both classes satisfy the Protocol.
    transports: list[Transport] = [ZmqTransport("alice"), MemoryNetwork().transport("alice")]
    assert transports[0].node_id.startswith("alice~")
    assert transports[1].node_id == "alice"


# --- zmq ---------------------------------------------------------------------------------------------------


def test_zmq_listens_on_a_port_the_os_chose() -> None:
    async def scenario() -> None:
        async with zmq_nodes("alice", "bob") as (alice, bob):
            assert alice.address.startswith("tcp://127.0.0.1:")
            assert port_of(alice) > 0
            assert port_of(alice) != port_of(bob)

    run(scenario)


def test_zmq_needs_start_before_use() -> None:
    async def scenario() -> None:
        alice = ZmqTransport("alice")
        with pytest.raises(TransportError, match="start"):
            _ = alice.address
        with pytest.raises(TransportError, match="start"):
            alice.connect(f"bob~{new_keys().token}", "tcp://127.0.0.1:1")
        with pytest.raises(TransportError):
            await within(alice.recv())
        await alice.close()

    run(scenario)


def test_zmq_port_in_use_says_what_to_do() -> None:
    async def scenario() -> None:
        async with zmq_nodes("alice") as (alice,):
            port = port_of(alice)
            late = ZmqTransport("bob", host=HOST, port=port)
            with pytest.raises(TransportError) as caught:
                await late.start()
            assert str(caught.value) == f"port {port} on 127.0.0.1 is in use; choose another with --port"
            await late.close()

    run(scenario)


def test_zmq_bad_peer_address_is_a_transport_error() -> None:
    async def scenario() -> None:
        async with zmq_nodes("alice") as (alice,):
            bob = f"bob~{new_keys().token}"
            with pytest.raises(TransportError, match=f"cannot connect to {bob} at nowhere"):
                alice.connect(bob, "nowhere")
            assert not alice.send(bob, b"x")
            with pytest.raises(
                TransportError, match="cannot connect to bob: its id does not end with its key"
            ):
                alice.connect("bob", "tcp://127.0.0.1:1")

    run(scenario)


def test_zmq_close_and_reopen_on_the_same_port() -> None:
    async def scenario() -> None:
        async with zmq_nodes("alice", "bob") as (alice, bob):
            port = port_of(bob)
            assert alice.send(bob.node_id, b"before")
            assert await receive(bob) == (alice.node_id, b"before")
            await bob.close()

            # The same node comes back on the same port: alice's connection finds it again by itself.
            again = ZmqTransport("bob", host=HOST, port=port, keys=bob.keys)  # the same node: same key
            try:
                await again.start()
                assert again.address == f"tcp://127.0.0.1:{port}"
                # What alice sends before its zmq thread has seen the old connection close goes into
                # that connection and is lost (zmq promises no delivery; Raft sends again): it sends
                # again until the new one hears it, as a node does.
                assert await sent_until_heard(alice, again, b"after") == (alice.node_id, b"after")
                again.connect(alice.node_id, alice.address)
                assert again.send(alice.node_id, b"back")
                assert await receive(alice) == (bob.node_id, b"back")
            finally:
                await again.close()

    run(scenario)


def test_zmq_reconnects_when_the_peer_address_changes() -> None:
    async def scenario() -> None:
        async with zmq_nodes("alice", "bob") as (alice, bob):
            await bob.close()
            moved = ZmqTransport("bob", host=HOST, keys=bob.keys)
            try:
                await moved.start()
                assert moved.address != bob.address
                alice.connect(bob.node_id, moved.address)
                assert alice.send(bob.node_id, b"found you")
                assert await receive(moved) == (alice.node_id, b"found you")
            finally:
                await moved.close()

    run(scenario)


def test_zmq_send_drops_once_the_queue_to_a_peer_is_full(caplog: pytest.LogCaptureFixture) -> None:
    # A listener that never answers the zmq handshake: messages queue up and are never delivered.
    with socket.socket() as silent:
        silent.bind((HOST, 0))
        silent.listen()

        async def scenario() -> None:
            async with zmq_nodes("alice") as (alice,):
                mute = f"mute~{new_keys().token}"
                alice.connect(mute, f"tcp://{HOST}:{silent.getsockname()[1]}")
                with caplog.at_level(logging.INFO, logger="kdm.net"):
                    sent = 0
                    while alice.send(mute, b"x") and sent < 100_000:
                        sent += 1
                    assert 0 < sent < 100_000
                    assert not alice.send(mute, b"x")
                assert caplog.text.count(f"dropping messages to {mute}") == 1

        run(scenario)


def test_zmq_uses_a_given_context_and_leaves_it_open() -> None:
    async def scenario() -> None:
        context = zmq.asyncio.Context()
        try:
            alice = ZmqTransport("alice", host=HOST, context=context)
            bob = ZmqTransport("bob", host=HOST, context=context)
            await alice.start()
            await bob.start()
            alice.connect(bob.node_id, bob.address)
            assert alice.send(bob.node_id, b"shared")
            assert await receive(bob) == (alice.node_id, b"shared")
            await alice.close()
            await bob.close()
            assert not context.closed
        finally:
            context.term()

    run(scenario)


@asynccontextmanager
async def raw_dealer(
    server: ZmqTransport | None = None, keys: NodeKeys | None = None
) -> AsyncIterator[zmq.asyncio.Socket]:
    """A zmq DEALER, not yet connected, as a stranger's program would open one: a CURVE client of
    ``server`` under ``keys`` (fresh ones by default), or a plain one when no server is given."""
    context = zmq.asyncio.Context()
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    if server is not None:
        keys = keys or new_keys()
        dealer.setsockopt(zmq.CURVE_SERVERKEY, server.keys.curve.public)
        dealer.setsockopt(zmq.CURVE_PUBLICKEY, keys.curve.public)
        dealer.setsockopt(zmq.CURVE_SECRETKEY, keys.curve.secret)
    try:
        yield dealer
    finally:
        dealer.close(linger=0)
        context.term()


def test_zmq_drops_a_huge_frame_and_goes_on() -> None:
    async def scenario() -> None:
        mallory_keys = new_keys()
        mallory = f"mallory~{mallory_keys.token}"
        async with (
            zmq_nodes("alice", "bob") as (alice, bob),
            raw_dealer(bob, mallory_keys) as dealer,
        ):
            # Watch the dealer's connection from before it exists, so that no event is missed.
            monitor = dealer.get_monitor_socket(zmq.EVENT_CONNECTED | zmq.EVENT_DISCONNECTED)
            try:
                dealer.connect(bob.address)

                async def next_event() -> int:
                    event: int = parse_monitor_message(await within(monitor.recv_multipart()))["event"]
                    return event

                assert await next_event() == zmq.EVENT_CONNECTED
                await within(dealer.send_multipart([mallory.encode(), b"x" * 10_000_000]))
                # bob's side refuses the frame by cutting the connection; the dealer then comes back.
                assert await next_event() == zmq.EVENT_DISCONNECTED
                assert await next_event() == zmq.EVENT_CONNECTED
                await within(dealer.send_multipart([mallory.encode(), b"small"]))
                assert await receive(bob) == (mallory, b"small")
                assert alice.send(bob.node_id, b"still here")
                assert await receive(bob) == (alice.node_id, b"still here")
            finally:
                dealer.disable_monitor()
                monitor.close(linger=0)

    run(scenario)


async def send_junk(port: int, junk: bytes, wait_for_hang_up: bool) -> None:
    """Write `junk` to a plain TCP connection; maybe wait until the other side hangs up."""
    reader, writer = await within(asyncio.open_connection(HOST, port))
    try:
        # zmq may hang up as soon as it has read enough junk, even before the write is drained.
        with contextlib.suppress(ConnectionError):
            writer.write(junk)
            await within(writer.drain())
            if wait_for_hang_up:
                while await within(reader.read(4096)):
                    pass
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await within(writer.wait_closed())


def test_zmq_survives_bytes_that_are_not_zmtp() -> None:
    garbage = [
        bytes(range(256)) * 4,
        b"\xff" + bytes(9) + b"\x7f" + bytes(range(256)) * 2,
        b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n",
    ]

    async def scenario() -> None:
        async with zmq_nodes("alice", "bob") as (alice, bob):
            for junk in garbage:
                await send_junk(port_of(bob), junk, wait_for_hang_up=False)
            # The first one is enough for zmq to hang up: wait until it has, to know junk was read.
            await send_junk(port_of(bob), garbage[0], wait_for_hang_up=True)
            assert alice.send(bob.node_id, b"fine")
            assert await receive(bob) == (alice.node_id, b"fine")
            assert bob.send(alice.node_id, b"fine too")
            assert await receive(alice) == (bob.node_id, b"fine too")

    run(scenario)


def test_zmq_drops_frames_of_a_bad_shape() -> None:
    async def scenario() -> None:
        mallory_keys = new_keys()
        mallory = f"mallory~{mallory_keys.token}"
        async with zmq_nodes("bob") as (bob,), raw_dealer(bob, mallory_keys) as dealer:
            dealer.connect(bob.address)
            await within(dealer.send(b"one frame alone"))
            await within(dealer.send_multipart([mallory.encode(), b"three", b"frames"]))
            await within(dealer.send_multipart([mallory.encode(), b"two frames"]))
            # Same connection, so the bad ones came first; recv() skipped them instead of raising.
            assert await receive(bob) == (mallory, b"two frames")

    run(scenario)


def watching_drops(reason: str) -> tuple[asyncio.Event, logging.Handler]:
    """An event set when the transport logs a drop for ``reason``, and the handler to remove after."""
    dropped = asyncio.Event()

    class Watch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if reason in record.getMessage():
                dropped.set()

    watch = Watch()
    logging.getLogger("kdm.net").addHandler(watch)
    return dropped, watch


@pytest.mark.parametrize(
    ("identity", "reason"),
    [(b"", "did not say its sender's node id"), (b"\xff\xfe", "not UTF-8")],
    ids=["no-identity", "not-utf8"],
)
def test_zmq_drops_frames_from_a_bad_identity(identity: bytes, reason: str) -> None:
    async def scenario() -> None:
        dropped, watch = watching_drops(reason)
        try:
            async with zmq_nodes("alice", "bob") as (alice, bob), raw_dealer(bob) as dealer:
                dealer.connect(bob.address)
                receiving = await started_receiving(bob)
                await within(dealer.send_multipart([identity, b"who am I"]))
                await within(dropped.wait())
                assert not receiving.done()
                assert alice.send(bob.node_id, b"me")
                assert await within(receiving) == (alice.node_id, b"me")
        finally:
            logging.getLogger("kdm.net").removeHandler(watch)

    run(scenario)


# --- CurveZMQ: who may connect, who may say they sent, what the wire shows -------------------------------


def test_zmq_a_connection_without_curve_gets_nothing_through() -> None:
    async def scenario() -> None:
        async with zmq_nodes("alice", "bob") as (alice, bob), raw_dealer() as dealer:
            refused = zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
            monitor = dealer.get_monitor_socket(refused | zmq.EVENT_HANDSHAKE_SUCCEEDED)
            try:
                receiving = await started_receiving(bob)
                dealer.connect(bob.address)  # no key: the handshake cannot even start
                event = parse_monitor_message(await within(monitor.recv_multipart()))["event"]
                assert event & refused, f"the plain connection was not refused: event {event}"
                # Between refusals the dealer may hold no connection to queue on, so it must not wait.
                with contextlib.suppress(zmq.Again):
                    dealer.send_multipart([alice.node_id.encode(), b"plain"], flags=zmq.DONTWAIT)
                assert alice.send(bob.node_id, b"sealed")
                assert await within(receiving) == (alice.node_id, b"sealed")
            finally:
                dealer.disable_monitor()
                monitor.close(linger=0)

    run(scenario)


def test_zmq_a_connection_cannot_send_under_another_nodes_id() -> None:
    # mallory holds a key of its own and names itself alice: the handshake succeeds (anyone may knock),
    # but every message it sends is dropped, and alice's own still arrive.
    async def scenario() -> None:
        dropped, watch = watching_drops("its connection holds another key")
        try:
            async with (
                zmq_nodes("alice", "bob") as (alice, bob),
                raw_dealer(bob) as mallory,
            ):
                mallory.connect(bob.address)
                receiving = await started_receiving(bob)
                await within(mallory.send_multipart([alice.node_id.encode(), b"forged append"]))
                await within(dropped.wait())
                assert alice.send(bob.node_id, b"the real alice")
                assert await within(receiving) == (alice.node_id, b"the real alice")
        finally:
            logging.getLogger("kdm.net").removeHandler(watch)

    run(scenario)


def test_zmq_traffic_is_unreadable_on_the_wire() -> None:
    # A relay between alice and bob records every byte, as a capture on the LAN would.
    secret = b"Q\xe2\x99\xa5 dealt to seat 2: a msgpack envelope \x84\xa1t\xa4raft"
    captured = bytearray()

    async def relay(bob_port: int) -> tuple[asyncio.AbstractServer, int]:
        async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            with contextlib.suppress(ConnectionError):
                while data := await reader.read(65536):
                    captured.extend(data)
                    writer.write(data)
                    await writer.drain()
            writer.close()

        async def on_connection(
            client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter
        ) -> None:
            server_reader, server_writer = await asyncio.open_connection(HOST, bob_port)
            await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer))

        server = await asyncio.start_server(on_connection, HOST, 0)
        return server, server.sockets[0].getsockname()[1]

    async def scenario() -> None:
        async with zmq_nodes("alice", "bob") as (alice, bob):
            server, port = await relay(port_of(bob))
            try:
                alice.connect(bob.node_id, f"tcp://{HOST}:{port}")
                for _ in range(3):
                    assert alice.send(bob.node_id, secret)
                assert [await receive(bob) for _ in range(3)] == [(alice.node_id, secret)] * 3
            finally:
                server.close()
        assert len(captured) > 3 * len(secret)
        for clear in (secret, b"dealt to seat", b"msgpack", b"raft", alice_name := b"alice"):
            assert clear not in captured, clear
        assert alice_name not in captured  # even the sender's id travels inside the box

    run(scenario)


def test_zmq_handshakes_from_one_address_are_bounded(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        async with zmq_nodes("bob") as (bob,):
            gatekeeper = bob._gatekeeper
            assert gatekeeper is not None
            key = bytes(32)
            request = [b"1.0", b"7", b"", b"10.0.0.66", b"", b"CURVE", key]
            with caplog.at_level(logging.WARNING, logger="kdm.net"):
                answers = [gatekeeper._answer(list(request))[2] for _ in range(HANDSHAKES_PER_S + 5)]
            assert answers == [b"200"] * HANDSHAKES_PER_S + [b"400"] * 5
            assert caplog.text.count("refusing handshakes from 10.0.0.66") == 1
            other = [b"1.0", b"8", b"", b"10.0.0.67", b"", b"CURVE", key]
            assert gatekeeper._answer(other)[2:5] == [b"200", b"OK", b"a" * 52]  # a key of zeros
            assert gatekeeper._answer([b"1.0", b"9", b"", b"10.0.0.68", b"", b"NULL"])[2] == b"400"

    run(scenario)


# --- the in-memory network ---------------------------------------------------------------------------------


def test_memory_cut_loses_messages_both_ways_until_healed() -> None:
    network = MemoryNetwork()

    async def scenario() -> None:
        async with memory_nodes("alice", "bob", "carol", network=network) as (alice, bob, carol):
            network.cut("alice", "bob")
            assert alice.send("bob", b"lost")  # the sender cannot tell, as on a real network
            assert bob.send("alice", b"lost too")
            assert alice.send("carol", b"via carol")
            assert await receive(carol) == ("alice", b"via carol")
            network.heal("alice", "bob")
            assert alice.send("bob", b"healed")
            assert bob.send("alice", b"healed too")
            assert await receive(bob) == ("alice", b"healed")
            assert await receive(alice) == ("bob", b"healed too")

    run(scenario)


def test_memory_one_way_cut() -> None:
    network = MemoryNetwork()

    async def scenario() -> None:
        async with memory_nodes("alice", "bob", network=network) as (alice, bob):
            network.cut("alice", "bob", one_way=True)
            alice.send("bob", b"lost")
            bob.send("alice", b"through")
            assert await receive(alice) == ("bob", b"through")
            network.heal("alice", "bob", one_way=True)
            alice.send("bob", b"now")
            assert await receive(bob) == ("alice", b"now")

    run(scenario)


def test_memory_delay_keeps_order_per_link_even_when_delays_differ() -> None:
    delays = iter([0.05, 0.04, 0.03, 0.02, 0.01, 0.0, 0.03, 0.0])
    network = MemoryNetwork(delay=lambda sender, receiver: next(delays))

    async def scenario() -> None:
        async with memory_nodes("alice", "bob", network=network) as (alice, bob):
            loop = asyncio.get_running_loop()
            sent_at = loop.time()
            for number in range(8):
                alice.send("bob", b"%d" % number)
            assert [await receive(bob) for _ in range(8)] == [("alice", b"%d" % n) for n in range(8)]
            assert loop.time() - sent_at >= 0.04  # delivered by the timers, not at once

    run(scenario)


def test_memory_cut_loses_what_is_in_flight() -> None:
    network = MemoryNetwork(delay=0.02)

    async def scenario() -> None:
        async with memory_nodes("alice", "bob", network=network) as (alice, bob):
            alice.send("bob", b"in flight")
            network.cut("alice", "bob")
            network.heal("alice", "bob")
            alice.send("bob", b"after")
            assert await receive(bob) == ("alice", b"after")

    run(scenario)


def test_memory_inbox_limit() -> None:
    network = MemoryNetwork(inbox_limit=3)

    async def scenario() -> None:
        async with memory_nodes("alice", "bob", network=network) as (alice, bob):
            for number in range(5):
                alice.send("bob", b"%d" % number)
            assert [await receive(bob) for _ in range(3)] == [("alice", b"%d" % n) for n in range(3)]
            alice.send("bob", b"room again")
            assert await receive(bob) == ("alice", b"room again")

    run(scenario)


def test_memory_address_in_use_and_restart() -> None:
    network = MemoryNetwork()

    async def scenario() -> None:
        async with memory_nodes("alice", "bob", network=network) as (alice, bob):
            twin = network.transport("bob")
            with pytest.raises(TransportError, match="memory://bob is in use"):
                await twin.start()
            await bob.close()
            assert alice.send("bob", b"nobody home")  # lost: nothing listens there now
            await twin.start()
            assert alice.send("bob", b"back")
            assert await receive(twin) == ("alice", b"back")
            await twin.close()

    run(scenario)
