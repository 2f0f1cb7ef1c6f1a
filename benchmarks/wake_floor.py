"""What waking a sleeping process costs on this machine, with no kdm in it: the floor under a peer at rest.

A table at rest does almost nothing but wake: a heartbeat, its answer, a timer. What each wake-up
costs besides kdm's own Python is the machine's (the kernel, the hypervisor, caches gone cold while the
process slept), and sets how many wake-ups a second fit in issue 'Light on the CPU''s 0.2 % of a core.
Two figures, each over ``--seconds`` at one wake-up every ``--period-ms`` (a heartbeat's, 400 ms):

- ``timer``: an asyncio loop that sleeps and wakes, doing nothing; the CPU of its thread per wake-up.
- ``zmq_round``: a message and its answer between two processes over zmq on 127.0.0.1, as a heartbeat
  and its answer go (plain zmq, no CurveZMQ: the floor); the CPU of both processes, every thread
  (zmq's I/O threads included), per round.

CPU is read to the nanosecond: the thread's own clock, and each process's CPU clock (``cpu.py``'s). Prints one
JSON line per figure and run.

    python benchmarks/wake_floor.py [--seconds 20] [--period-ms 400] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

import zmq
from cpu import cpu_s  # this folder's: a process's CPU clock, every thread of it

ECHO = """
import sys, zmq
context = zmq.Context()
socket = context.socket(zmq.ROUTER)
port = socket.bind_to_random_port("tcp://127.0.0.1")
print(port, flush=True)
while True:
    frames = socket.recv_multipart()
    if frames[1] == b"stop":
        break
    socket.send_multipart(frames)
"""


async def _timer(seconds: float, period_s: float) -> dict[str, float]:
    wakes, before, ends = 0, time.thread_time_ns(), time.monotonic() + seconds
    while time.monotonic() < ends:
        await asyncio.sleep(period_s)
        wakes += 1
    return {"wakes": wakes, "cpu_us_per_wake": (time.thread_time_ns() - before) / wakes / 1000}


async def _zmq_round(seconds: float, period_s: float) -> dict[str, float]:
    echo = subprocess.Popen([sys.executable, "-c", ECHO], stdout=subprocess.PIPE, text=True)
    context = zmq.Context()
    socket = context.socket(zmq.DEALER)
    try:
        assert echo.stdout is not None
        socket.connect(f"tcp://127.0.0.1:{int(echo.stdout.readline())}")
        loop = asyncio.get_running_loop()
        answered = asyncio.Event()

        def readable() -> None:
            while socket.getsockopt(zmq.EVENTS) & zmq.POLLIN:
                socket.recv(zmq.NOBLOCK)
                answered.set()

        loop.add_reader(socket.getsockopt(zmq.FD), readable)
        socket.send(b"hello")  # connected, and both sides' threads started, before counting
        readable()
        await answered.wait()
        rounds, ends = 0, time.monotonic() + seconds
        before = cpu_s(os.getpid()) + cpu_s(echo.pid)
        while time.monotonic() < ends:
            await asyncio.sleep(period_s)
            answered.clear()
            socket.send(b"beat")
            readable()  # (zmq's descriptor is edge-triggered: read what came before waiting)
            await answered.wait()
            rounds += 1
        used = cpu_s(os.getpid()) + cpu_s(echo.pid) - before
        loop.remove_reader(socket.getsockopt(zmq.FD))
        socket.send(b"stop")
        echo.wait(10)
        # Both processes' CPU, less this loop's sleeps (each a timer wake-up, counted by ``timer``).
        return {"rounds": rounds, "cpu_us_per_round_both_processes": used / rounds * 1e6}
    finally:
        socket.close(linger=0)
        context.term()
        if echo.poll() is None:
            echo.kill()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--period-ms", type=float, default=400.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    timers: list[float] = []
    rounds: list[float] = []
    for run in range(args.runs):
        timer = asyncio.run(_timer(args.seconds, args.period_ms / 1000))
        timers.append(timer["cpu_us_per_wake"])
        print(json.dumps({"figure": "timer", "run": run, **_rounded(timer)}), flush=True)
        zmq_round = asyncio.run(_zmq_round(args.seconds, args.period_ms / 1000))
        rounds.append(zmq_round["cpu_us_per_round_both_processes"])
        print(json.dumps({"figure": "zmq_round", "run": run, **_rounded(zmq_round)}), flush=True)
    print(
        json.dumps(
            {
                "figure": "summary",
                "timer_cpu_us_per_wake_median": round(statistics.median(timers), 1),
                "zmq_round_cpu_us_median": round(statistics.median(rounds), 1),
                "period_ms": args.period_ms,
                "cpus": os.cpu_count(),
            }
        )
    )
    return 0


def _rounded(figures: dict[str, float]) -> dict[str, float]:
    return {key: round(value, 1) for key, value in figures.items()}


if __name__ == "__main__":
    sys.exit(main())
