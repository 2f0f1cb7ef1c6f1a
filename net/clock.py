"""Clock-offset estimation against the leader's clock (Cristian's algorithm), pure.

This module owns the arithmetic only: a caller pings the leader, stamps the ping and the pong on its own
monotonic clock, and hands the three numbers to a `ClockEstimator`. Nothing in here reads a clock, sleeps
or does I/O (`monotonic_ms` is a convenience for callers), so every estimate can be replayed in a test.

`monotonic_ms` reads the running asyncio loop's clock when there is one (``loop.time()``, which is
``time.monotonic`` on a real loop), so that a test on a virtual-time loop (`kdm.testing.run_virtual`)
moves every clock of a peer with its timers.

For one sample the leader's reading happened somewhere between `sent` and `received`, so the true offset
lies in `[server_time - received, server_time - sent]`; the midpoint is off by at most RTT/2. The sample
with the smallest RTT therefore gives the tightest bound. Only the last `window` samples are considered,
so the estimate follows slow drift and a leader whose load changes, as pings keep coming while playing.

A sample counts only if it answers a ping this estimator sent since it was last reset (`pinged`,
`answers_a_ping`): a pong can outlive what it answers. One queued for a process that was killed reaches
the process started again on the same port, its ``sent`` read before the downtime: its midpoint then
lies half the downtime in the past, and it once set a restarted player's clock 3 s behind the leader's,
so that the leader dropped every press it made. A pong from a former leader, or one that answers a ping
sent to it, is no sample of the current one either.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from dataclasses import dataclass

__all__ = ["ClockEstimator", "ClockSample", "PerSecond", "monotonic_ms"]

#: Pings remembered as awaiting their pong: at the quickest (``kdm.net.node.PING_EVERY_S``, 0.3 s, a pong
#: riding a heartbeat up to 0.4 s later), several seconds' worth.
PINGS_AWAITED = 16


def monotonic_ms() -> float:
    """The local monotonic clock in milliseconds, the clock `ClockSample.sent`/`received` are read on."""
    loop = asyncio._get_running_loop()  # None outside a loop; cheaper than get_running_loop's raise
    return loop.time() * 1000.0 if loop is not None else time.monotonic_ns() / 1_000_000


class PerSecond:
    """Counts what happens in the current second of `monotonic_ms`, to let at most ``limit`` of it
    through (a flood from the network is answered up to a bound, then not at all until the next one)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._second = -1
        self.count = 0

    def allows(self) -> bool:
        """Count one more; whether it is within the limit of this second."""
        second = int(monotonic_ms() // 1000)
        if second != self._second:
            self._second, self.count = second, 0
        self.count += 1
        return self.count <= self.limit


@dataclass(frozen=True)
class ClockSample:
    """One ping/pong exchange, all in milliseconds.

    `sent` and `received` are read on the local monotonic clock when the ping left and the pong arrived;
    `server_time` is the reference (leader) clock when the leader answered.
    """

    sent: float
    server_time: float
    received: float

    def __post_init__(self) -> None:
        values = (self.sent, self.server_time, self.received)
        if not all(math.isfinite(value) for value in values):
            raise ValueError(f"clock sample has a non-finite time: {values}")
        if self.received < self.sent:
            raise ValueError(
                f"clock sample received ({self.received} ms) before it was sent ({self.sent} ms): "
                "stamp both ends on the same monotonic clock"
            )

    @property
    def rtt_ms(self) -> float:
        """Round-trip time of the exchange."""
        return self.received - self.sent

    @property
    def offset_ms(self) -> float:
        """This sample's estimate of reference minus local, assuming symmetric delays."""
        return self.server_time - (self.sent + self.received) / 2


class ClockEstimator:
    """The offset to the reference clock, from the minimum-RTT sample among the last `window` samples."""

    def __init__(self, window: int = 16) -> None:
        if window < 1:
            raise ValueError(f"clock window must hold at least one sample, got {window}")
        self._samples: deque[ClockSample] = deque(maxlen=window)
        self._best: ClockSample | None = None
        #: The ``sent`` time of each ping since the last reset whose pong has not come yet.
        self._awaited: deque[float] = deque(maxlen=PINGS_AWAITED)

    def pinged(self, sent: float) -> None:
        """A ping left at local time ``sent``: its pong, and only its, may give a sample."""
        self._awaited.append(sent)

    def answers_a_ping(self, sent: float) -> bool:
        """Whether a pong that says it answers the ping sent at ``sent`` does: one of this estimator's,
        sent since it was reset, not answered before. Forgets that ping (a copy of the pong is no
        second sample)."""
        if sent not in self._awaited:
            return False
        self._awaited.remove(sent)
        return True

    def add(self, sample: ClockSample) -> None:
        """Record one exchange; the oldest sample falls out once the window is full."""
        evicted = self._samples[0] if len(self._samples) == self._samples.maxlen else None
        self._samples.append(sample)
        best = self._best
        if best is None or sample.rtt_ms <= best.rtt_ms:
            # On equal RTTs the newer sample wins: it has had less time to drift.
            self._best = sample
        elif evicted is best:
            self._best = self._pick_best()

    @property
    def samples(self) -> int:
        """How many samples the estimate has (at most its window) since it was last reset."""
        return len(self._samples)

    @property
    def best_sample(self) -> ClockSample | None:
        """The sample the estimate comes from, or None before the first one."""
        return self._best

    @property
    def offset_ms(self) -> float | None:
        """Reference clock minus local clock, or None before the first sample."""
        return None if self._best is None else self._best.offset_ms

    @property
    def error_ms(self) -> float | None:
        """Bound on the offset's error: half the best RTT (None before the first sample)."""
        return None if self._best is None else self._best.rtt_ms / 2

    def to_reference(self, local_ms: float) -> float:
        """A local monotonic time on the reference clock."""
        if self._best is None:
            raise RuntimeError("no clock sample yet: add a ping/pong sample before converting times")
        return local_ms + self._best.offset_ms

    def reset(self) -> None:
        """Forget every sample and every ping awaited: a new leader is a new reference clock."""
        self._samples.clear()
        self._best = None
        self._awaited.clear()

    def _pick_best(self) -> ClockSample:
        best = self._samples[0]
        for sample in self._samples:
            if sample.rtt_ms <= best.rtt_ms:
                best = sample
        return best
