"""The transport: the only code in kdm that opens sockets. It moves opaque byte strings between node ids.

`Transport` is the interface the rest of `kdm.net` is written against, in the manner of httpx's
transports; `ZmqTransport` is the real one and `MemoryNetwork` hands out in-process ones for tests.
Both promise the same things:

- `send` never blocks and never raises for a peer's trouble: it queues the bytes or drops them and says so
  (False). Delivery is best effort, in order per pair of nodes; the consensus above copes with loss.
- `recv` yields ``(sender, payload)`` where `sender` is the node id the connection identified itself with,
  never a value read from the payload. Frames of a bad shape are dropped and logged, not raised.
- Frames over `MAX_MESSAGE_BYTES` are refused by `send` and, from anyone else, never reach `recv`.

`ZmqTransport` encrypts every connection with CurveZMQ. A zmq node's id ends with its public key (see
`kdm.net.keys`), which is how a connection finds the key of the node it connects to; a ZAP handler
(`_Gatekeeper`) admits every CURVE handshake but a flood from one address, and labels the connection with
the key it proved it holds; `recv` drops every message whose sender's id names another key. So a sender
id cannot be forged, and nothing on the wire is readable or writable by anyone else.

Drops are logged on the ``kdm.net`` logger with their reason. User mistakes (a port in use, a transport
used before `start`) raise `TransportError` with a one-line message saying what to do.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import ClassVar, Protocol

import zmq
import zmq.asyncio

from kdm.net.clock import PerSecond
from kdm.net.keys import NodeKeys, curve_token_of, new_keys, public_key_of, raw_key_token
from kdm.net.wire import MAX_MESSAGE_BYTES

__all__ = ["MemoryNetwork", "MemoryTransport", "Transport", "TransportError", "ZmqTransport"]

log = logging.getLogger("kdm.net")

SEND_QUEUE_LIMIT = 1000
"""Messages queued towards one peer before `send` starts dropping (zmq's SNDHWM)."""
RECONNECT_INTERVAL_MS = 100
#: zmq backs off reconnecting to a peer that is down up to this: a player's kdm killed and started again
#: on its port heard the table only when the leader's next try came, up to a second later.
RECONNECT_INTERVAL_MAX_MS = 200
#: CURVE handshakes one address may start per second; more are refused (each costs this process key
#: exchanges and a round through the gatekeeper, which a flood from one stranger must not monopolize).
HANDSHAKES_PER_S = 20
#: Addresses whose recent handshakes are counted; the least recently seen is forgotten first.
_COUNTED_ADDRESSES = 256
_ZAP_ENDPOINT = "inproc://zeromq.zap.01"
# What CURVE adds to a message on the wire: its command name, flags, nonce and MAC (33 bytes), rounded up.
_CURVE_OVERHEAD = 64
# zmq's flags and options as plain ints: an enum's operators cost more than the read or send they
# guard (pyzmq's ``send_multipart`` and ``recv_multipart`` combine them at every frame).
_POLLIN = int(zmq.POLLIN)
_EVENTS = int(zmq.EVENTS)
_RCVMORE = int(zmq.RCVMORE)
_NOBLOCK = int(zmq.NOBLOCK)
_MORE_NOBLOCK = int(zmq.SNDMORE | zmq.NOBLOCK)
# zmq limits identities to 255 bytes, and those starting with a zero byte are its own generated ones.
_MAX_NODE_ID_BYTES = 255


class TransportError(Exception):
    """A transport cannot do what it was asked; the message is one line, fit to show a user."""


class Transport(Protocol):
    """Moves byte strings between nodes; see the module docstring for what every implementation promises."""

    node_id: str

    @property
    def keys(self) -> NodeKeys | None:
        """The keys the node's id names (``kdm.net.keys``); None where ids carry none (memory network)."""
        ...

    @property
    def address(self) -> str:
        """Where peers connect to reach this node, e.g. ``tcp://127.0.0.1:41234``; known after `start`."""
        ...

    async def start(self) -> None:
        """Start listening at `address`."""
        ...

    def connect(self, peer_id: str, address: str) -> None:
        """Be able to send to `peer_id` at `address`. Idempotent; a new address replaces the old one."""
        ...

    def disconnect(self, peer_id: str) -> None:
        """Forget `peer_id`, dropping whatever is still queued for it. Idempotent."""
        ...

    @property
    def connections(self) -> int:
        """How many peers this transport can send to now (sockets it holds open for them)."""
        ...

    def send(self, peer_id: str, data: bytes) -> bool:
        """Queue `data` for `peer_id` without blocking; False if it was dropped instead.

        Dropped: `peer_id` is not connected, its queue is full, or `data` is over `MAX_MESSAGE_BYTES`.
        """
        ...

    async def recv(self) -> tuple[str, bytes]:
        """Wait for the next message: (the sender's node id, the payload). TransportError once closed."""
        ...

    async def close(self) -> None:
        """Stop listening and drop every connection. Idempotent."""
        ...


def _fits(peer_id: str, data: bytes) -> bool:
    # Refused here rather than by the receiver, which would cut the whole connection over it and lose
    # the messages queued behind it.
    if len(data) > MAX_MESSAGE_BYTES:
        log.warning("dropped a message of %d bytes to %s: over the limit", len(data), peer_id)
        return False
    return True


def _check_node_id(node_id: str) -> None:
    encoded = node_id.encode() if isinstance(node_id, str) else b""
    if not encoded or len(encoded) > _MAX_NODE_ID_BYTES or encoded.startswith(b"\0"):
        raise ValueError(f"a node id must be 1 to {_MAX_NODE_ID_BYTES} bytes of text, not starting with NUL")


class ZmqTransport:
    """A transport over zmq on the running asyncio loop: one ROUTER to listen, one DEALER per peer.

    Each message goes out as two frames, this node's id and the payload, so the receiver reads who sent
    it without decoding the payload; CURVE makes that id a proof (see the module docstring). zmq's own
    connection identities are not used: they are self-declared, and a connection that took over one
    (``ROUTER_HANDOVER``) would lock its owner out; here any number of connections may come and go.
    The id is ``NAME~TOKEN``: the ``name`` given (``listen`` makes it ``HOST:PORT``) and this
    transport's public key. Dealers only ever send, so they are plain (non-async) sockets: a NOBLOCK send
    has no reason to go through a future.
    """

    def __init__(
        self,
        name: str,
        host: str = "127.0.0.1",
        port: int = 0,
        context: zmq.asyncio.Context | None = None,
        keys: NodeKeys | None = None,
    ) -> None:
        _check_node_id(name)
        self.keys: NodeKeys = keys or new_keys()
        self.node_id = self.named(name)
        _check_node_id(self.node_id)
        self.host = host
        self.port = port
        self._given_context = context
        self._context: zmq.asyncio.Context | None = None
        self._router: zmq.Socket[bytes] | None = None
        #: What the router has received and ``recv`` not yet returned, and the receive that waits for
        #: more (see ``_readable``).
        self._received: deque[tuple[str, bytes]] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._gatekeeper: _Gatekeeper | None = None
        self._address: str | None = None
        self._dealers: dict[str, tuple[str, zmq.Socket[bytes]]] = {}
        # Peers whose queue was full at the last send: the drop is logged once, not once a message.
        self._blocked: set[str] = set()
        self._closed = False
        #: This transport's id, and as the first frame of every message it sends.
        self._sender = ("", b"")

    def named(self, name: str) -> str:
        """The node id this transport has under ``name``: the name, then its public key."""
        return f"{name}~{self.keys.token}"

    @property
    def address(self) -> str:
        if self._address is None:
            raise TransportError("the transport is not listening yet; call start() first")
        return self._address

    async def start(self) -> None:
        if self._closed:
            raise TransportError("this transport is closed; make a new one")
        if self._router is not None:
            return
        context = self._given_context or zmq.asyncio.Context()
        # The handler is bound before the ROUTER: no handshake may complete without it.
        gatekeeper = _Gatekeeper.of(context)
        # A plain socket, read when its descriptor says so (``_readable``): every message that arrived
        # is read at one wake-up, and none goes through a future of its own.
        router: zmq.Socket[bytes] = zmq.Socket(context, zmq.ROUTER)
        try:
            router.setsockopt(zmq.LINGER, 0)
            router.setsockopt(zmq.CURVE_SERVER, 1)
            router.setsockopt(zmq.CURVE_PUBLICKEY, self.keys.curve.public)
            router.setsockopt(zmq.CURVE_SECRETKEY, self.keys.curve.secret)
            # zmq drops a bigger frame before allocating it, and cuts that connection; the peer reconnects.
            # It measures the frame as encrypted: a box and its nonce ride along (`_split_frames` holds
            # the plain payload to the exact limit).
            router.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES + _CURVE_OVERHEAD)
            router.setsockopt(zmq.RCVHWM, SEND_QUEUE_LIMIT)
            router.bind(f"tcp://{self.host}:{self.port or '*'}")
            endpoint = router.getsockopt(zmq.LAST_ENDPOINT)
        except zmq.ZMQError as error:
            router.close(linger=0)
            gatekeeper.release()
            if context is not self._given_context:
                context.term()
            raise TransportError(self._bind_failure(error)) from error
        self._context = context
        self._gatekeeper = gatekeeper
        self._router = router
        self._address = endpoint.decode() if isinstance(endpoint, bytes) else str(endpoint)
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(router.FD, self._readable)

    def _bind_failure(self, error: zmq.ZMQError) -> str:
        if error.errno == zmq.EADDRINUSE:
            return f"port {self.port} on {self.host} is in use; choose another with --port"
        if error.errno == zmq.EADDRNOTAVAIL:
            return f"{self.host} is not an address of this machine; give one of its own with --interface"
        if error.errno == errno.EACCES:
            return f"not allowed to listen on port {self.port}; choose one above 1023 with --port"
        return f"cannot listen on {self.host}:{self.port}: {error.strerror}"

    def connect(self, peer_id: str, address: str) -> None:
        if self._closed:
            raise TransportError("this transport is closed; make a new one")
        if self._context is None:
            raise TransportError("the transport is not running; call start() first")
        current = self._dealers.get(peer_id)
        if current is not None:
            if current[0] == address:
                return
            self.disconnect(peer_id)
        server_key = public_key_of(peer_id)
        if server_key is None:
            raise TransportError(f"cannot connect to {peer_id}: its id does not end with its key (~KEY)")
        dealer: zmq.Socket[bytes] = zmq.Socket(self._context, zmq.DEALER)
        try:
            dealer.setsockopt(zmq.LINGER, 0)
            dealer.setsockopt(zmq.CURVE_SERVERKEY, server_key)
            dealer.setsockopt(zmq.CURVE_PUBLICKEY, self.keys.curve.public)
            dealer.setsockopt(zmq.CURVE_SECRETKEY, self.keys.curve.secret)
            dealer.setsockopt(zmq.SNDHWM, SEND_QUEUE_LIMIT)
            # Nothing is ever read from a dealer: a peer that writes to it anyway must not fill memory.
            dealer.setsockopt(zmq.RCVHWM, 1)
            dealer.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
            dealer.setsockopt(zmq.RECONNECT_IVL, RECONNECT_INTERVAL_MS)
            dealer.setsockopt(zmq.RECONNECT_IVL_MAX, RECONNECT_INTERVAL_MAX_MS)
            dealer.connect(address)
        except zmq.ZMQError as error:
            dealer.close(linger=0)
            raise TransportError(f"cannot connect to {peer_id} at {address}: {error.strerror}") from error
        self._dealers[peer_id] = (address, dealer)

    @property
    def connections(self) -> int:
        return len(self._dealers)

    def disconnect(self, peer_id: str) -> None:
        entry = self._dealers.pop(peer_id, None)
        self._blocked.discard(peer_id)
        if entry is not None:
            entry[1].close(linger=0)

    def send(self, peer_id: str, data: bytes) -> bool:
        entry = self._dealers.get(peer_id)
        if entry is None:
            log.info("dropped a message to %s: not connected to that peer", peer_id)
            return False
        if not _fits(peer_id, data):
            return False
        if self._sender[0] != self.node_id:  # (``listen`` names the transport once it has its port)
            self._sender = (self.node_id, self.node_id.encode())
        dealer = entry[1]
        try:
            # Two frames, one message: zmq takes all of a message's frames or none (only the first can
            # find the queue full), and the peer reads it whole.
            dealer.send(self._sender[1], _MORE_NOBLOCK)
            dealer.send(data, _NOBLOCK)
        except zmq.Again:
            if peer_id not in self._blocked:
                self._blocked.add(peer_id)
                log.warning(
                    "dropping messages to %s: %d already queued and not delivered", peer_id, SEND_QUEUE_LIMIT
                )
            return False
        if peer_id in self._blocked:
            self._blocked.discard(peer_id)
            log.info("sending to %s again", peer_id)
        return True

    async def recv(self) -> tuple[str, bytes]:
        while True:
            if self._router is None:
                closed = "the transport was closed" if self._closed else "the transport is not running"
                raise TransportError(closed)
            if not self._received:
                self._readable()  # what zmq holds that its descriptor will not announce again
            if self._received:
                return self._received.popleft()  # no wait, no wake-up of the loop
            assert self._loop is not None
            waiter = self._waiter = self._loop.create_future()
            try:
                await waiter
            finally:
                self._waiter = None

    def _readable(self) -> None:
        """Read what the router holds, up to ``SEND_QUEUE_LIMIT`` messages not yet taken by ``recv``
        (zmq's own queue holds the rest, and drops past its limit), and wake a waiting ``recv``.

        zmq's descriptor says only that something changed: it is read until zmq has no more, or it would
        not say so again."""
        router = self._router
        if router is None:
            return
        received = self._received
        try:
            # Asking whether a message waits is cheaper than the exception an empty read raises.
            while len(received) < SEND_QUEUE_LIMIT and int(router.get(_EVENTS)) & _POLLIN:
                frames = [router.recv(_NOBLOCK, copy=False)]
                while router.get(_RCVMORE):  # the rest of the message came with its first frame
                    frames.append(router.recv(_NOBLOCK, copy=False))
                message = _split_frames(frames)
                if message is not None:
                    received.append(message)
        except zmq.ZMQError as error:  # a socket closed under us: nothing more to read
            log.info("the transport's socket cannot be read: %s", error)
        waiter = self._waiter
        if received and waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for peer_id in list(self._dealers):
            self.disconnect(peer_id)
        if self._router is not None:
            if self._loop is not None and not self._loop.is_closed():
                self._loop.remove_reader(self._router.FD)
            self._router.close(linger=0)
            self._router = None
        self._received.clear()
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_exception(TransportError("the transport was closed"))
        if self._gatekeeper is not None:
            self._gatekeeper.release()
            self._gatekeeper = None
        # Sockets first, then the context: term() waits for every socket of the context to be closed.
        if self._context is not None and self._context is not self._given_context:
            self._context.term()
        self._context = None


def _split_frames(frames: list[zmq.Frame]) -> tuple[str, bytes] | None:
    """(sender, payload) from a ROUTER's frames, or None after logging why they were dropped."""
    if len(frames) != 3:  # the ROUTER's connection id, the sender's node id, the payload
        log.warning("dropped a message of %d frames; a peer sends exactly two", len(frames) - 1)
        return None
    identity, payload = frames[1].bytes, frames[2]
    if len(payload) > MAX_MESSAGE_BYTES:
        log.warning("dropped a message of %d bytes: over the limit", len(payload))
        return None
    if not identity or identity.startswith(b"\0"):
        log.warning("dropped a message that did not say its sender's node id")
        return None
    try:
        sender = identity.decode()
    except UnicodeDecodeError:
        log.warning("dropped a message from a node id that is not UTF-8: %r", identity[:40])
        return None
    # The gatekeeper labelled the connection with the key its handshake proved (zmq keeps the label
    # with every message of that connection): the id it names itself by must end with that key.
    proven = payload.get("User-Id")
    if curve_token_of(sender) != proven:
        log.warning("dropped a message from %s: its connection holds another key (%s)", sender, proven)
        return None
    return sender, payload.bytes


class _Gatekeeper:
    """The ZAP handler of one zmq context: every CURVE handshake of its sockets asks it first.

    It admits any client key (a table's admission is the node's business, above the transport) and
    labels the connection with that key's token, which `_split_frames` checks against the id every
    message is sent under. An address that starts more than ``HANDSHAKES_PER_S`` handshakes in a second
    is refused until the next second. Shared by the transports of a context; the last one to close
    closes it.
    """

    _by_context: ClassVar[weakref.WeakKeyDictionary[zmq.asyncio.Context, _Gatekeeper]] = (
        weakref.WeakKeyDictionary()
    )

    def __init__(self, context: zmq.asyncio.Context) -> None:
        self._context = context
        self._socket = context.socket(zmq.REP)
        self._socket.setsockopt(zmq.LINGER, 0)
        self._socket.bind(_ZAP_ENDPOINT)
        self._users = 0
        #: Handshakes started this second, per address, least recently seen first.
        self._recent: OrderedDict[bytes, PerSecond] = OrderedDict()
        self._task = asyncio.get_running_loop().create_task(self._answer_forever())

    @classmethod
    def of(cls, context: zmq.asyncio.Context) -> _Gatekeeper:
        """The context's gatekeeper, started on first use; each caller must `release` it once."""
        gatekeeper = cls._by_context.get(context)
        if gatekeeper is None:
            gatekeeper = cls._by_context[context] = cls(context)
        gatekeeper._users += 1
        return gatekeeper

    def release(self) -> None:
        self._users -= 1
        if self._users == 0:
            self._task.cancel()
            self._socket.close(linger=0)
            self._by_context.pop(self._context, None)

    async def _answer_forever(self) -> None:
        while True:
            frames = await self._socket.recv_multipart()
            try:
                reply = self._answer(frames)
            except Exception:  # a malformed request must not leave every handshake of the context hanging
                log.exception("the handshake gatekeeper failed on a request")
                reply = [b"1.0", frames[1] if len(frames) > 1 else b"", b"500", b"internal error", b"", b""]
            await self._socket.send_multipart(reply)

    def _answer(self, frames: list[bytes]) -> list[bytes]:
        version, request, _domain, address, _identity, mechanism, *credentials = frames
        if mechanism != b"CURVE" or len(credentials) != 1:
            return [version, request, b"400", b"CURVE only", b"", b""]
        if not self._admits(address):
            return [version, request, b"400", b"too many handshakes", b"", b""]
        token = raw_key_token(credentials[0])
        return [version, request, b"200", b"OK", token.encode(), b""]

    def _admits(self, address: bytes) -> bool:
        counter = self._recent.pop(address, None) or PerSecond(HANDSHAKES_PER_S)
        self._recent[address] = counter
        while len(self._recent) > _COUNTED_ADDRESSES:
            self._recent.popitem(last=False)
        if counter.allows():
            return True
        if counter.count == HANDSHAKES_PER_S + 1:
            log.warning(
                "refusing handshakes from %s: over %d in a second", address.decode(), HANDSHAKES_PER_S
            )
        return False


# ---------------------------------------------------------------------------------------------------------
# The in-memory network, for tests


Delay = Callable[[str, str], float]
"""Seconds a message from the first node id to the second spends in flight."""


class MemoryNetwork:
    """An in-process network of `MemoryTransport`s, found by address; links can be cut and healed.

    With a delay, each message is delivered by `loop.call_later`; a link delivers the oldest message it
    holds whenever one of its timers fires, so order per link holds even when delays differ or tie.
    A cut link loses what it holds and what is sent while it is cut, as a real network would.
    """

    def __init__(self, delay: float | Delay = 0.0, inbox_limit: int = 10_000) -> None:
        self._delay = delay
        self.inbox_limit = inbox_limit
        self._listening: dict[str, MemoryTransport] = {}
        self._cut: set[tuple[str, str]] = set()
        # Messages in flight per (sender, receiver), oldest first; a cut replaces the deque, losing them.
        self._links: dict[tuple[str, str], deque[bytes]] = {}

    def transport(self, node_id: str) -> MemoryTransport:
        """A new transport for `node_id`, at ``memory://<node_id>`` once started."""
        return MemoryTransport(self, node_id)

    def cut(self, a: str, b: str, *, one_way: bool = False) -> None:
        """Lose every message between node ids `a` and `b` (only from `a` to `b` if `one_way`)."""
        self._cut.add((a, b))
        self._links.pop((a, b), None)
        if not one_way:
            self._cut.add((b, a))
            self._links.pop((b, a), None)

    def heal(self, a: str, b: str, *, one_way: bool = False) -> None:
        """Undo `cut`: messages between `a` and `b` flow again (only from `a` to `b` if `one_way`)."""
        self._cut.discard((a, b))
        if not one_way:
            self._cut.discard((b, a))

    def _listen(self, transport: MemoryTransport) -> None:
        holder = self._listening.get(transport.address)
        if holder is not None and holder is not transport:
            raise TransportError(f"{transport.address} is in use by another transport")
        self._listening[transport.address] = transport

    def _unlisten(self, transport: MemoryTransport) -> None:
        if self._listening.get(transport.address) is transport:
            del self._listening[transport.address]

    def _send(self, sender: str, address: str, data: bytes) -> None:
        receiver = self._listening.get(address)
        if receiver is None:
            log.info("lost a message from %s: nothing listens at %s", sender, address)
            return
        key = (sender, receiver.node_id)
        if key in self._cut:
            log.debug("lost a message from %s to %s: the link is cut", *key)
            return
        delay = self._delay(*key) if callable(self._delay) else self._delay
        if delay <= 0 and key not in self._links:
            receiver._deliver(sender, data)
            return
        # A copy, like a socket would make: the sender may reuse a bytearray it passed in.
        link = self._links.setdefault(key, deque())
        link.append(bytes(data))
        asyncio.get_running_loop().call_later(max(delay, 0.0), self._arrive, key, link, address)

    def _arrive(self, key: tuple[str, str], link: deque[bytes], address: str) -> None:
        # A link cut since has lost its messages; so has one whose receiver went away.
        if self._links.get(key) is not link or not link:
            return
        data = link.popleft()
        if not link:
            del self._links[key]
        receiver = self._listening.get(address)
        if receiver is not None and receiver.node_id == key[1]:
            receiver._deliver(key[0], data)


class MemoryTransport:
    """One node's endpoint on a `MemoryNetwork`; behaves like `ZmqTransport` without sockets."""

    def __init__(self, network: MemoryNetwork, node_id: str) -> None:
        _check_node_id(node_id)
        self.node_id = node_id
        self.keys: NodeKeys | None = None
        self._network = network
        self._address = f"memory://{node_id}"
        self._peers: dict[str, str] = {}
        # None marks the end: close() puts it in so that a pending recv() wakes up.
        self._inbox: asyncio.Queue[tuple[str, bytes] | None] = asyncio.Queue()
        self._started = False
        self._closed = False

    @property
    def address(self) -> str:
        return self._address

    async def start(self) -> None:
        if self._closed:
            raise TransportError("this transport is closed; make a new one")
        self._network._listen(self)
        self._started = True

    def connect(self, peer_id: str, address: str) -> None:
        if self._closed:
            raise TransportError("this transport is closed; make a new one")
        if not self._started:
            raise TransportError("the transport is not running; call start() first")
        self._peers[peer_id] = address

    @property
    def connections(self) -> int:
        return len(self._peers)

    def disconnect(self, peer_id: str) -> None:
        self._peers.pop(peer_id, None)

    def send(self, peer_id: str, data: bytes) -> bool:
        address = self._peers.get(peer_id)
        if address is None or self._closed:
            log.info("dropped a message to %s: not connected to that peer", peer_id)
            return False
        if not _fits(peer_id, data):
            return False
        self._network._send(self.node_id, address, data)
        return True

    async def recv(self) -> tuple[str, bytes]:
        if self._closed:
            raise TransportError("the transport is not running")
        item = await self._inbox.get()
        if item is None:
            # Put it back so every other waiting receiver wakes up too.
            self._inbox.put_nowait(None)
            raise TransportError("the transport was closed")
        return item

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._peers.clear()
        self._network._unlisten(self)
        self._inbox.put_nowait(None)

    def _deliver(self, sender: str, data: bytes) -> None:
        if self._closed:
            return
        if self._inbox.qsize() >= self._network.inbox_limit:
            log.warning(
                "dropped a message from %s: %d messages not yet received", sender, self._inbox.qsize()
            )
            return
        self._inbox.put_nowait((sender, bytes(data)))
