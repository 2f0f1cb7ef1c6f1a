"""UDP probes for the test LAN's links, run inside a laptop's namespace (`tests/test_wifi.py`).

``python echo.py serve ADDRESS PORT``: echo every datagram back to its sender; prints ``ready`` once bound.

``python echo.py ask ADDRESS PEER PORT COUNT TIMEOUT``: COUNT round trips to PEER's echo, one at a time (so
that each measures the link, not the queue behind the one before), after 20 that are not counted (the
first pays for ARP); prints ``{"rtts_ms": [...], "lost": N}``, a round trip not back within TIMEOUT seconds
being lost.

``python echo.py listen GROUP PORT ADDRESS``: count datagrams to multicast GROUP (joined on the interface
of ADDRESS) and to the LAN's broadcast address, on PORT; prints ``ready`` once joined, and, when stdin
closes, ``{"multicast": N, "broadcast": M}``.

``python echo.py stream GROUP PORT ADDRESS COUNT RATE``: send COUNT datagrams to GROUP, then COUNT to the
LAN's broadcast address, RATE a second: a steady stream, well under what the forwarder carries, so that
whatever is lost is lost by the radio and not in a queue of the kernel.

Standard library only; binds only to the addresses it is given, inside its namespace.
"""

from __future__ import annotations

import json
import select
import socket
import struct
import sys
import time

WARM_UP = 20
SO_RCVBUFFORCE = 33  # linux/socket.h; as root, past net.core.rmem_max
RECEIVE_BUFFER = 8 << 20


def serve(address: str, port: int) -> None:
    echo = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    echo.bind((address, port))
    print("ready", flush=True)
    while True:
        data, sender = echo.recvfrom(64)
        echo.sendto(data, sender)


def ask(address: str, peer: str, port: int, count: int, timeout: float) -> None:
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.bind((address, 0))
    rtts_ms: list[float] = []
    lost = 0
    for sequence in range(-WARM_UP, count):
        sent = time.perf_counter()
        probe.sendto(sequence.to_bytes(4, "big", signed=True), (peer, port))
        while True:
            remaining = sent + timeout - time.perf_counter()
            if remaining <= 0:
                lost += sequence >= 0
                break
            probe.settimeout(remaining)
            try:
                data = probe.recv(64)
            except TimeoutError:
                lost += sequence >= 0
                break
            if (
                int.from_bytes(data[:4], "big", signed=True) == sequence
            ):  # not a late answer to an earlier one
                if sequence >= 0:
                    rtts_ms.append((time.perf_counter() - sent) * 1000)
                break
    print(json.dumps({"rtts_ms": rtts_ms, "lost": lost}), flush=True)


def broadcast_address(address: str) -> str:
    return address.rsplit(".", 1)[0] + ".255"  # the test LAN is a /24


def listen(group: str, port: int, address: str) -> None:
    multicast = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # Room for every datagram a stall of the medium releases at once, even if this process is slow to run.
    multicast.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RECEIVE_BUFFER)
    multicast.bind((group, port))
    membership = struct.pack("4s4s", socket.inet_aton(group), socket.inet_aton(address))
    multicast.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, membership)
    broadcast = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    broadcast.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RECEIVE_BUFFER)
    broadcast.bind((broadcast_address(address), port))
    counts = {multicast: 0, broadcast: 0}
    print("ready", flush=True)
    while True:
        readable, _, _ = select.select([sys.stdin, multicast, broadcast], [], [])
        for source in readable:
            if source is sys.stdin:
                if sys.stdin.readline():
                    continue
                for sock in counts:  # what the kernel already holds counts too
                    sock.setblocking(False)
                    while True:
                        try:
                            sock.recv(64)
                        except BlockingIOError:
                            break
                        counts[sock] += 1
                print(
                    json.dumps({"multicast": counts[multicast], "broadcast": counts[broadcast]}), flush=True
                )
                return
            source.recv(64)
            counts[source] += 1


def stream(group: str, port: int, address: str, count: int, rate: float) -> None:
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sender.bind((address, 0))
    sender.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    sender.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(address))
    start = time.monotonic()
    targets = [group] * count + [broadcast_address(address)] * count
    for i, target in enumerate(targets):
        # The stream's pace, not a wait for anything: datagram i leaves at start + i / rate.
        time.sleep(max(0.0, start + i / rate - time.monotonic()))
        sender.sendto(i.to_bytes(4, "big"), (target, port))


if __name__ == "__main__":
    command, *arguments = sys.argv[1:]
    if command == "serve":
        serve(arguments[0], int(arguments[1]))
    elif command == "ask":
        ask(arguments[0], arguments[1], int(arguments[2]), int(arguments[3]), float(arguments[4]))
    elif command == "listen":
        listen(arguments[0], int(arguments[1]), arguments[2])
    elif command == "stream":
        stream(arguments[0], int(arguments[1]), arguments[2], int(arguments[3]), float(arguments[4]))
    else:
        sys.exit(f"echo.py: unknown command {command!r} (serve, ask, listen, stream)")
