"""kdm on the namespace LAN (``tests/helpers/netns.py``): a ``Kdm`` process on a laptop, its log and
summary read live, and the checks that a table plays on. Shared by the LAN evening tests.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence

from tests.helpers.netns import LineWatcher, NamespaceLan, wait_until

DEADLINE_S = 120.0


#: Bots pass every second or so: this long without an event is a stalled table.
STALL_S = 8.0


PLAYER = ["--headless", "--as-bot", "greedy", "--json"]  # a player who lets a bot play, and wants a summary


class Kdm:
    """One kdm process on a laptop: its game log (stderr) and its JSON summary (stdout), read live."""

    def __init__(
        self,
        lan: NamespaceLan,
        laptop: int,
        *args: str,
        program: Sequence[str] = (),
        log_level: str = "",
        env: Mapping[str, str] | None = None,
    ) -> None:
        """``kdm`` with ``args`` on ``laptop`` (or ``program``, a modified client, with them), logging
        at ``log_level`` (``KDM_LOG``; the default: warnings), with ``env`` in its environment too."""
        self.laptop = laptop
        self.process = lan.run(
            laptop,
            [*(program or [sys.executable, "-m", "kdm"]), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=lan.environment(laptop, **({"KDM_LOG": log_level} if log_level else {}), **(env or {})),
        )
        assert self.process.stdout is not None and self.process.stderr is not None
        self.log = LineWatcher(self.process.stderr)
        self.out = LineWatcher(self.process.stdout)

    def says(self, predicate: Callable[[str], bool], what: str, timeout: float = DEADLINE_S) -> str:
        line = self.log.wait_for(predicate, timeout)
        assert line is not None, f"laptop{self.laptop} did not say {what} within {timeout} s"
        return line

    def summary_list(self) -> list[dict[str, object]]:
        """What ``kdm tables --json`` printed."""
        self.process.wait(DEADLINE_S)
        tables: list[dict[str, object]] = json.loads(self.out.wait_for(lambda line: True, DEADLINE_S) or "[]")
        return tables

    def summary(self) -> dict[str, object]:
        self.process.wait(DEADLINE_S * 3)
        assert self.process.returncode == 0, "\n".join(self.log.lines[-20:])
        (line,) = [line for line in self.out.lines if line.startswith("{")]
        result: dict[str, object] = json.loads(line)
        return result


@contextlib.contextmanager
def shown_and_stopped(processes: list[Kdm]) -> Iterator[None]:
    """Around a LAN evening: on a failure, the last lines each process in ``processes`` logged (pytest
    shows them); at the end, whichever still runs is killed."""
    try:
        yield
    except BaseException:
        for process in processes:
            print(f"--- laptop{process.laptop} ---", *process.log.lines[-40:], sep="\n")
        raise
    finally:
        for process in processes:
            if process.process.poll() is None:
                process.process.kill()
                process.process.wait(DEADLINE_S)


def leaders_said(process: Kdm) -> list[str]:
    """Each leader ``process`` said it followed, as it changed (``leader: NODE`` or ``no leader``)."""
    return [line for line in process.log.lines if line.startswith("leader: ") or line == "no leader"]


def events_go_on(host: Kdm, seconds: float) -> None:
    """The table keeps committing events for ``seconds``, a new one every few seconds at most: a player
    away stalls nothing."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        seen = len(host.log.lines)
        fresh = lambda seen=seen: any(is_event(line) for line in host.log.lines[seen:])  # noqa: E731
        assert wait_until(fresh, STALL_S), f"no event for {STALL_S} s: " + " | ".join(host.log.lines[-5:])


def is_event(line: str) -> bool:
    """Whether ``line`` of a game log tells an event (not a logger's line, ``KDM_LOG``)."""
    return not line.startswith("kdm.") and any(
        word in line for word in ("passes to", "draws", "SLAP", "feints", "holds")
    )
