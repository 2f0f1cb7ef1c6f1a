"""A userspace Wi-Fi for the test LAN: this kernel has no netem, so delay and loss are made here.

This module owns the emulated radio: the profiles (`PROFILES`, names are a contract: `perfect`, `wifi`,
`bad`), the medium that decides, frame by frame, who receives what and when (`Medium`: frames and the time
in, deliveries out, no I/O, replayable from its seed), and the forwarder process that carries the frames
between TAP devices (`serve`, run as ``python -m tests.helpers.wifi`` or by path inside the test LAN's
switch namespace; `tests/helpers/netns.py` starts it for ``NamespaceLan(n, link="wifi")``).

The forwarder is an access point: it opens one TAP device per laptop (the harness moves each into its
laptop's namespace, where it is that laptop's eth0; the open descriptor keeps working after the move), and
carries every Ethernet frame from one TAP to the others: group-addressed frames (broadcast and multicast)
to every other laptop, unicast to the laptop whose source address it learned, to all while unknown. Each
copy is delivered after a delay drawn from the profile, or lost; frames keep their order on each (source,
destination) pair, as Wi-Fi's retransmissions keep it (a delayed frame holds back those behind it), and a
stall holds every frame on the medium until it ends.

Its commands, one a line on stdin, each answered by one line on stdout: ``cut I`` (laptop I's carrier goes
off, as a cable pulled: its frames in flight are lost and none are carried to or from it), ``restore I``,
``hold I MS`` (for the next MS milliseconds nothing sent reaches laptop I, then all of it does, in order:
its radio deaf for a moment, its sending untouched),
``stats`` (a JSON object of counters, ``queued`` among them), ``monitor`` (from then on, a copy of every
frame a laptop sends goes to the TAP named by ``--monitor``, left in the forwarder's namespace, where a
sniffer can read the air). It prints ``ready`` once its TAPs exist and
exits when stdin closes, which removes the TAPs: a crashed test leaves none.

Needs Linux, root and /dev/net/tun; the standard library only.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import heapq
import itertools
import json
import math
import os
import random
import select
import signal
import struct
import sys
import time
from collections import Counter, deque
from dataclasses import dataclass, replace

__all__ = ["PROFILES", "Delay", "Medium", "Profile", "is_multicast", "open_tap", "serve"]

# linux/if_tun.h
_TUNSETIFF = 0x400454CA
_TUNSETCARRIER = 0x400454E2
_IFF_TAP = 0x0002
_IFF_NO_PI = 0x1000
#: A frame as long as the largest Ethernet frame a TAP hands out (a 64 KiB GSO frame, if offloads are on).
_MAX_FRAME = 65536 + 14
#: Frames read from one TAP before looking at the others and at the clock again.
_BURST = 64
BROADCAST = b"\xff" * 6


@dataclass(frozen=True)
class Delay:
    """One-way delay of a frame: a lognormal body (median `median_ms`, shape `spread`) and, with
    probability `tail_probability`, a frame retransmitted for long instead, uniform in `tail_ms`."""

    median_ms: float = 0.0
    spread: float = 0.0
    tail_probability: float = 0.0
    tail_ms: tuple[float, float] = (0.0, 0.0)

    def draw_s(self, rng: random.Random) -> float:
        if self.tail_probability and rng.random() < self.tail_probability:
            return rng.uniform(*self.tail_ms) / 1000
        if not self.median_ms:
            return 0.0
        return self.median_ms * math.exp(rng.gauss(0.0, self.spread)) / 1000

    def scaled(self, factor: float) -> Delay:
        low, high = self.tail_ms
        return replace(self, median_ms=self.median_ms * factor, tail_ms=(low * factor, high * factor))


@dataclass(frozen=True)
class Profile:
    """How the medium treats frames: delay and loss for unicast, and for group-addressed frames (broadcast
    and multicast, sent at the basic rate and never acknowledged), and stalls of the whole medium, one
    every `stall_every_s` (uniform in the range), lasting `stall_ms` (uniform)."""

    unicast: Delay = Delay()
    group: Delay = Delay()
    unicast_loss: float = 0.0
    group_loss: float = 0.0
    stall_every_s: tuple[float, float] | None = None
    stall_ms: tuple[float, float] = (0.0, 0.0)


_HOME_UNICAST = Delay(median_ms=1.75, spread=0.3, tail_probability=0.007, tail_ms=(20.0, 125.0))
# Multicast's tail is the access point holding it for a laptop that dozes (power save), not retransmissions.
_HOME_GROUP = replace(_HOME_UNICAST, median_ms=2 * _HOME_UNICAST.median_ms)

#: The profiles, by the names tests and `NamespaceLan(link=...)` use.
#:
#: ``perfect``: no delay, no loss (the cost left is the forwarder's own, a tenth of a millisecond or so).
#:
#: ``wifi``: a home Wi-Fi as measured between two laptops: UDP round trip 4.0 ms at the median, under
#: 8 ms at p95, about 50 ms at p99, 0.12 % of round trips lost, a spike of 100-250 ms now and then. A round
#: trip is two one-way delays, so each is a lognormal body of median 1.75 ms and shape 0.3 (the sum of two
#: has its median near 3.6 ms, its p95 near 5.3 ms, and the forwarder and the echoing process add some
#: tenths), and 0.7 % of frames take 20-125 ms instead (retransmissions at lower rates): 1.4 % of round
#: trips then, which puts p99 near 50 ms. One frame in 1,700 is lost (0.06 %: 0.12 % of round trips).
#: The spikes are stalls of the whole medium (a scan, a power-save wake-up), 100-250 ms, every 10-50 s.
#: Multicast goes at the basic rate, unacknowledged: 2 % lost, and a body twice as slow.
#:
#: ``bad``: three times the wifi delays, a stall of 60-250 ms every 5 s (every frame held), 1 % of frames
#: lost, 20 % of group-addressed ones.
#:
#: Dropping all multicast is not a profile but a flag of the medium (``no_multicast``), combinable with any.
PROFILES: dict[str, Profile] = {
    "perfect": Profile(),
    "wifi": Profile(
        unicast=_HOME_UNICAST,
        group=_HOME_GROUP,
        unicast_loss=0.0006,
        group_loss=0.02,
        stall_every_s=(10.0, 50.0),
        stall_ms=(100.0, 250.0),
    ),
    "bad": Profile(
        unicast=_HOME_UNICAST.scaled(3),
        group=_HOME_GROUP.scaled(3),
        unicast_loss=0.01,
        group_loss=0.20,
        stall_every_s=(5.0, 5.0),
        stall_ms=(60.0, 250.0),
    ),
}


def is_multicast(mac: bytes) -> bool:
    """A multicast destination (01:00:5e:..., 33:33:..., any group address but broadcast)."""
    return bool(mac[0] & 1) and mac != BROADCAST


class Medium:
    """Who receives which frame, and when. Frames and the time go in (`receive`), deliveries come out
    (`deliveries`); the caller owns the clock and the devices, so a run replays from its seed.

    With `no_multicast`, frames to multicast addresses are dropped, but broadcast is carried (so ARP
    works): a network whose access point filters multicast, as some do."""

    def __init__(
        self, ports: int, profile: Profile, seed: int = 0, no_multicast: bool = False, start: float = 0.0
    ) -> None:
        self.ports = ports
        self.profile = profile
        self.no_multicast = no_multicast
        self.counters: Counter[str] = Counter()
        self._random = random.Random(seed)
        # Stalls come from their own stream, so that when they happen does not depend on the traffic.
        self._stall_random = random.Random(f"{seed}-stalls")
        self._stalls: deque[tuple[float, float]] = deque()
        self._stall_cursor = start
        self._cut: set[int] = set()
        #: Until when frames to each laptop are held (``hold``).
        self._deaf_until: dict[int, float] = {}
        self._port_of: dict[bytes, int] = {}
        self._last_due: dict[tuple[int, int], float] = {}
        self._queue: list[tuple[float, int, int, bytes]] = []
        self._sequence = itertools.count()

    def receive(self, source: int, frame: bytes, now: float) -> None:
        """A frame laptop `source` sent at `now`: schedule a copy for each laptop that is to receive it."""
        self.counters["received"] += 1
        if source in self._cut or len(frame) < 14:
            self.counters["dropped_cut"] += 1
            return
        destination, sender = frame[0:6], frame[6:12]
        if not sender[0] & 1:
            self._port_of[sender] = source
        if destination[0] & 1:
            if self.no_multicast and is_multicast(destination):
                self.counters["dropped_multicast"] += 1
                return
            delay, loss, kind = self.profile.group, self.profile.group_loss, "group"
            targets: list[int] = [port for port in range(self.ports) if port != source]
        else:
            delay, loss, kind = self.profile.unicast, self.profile.unicast_loss, "unicast"
            known = self._port_of.get(destination)
            if known == source:
                return  # for itself: a switch does not send a frame back where it came from
            targets = [known] if known is not None else [port for port in range(self.ports) if port != source]
        for target in targets:
            if target in self._cut:
                self.counters["dropped_cut"] += 1
                continue
            if loss and self._random.random() < loss:
                self.counters[f"lost_{kind}"] += 1
                continue
            self.counters[f"sent_{kind}"] += 1
            pair = (source, target)
            due = max(
                self._held_until(now + delay.draw_s(self._random)),
                self._last_due.get(pair, now),
                self._deaf_until.get(target, now),
            )
            self._last_due[pair] = due
            heapq.heappush(self._queue, (due, next(self._sequence), target, frame))

    def deliveries(self, now: float) -> list[tuple[int, bytes]]:
        """The frames due by `now`, in order, as (laptop, frame)."""
        due: list[tuple[int, bytes]] = []
        while self._queue and self._queue[0][0] <= now:
            _, _, target, frame = heapq.heappop(self._queue)
            if target in self._cut:
                self.counters["dropped_cut"] += 1
                continue
            due.append((target, frame))
        while self._stalls and self._stalls[0][1] < now:
            self._stalls.popleft()
        return due

    def next_due(self) -> float | None:
        """When the next frame is due, or None if none is queued."""
        return self._queue[0][0] if self._queue else None

    def queued(self) -> int:
        return len(self._queue)

    def cut(self, port: int) -> None:
        """Laptop `port` is off the air: nothing more is carried from or to it, not even frames in flight."""
        self._cut.add(port)

    def restore(self, port: int) -> None:
        self._cut.discard(port)

    def hold(self, port: int, until: float) -> None:
        """Nothing sent from now on reaches laptop `port` before `until` (frames already on the air go
        as drawn): a moment its radio does not hear, as when a laptop's Wi-Fi card hiccups."""
        self._deaf_until[port] = until

    def _held_until(self, moment: float) -> float:
        """When a frame due at `moment` goes: at once, or when the stall it falls into ends."""
        every = self.profile.stall_every_s
        if every is None:
            return moment
        while self._stall_cursor <= moment:
            start = self._stall_cursor + self._stall_random.uniform(*every)
            end = start + self._stall_random.uniform(*self.profile.stall_ms) / 1000
            self._stalls.append((start, end))
            self._stall_cursor = end
        for start, end in self._stalls:
            if start <= moment < end:
                return end
        return moment


# -- the forwarder: TAP devices and the clock --------------------------------------------------------


def open_tap(name: str) -> int:
    """Create TAP device `name` (no packet information header: bare Ethernet frames) and return its
    descriptor, non-blocking. The device lives as long as the descriptor."""
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    try:
        fcntl.ioctl(fd, _TUNSETIFF, struct.pack("16sH", name.encode(), _IFF_TAP | _IFF_NO_PI))
    except OSError:
        os.close(fd)
        raise
    return fd


def set_carrier(fd: int, on: bool) -> None:
    """Carrier on or off, as the laptop sees it on its side (LOWER_UP or NO-CARRIER)."""
    fcntl.ioctl(fd, _TUNSETCARRIER, struct.pack("i", int(on)))


def serve(
    taps: list[int], medium: Medium, monitor: int | None = None, commands: int = 0, answers: int = 1
) -> None:
    """Carry frames between `taps` (laptop i's is taps[i]) as `medium` decides, and obey the commands
    read from descriptor `commands`, until it closes; copy what laptops send to `monitor` once asked."""
    port_of = {fd: port for port, fd in enumerate(taps)}
    pending = b""
    monitoring = False
    while True:
        now = time.monotonic()
        for port, frame in medium.deliveries(now):
            try:
                os.write(taps[port], frame)
                medium.counters["delivered"] += 1
            except OSError:  # the laptop's side is down: the frame is lost, as on the air
                medium.counters["dropped_down"] += 1
        due = medium.next_due()
        # select() takes microseconds (poll and epoll round up to milliseconds): the delays are that short.
        timeout = None if due is None else max(0.0, due - time.monotonic())
        readable, _, _ = select.select([commands, *taps], [], [], timeout)
        now = time.monotonic()
        for fd in readable:
            if fd == commands:
                chunk = os.read(commands, 4096)
                if not chunk:
                    return
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    monitoring = monitoring or (line == b"monitor" and monitor is not None)
                    answer = _obey(line.decode().split(), taps, medium, time.monotonic())
                    os.write(answers, answer.encode() + b"\n")
                continue
            for _ in range(_BURST):
                try:
                    frame = os.read(fd, _MAX_FRAME)
                except BlockingIOError:
                    break
                medium.receive(port_of[fd], frame, now)
                if monitoring:
                    _write_quietly(monitor, frame)


def _write_quietly(fd: int | None, frame: bytes) -> None:
    """A copy for the monitor: if it cannot take it (down, full), the sniffer misses it, the air does not."""
    if fd is not None:
        with contextlib.suppress(OSError):
            os.write(fd, frame)


def _obey(words: list[str], taps: list[int], medium: Medium, now: float) -> str:
    match words:
        case ["cut", port]:
            medium.cut(int(port))
            set_carrier(taps[int(port)], False)
        case ["restore", port]:
            set_carrier(taps[int(port)], True)
            medium.restore(int(port))
        case ["hold", port, ms]:
            medium.hold(int(port), now + float(ms) / 1000)
        case ["monitor"]:
            pass  # `serve` acts on it
        case ["stats"]:
            return json.dumps({**medium.counters, "queued": medium.queued()})
        case _:
            return f"error: unknown command {' '.join(words)!r} (cut I, restore I, hold I MS, stats, monitor)"
    return " ".join(words)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", choices=sorted(PROFILES), default="wifi")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-multicast", action="store_true", help="drop multicast, carry broadcast")
    parser.add_argument("--monitor", metavar="TAP", help="a TAP to copy every frame to, on command")
    parser.add_argument("taps", nargs="+", help="the TAP devices to create, laptop 0 first")
    options = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    taps = [open_tap(name) for name in options.taps]
    monitor = open_tap(options.monitor) if options.monitor else None
    medium = Medium(
        len(taps), PROFILES[options.profile], options.seed, options.no_multicast, time.monotonic()
    )
    print("ready", flush=True)
    serve(taps, medium, monitor)


if __name__ == "__main__":
    main()
