"""Input to screen on loopback: a key press → our pass shown on our own table screen, through the log.

This process hosts a real table on 127.0.0.1 (zmq transport, Raft) with bot peers as separate processes,
exactly as ``kdm play --bots N`` does, and runs the real ``TableApp`` with pipe input and a VT100 output
drawn into /dev/null (80×24). On each of our turns it presses ``1``, waits a human-like moment, presses
Enter, and measures from that press to the end of the first redraw whose screen no longer holds the
passed card: the pass was read, proposed, committed, applied and painted. Prints one JSON object:

    {"figure": "input_to_screen", "presses": 30, "p50": ..., "p99": ..., "max": ..., "read_p50": ...,
     "commit_p50": ..., "commit_p99": ..., "draw_p50": ..., "draw_p99": ..., "unit": "ms"}

The parts: ``read`` is the press to the key handler, ``commit`` the handler to our pass applied (propose,
Raft on loopback, apply), ``draw`` applied to painted.

    python benchmarks/input_latency.py [--presses 30] [--bots 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import tempfile
from pathlib import Path

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from kdm import session
from kdm.events import Event
from kdm.net.clock import monotonic_ms
from kdm.notices import Applied, Notice, Rejected
from kdm.peer import Peer
from kdm.plugins.kilo.events import Pass
from kdm.session import SessionConfig, TableSession
from kdm.tui.app import TableApp
from kdm.tui.state import TableScreen

# Outside a namespace the benchmarks keep to loopback, like the tests (tests/conftest.py): nothing they
# start multicasts or listens on the machine's own interfaces.
os.environ.setdefault("KDM_INTERFACE", "127.0.0.1")


def percentile(values: list[float], percent: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(percent / 100 * len(ordered)) - 1))
    return round(ordered[index], 3)


class TimedScreen(TableScreen):
    """The table screen, noting when our pass is sent from the keys and when it is applied."""

    def __init__(self, peer: Peer) -> None:
        super().__init__(peer)
        self.read_ms: float | None = None
        self.applied_ms: float | None = None
        self.refused = False

    def act(self, event: Event) -> bool:
        """Every action the screen sends goes through here: a pass is read (the base game's screen,
        ``KiloPlay.pass_chosen``, sends it at once)."""
        if isinstance(event, Pass):
            self.read_ms = monotonic_ms()
        return super().act(event)

    def tell(self, key: str, **fields: object) -> bool:
        """The key did nothing (the checkpoint holds the pass for people, the clock settles): no figure
        for this press, as for a refused one (it waited for ever before)."""
        self.refused = True
        return super().tell(key, **fields)

    def on_notice(self, notice: Notice) -> None:
        effects = notice.effects if isinstance(notice, Applied) else ()
        if any(e["kind"] == "passed" and e["seat"] == self.peer.seat for e in effects):
            self.applied_ms = monotonic_ms()
        elif isinstance(notice, Rejected) and notice.node == self.peer.me.identity:
            self.refused = True  # a bot's slap opened a window just before: no pass, no figure
        super().on_notice(notice)


class Bench:
    def __init__(self, presses: int, seed: int) -> None:
        self.presses = presses
        self.rng = random.Random(seed)
        self.total: list[float] = []
        self.read: list[float] = []
        self.commit: list[float] = []
        self.draw: list[float] = []
        self.wait: list[float] = []
        self.refused = 0

    async def ui(self, table: TableSession) -> None:
        peer = table.peer
        loop = asyncio.get_running_loop()
        screen = TimedScreen(peer)
        with create_pipe_input() as keys, open(os.devnull, "w", encoding="utf-8") as sink:
            output = Vt100_Output(sink, lambda: Size(rows=24, columns=80), term="xterm-256color")
            app = TableApp(peer, input=keys, output=output, screen=screen)
            our_turn, repainted, measured = asyncio.Event(), asyncio.Event(), asyncio.Event()
            pending: dict[str, float] = {}

            def render_starts(_application: object) -> None:
                if pending and screen.applied_ms is not None and "render" not in pending:
                    pending["render"] = monotonic_ms()

            def painted() -> None:
                repainted.set()
                view = peer.view()
                if view is None:
                    return
                if pending and screen.refused:
                    self.refused += 1
                    pending.clear()
                    measured.set()
                elif pending and pending["token"] not in {token for token, _face in view.hand}:
                    now = monotonic_ms()
                    assert screen.read_ms is not None and screen.applied_ms is not None
                    self.total.append(now - pending["pressed"])
                    self.read.append(screen.read_ms - pending["pressed"])
                    self.commit.append(screen.applied_ms - screen.read_ms)
                    self.draw.append(now - screen.applied_ms)
                    self.wait.append(pending["render"] - screen.applied_ms)
                    pending.clear()
                    measured.set()
                elif view.phase == "passing" and view.turn == view.seat and not pending:
                    our_turn.set()

            app.painted_listeners.append(painted)
            app.application.before_render += render_starts
            running = loop.create_task(app.run())
            for _ in range(self.presses):
                our_turn.clear()
                await asyncio.wait_for(our_turn.wait(), 120)
                repainted.clear()
                keys.send_text("1")  # a person chooses a card, sees it chosen, then passes it
                await asyncio.wait_for(repainted.wait(), 30)
                await asyncio.sleep(self.rng.uniform(0.05, 0.15))
                view = peer.view()
                assert view is not None and view.turn == view.seat
                measured.clear()
                screen.read_ms = screen.applied_ms = None
                screen.refused = False
                pending.update(token=view.hand[0][0], pressed=monotonic_ms())
                keys.send_text("\r")
                await asyncio.wait_for(measured.wait(), 30)
            app.application.exit()
            await running


async def measure(presses: int, bots: int, seed: int) -> dict[str, object]:
    bench = Bench(presses, seed)
    with tempfile.TemporaryDirectory(prefix="kdm-input-latency-") as scratch:
        config = SessionConfig(interface="127.0.0.1", advertise=False, name="bench", data_dir=Path(scratch))
        await session.host(config, "bench", bots + 1, {"rounds": 1000}, (), bots=bots, ui=bench.ui)
    return {
        "figure": "input_to_screen",
        "players": bots + 1,
        "presses": len(bench.total),
        "p50": percentile(bench.total, 50),
        "p99": percentile(bench.total, 99),
        "max": round(max(bench.total), 3),
        "read_p50": percentile(bench.read, 50),
        "commit_p50": percentile(bench.commit, 50),
        "commit_p99": percentile(bench.commit, 99),
        "draw_p50": percentile(bench.draw, 50),
        "draw_p99": percentile(bench.draw, 99),
        "wait_p50": percentile(bench.wait, 50),
        "refused": bench.refused,
        "unit": "ms",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=30, help="passes to measure (default 30)")
    parser.add_argument("--bots", type=int, default=3, help="bot peers, 2 to 9 (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the human-like pauses")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(args.presses, args.bots, args.seed))), flush=True)


if __name__ == "__main__":
    main()
