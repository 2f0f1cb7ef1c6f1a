"""Loops that outlive their steps: what every periodic task of a peer runs on (ticks, pings, hellos,
retries, watching seats, keeping membership and the table's advertisement).

A step that raises is logged with what the loop does, and the next step runs on time: a bug or a bad
input from the network must never end a loop silently (issue 12), which would leave a peer deaf or a
table without its timers.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger("kdm.net")


async def every(
    period_s: float | Callable[[], float],
    step: Callable[[], Awaitable[None] | None],
    what: str,
    first_now: bool = False,
) -> None:
    """Run ``step`` (a function, or a coroutine function) every ``period_s`` until cancelled (a function:
    asked again before each wait); the first at once when ``first_now``, else after one period. A step
    that raises is logged, and the loop goes on."""
    period = period_s if callable(period_s) else lambda: period_s
    if not first_now:
        await asyncio.sleep(period())
    while True:
        try:
            result = step()
            if inspect.isawaitable(result):
                await result
        except asyncio.CancelledError:
            raise
        except Exception:  # whatever one step does, the next one runs
            log.exception("%s failed; going on", what)
        await asyncio.sleep(period())
