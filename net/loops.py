"""Loops that outlive their steps: what every periodic task of a peer runs on (ticks, pings, hellos,
retries, watching seats, keeping membership and the table's advertisement), each asleep until its next
step is due or it is nudged.

A step that raises is logged with what the loop does, and the next step runs on time: a bug or a bad
input from the network must never end a loop silently (issue 12), which would leave a peer deaf or a
table without its timers.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import math
from collections.abc import Awaitable, Callable

log = logging.getLogger("kdm.net")

#: How long a loop whose period function raised waits before its next step.
PERIOD_FAILED_S = 1.0


async def every(
    period_s: float | Callable[[], float],
    step: Callable[[], Awaitable[None] | None],
    what: str,
    first_now: bool = False,
    nudge: asyncio.Event | None = None,
) -> None:
    """Run ``step`` (a function, or a coroutine function) every ``period_s`` until cancelled (a function:
    asked again before each wait); the first at once when ``first_now``, else after one period. A step
    that raises is logged, and the loop goes on; so does a period function (the loop then waits
    ``PERIOD_FAILED_S``).

    With ``nudge``, the loop also runs as soon as it is set (it clears it), even if the nudge came while
    the step ran, and a period may be ``math.inf``: nothing is due until the nudge. A loop that waits for
    a deadline it computes sleeps until then, not in small steps, and whoever moves the deadline nudges."""
    given = period_s if callable(period_s) else lambda: period_s

    def period() -> float:
        try:
            return given()
        except Exception:  # a bug in when to run must not end the loop either
            log.exception("%s: when to run next failed; going on in %s s", what, PERIOD_FAILED_S)
            return PERIOD_FAILED_S

    pause = Pause(nudge)
    try:
        if not first_now:
            await pause(period())
        while True:
            try:
                result = step()
                if inspect.isawaitable(result):
                    await result
            except asyncio.CancelledError:
                raise
            except Exception:  # whatever one step does, the next one runs
                log.exception("%s failed; going on", what)
            await pause(period())
    finally:
        pause.close()


class Pause:
    """A loop's sleep, ended early by its ``nudge``: one task waits on the nudge across the loop's
    sleeps (``asyncio.wait_for`` made, and cancelled, one at each: five asyncio handles where a sleep
    takes two, on loops that mostly time out)."""

    def __init__(self, nudge: asyncio.Event | None) -> None:
        self.nudge = nudge
        self.nudged: asyncio.Task[object] | None = None

    async def __call__(self, seconds: float) -> None:
        """Sleep ``seconds``, or until the nudge is set (at once if it already is)."""
        nudge = self.nudge
        if nudge is None:
            await asyncio.sleep(seconds)
            return
        if nudge.is_set():
            await asyncio.sleep(0)  # a step that nudges its own loop must not keep the event loop to itself
        else:
            if self.nudged is None or self.nudged.done():
                self.nudged = asyncio.get_running_loop().create_task(nudge.wait())
            await asyncio.wait((self.nudged,), timeout=None if math.isinf(seconds) else max(0.0, seconds))
        nudge.clear()

    def close(self) -> None:
        if self.nudged is not None:
            self.nudged.cancel()
