"""``kdm selfplay``: bot peers as separate processes on 127.0.0.1 play a game; do they agree?

One process hosts, the others join it by address; nothing is advertised and no traffic leaves
loopback. Each peer writes a report (digest, commit latencies, windows); the summary gathers them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kdm.errors import UsageError
from kdm.manager import Rules
from kdm.session import percentile

LOOPBACK = "127.0.0.1"


def selfplay(
    peers: int,
    rounds: int,
    seed: int,
    timeout_s: float = 300.0,
    variants: Sequence[str] = (),
    options: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Play one game between ``peers`` bot processes and summarise it.

    ``rounds`` applies to a game of rounds; a game mode that plays to a target (Kem's) takes its
    ``options`` instead. The table's rules check the player count and options before any process starts.
    """
    if not 3 <= peers <= 10:
        raise UsageError("peers must be 3 to 10")
    if rounds < 1:
        raise UsageError("rounds must be at least 1")
    rules = Rules.for_table(variants)
    given: dict[str, Any] = dict(options or {})
    if rules.declares("rounds"):
        given.setdefault("rounds", str(rounds))
    rules.resolve(peers, dict(given))  # one clear line for a bad count or option, before any process
    table_flags = [flag for name, value in given.items() for flag in ("--option", f"{name}={value}")]
    table_flags += [flag for name in variants for flag in ("--variant", name)]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kdm-selfplay-") as scratch:
        root = Path(scratch)
        common = ["--interface", LOOPBACK, "--headless"]

        def data(index: int) -> list[str]:
            # A data directory each, as on a laptop each: a player's key is kept there, and two peers
            # of one key would be one player taking their own seat back from the other.
            return ["--data-dir", str(root / f"data{index}")]

        argv = ["host", "--players", str(peers), *table_flags, "--as-bot", "greedy",
                "--no-advertise", "--name", "selfplay", "--seed", str(seed), *common, *data(0)]  # fmt: skip
        host = _spawn([*argv, "--report", str(root / "peer0.json")], stdout=subprocess.PIPE)
        children = [host]
        try:
            contact = _wait_for_address(host, timeout_s)
            for index in range(1, peers):
                argv = ["join", contact, "--as-bot", "greedy", "--seed", str(seed * 100 + index),
                        "--report", str(root / f"peer{index}.json"), *common, *data(index)]  # fmt: skip
                children.append(_spawn(argv, stdout=subprocess.DEVNULL))
            deadline = time.monotonic() + timeout_s
            for child in children:
                child.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise UsageError(f"selfplay did not finish within {timeout_s:.0f} s") from None
        finally:
            for child in children:
                if child.poll() is None:
                    child.kill()
                    child.wait()
        reports = [
            json.loads((root / f"peer{i}.json").read_text())
            for i in range(peers)
            if (root / f"peer{i}.json").exists()
        ]
    if len(reports) != peers:
        raise UsageError(f"only {len(reports)} of {peers} peers finished; run with KDM_LOG=info to see why")
    latencies = sorted(ms for report in reports for ms in report["latencies_ms"])
    return {
        "peers": peers,
        "rounds": rounds,
        "digests": [report["digest"] for report in reports],
        "commit_latency_ms": {"p50": percentile(latencies, 50), "p99": percentile(latencies, 99)},
        "slap_windows": reports[0]["slap_windows"],
        "seconds": round(time.perf_counter() - started, 3),
    }


def _spawn(argv: list[str], stdout: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "kdm", *argv], stdin=subprocess.DEVNULL, stdout=stdout)


def _wait_for_address(host: subprocess.Popen[bytes], timeout_s: float) -> str:
    """The host prints ``listening on HOST:PORT`` (then maybe its other addresses) first; read it."""
    assert host.stdout is not None
    line = host.stdout.readline().decode()
    if not line.startswith("listening on "):
        raise UsageError(f"the host did not start: {line.strip() or 'no output'}")
    return line.split()[2]
