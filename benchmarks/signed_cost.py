"""What signed consensus costs: commit latency and CPU per commit, this code beside the code without it.

Issue 25 asks for the cost of signed votes, election certificates, the signed hash chain and the heads
voters show each other, measured in one run against the same code without them. This script owns that
comparison; the measuring itself is ``benchmarks/consensus_latency.py`` of each tree (separate node
processes on 127.0.0.1, CurveZMQ, ``FileStorage``), run with that tree's own venv python, so each side
is exactly its own code. The two trees take turns (before, after, before, after, ...) for every size
and every kind of run, so a change in the machine's load falls on both.

Each run is one ``measure()`` of that tree's ``consensus_latency.py`` (no transport round trips), run in
a child process; the CPU of the run is ``getrusage(RUSAGE_CHILDREN)`` of this process before and after
it, which sums every node process (each is waited for by its parent). Three kinds of run per size split
the cost as issue 28 does: CPU = setup + per_commit x commits + per_second x proposing time, with
``--entries`` small and large at ``--gap-ms``, and large again at ``--slow-gap-ms``:

- the two gaps at the same count give the cost of a second of a table with little to do (heartbeats,
  ticks, heads shown): ``per_second``;
- the two counts at the same gap, less that per-second cost over the time they differ by, give the
  cost of one commit summed over all peers: ``per_commit``.

The proposing time of a run is the sum of its latencies plus its gaps (read from the measured samples).
Latency figures (p50, p99) are those of the large runs at ``--gap-ms``. Prints one JSON object per run
(``"figure": "run"``), then one per tree and size: the median over runs and the spread (min, max).
Nothing here asserts on time.

    git -C /work/main worktree add /tmp/kdm-before 85541cb --detach
    make -C /tmp/kdm-before .venv/.installed-test
    .venv/bin/python benchmarks/signed_cost.py /tmp/kdm-before . [--peers 4 10] [--runs 3]
        [--entries 40 150] [--gap-ms 20] [--slow-gap-ms 100]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

# Outside a namespace the benchmarks keep to loopback, like the tests (tests/conftest.py).
os.environ.setdefault("KDM_INTERFACE", "127.0.0.1")

# Run by each tree's python: one measure() of its own consensus_latency.py, printed as JSON, with the
# samples' sum added (the proposing time of the run, which the per-second split needs).
_ONE_RUN = """
import json, sys
sys.path.insert(0, sys.argv[1])
import consensus_latency as bench
percentiles = bench._percentiles
def with_sum(samples):
    return {**percentiles(samples), "sum_ms": round(sum(samples), 2)}
bench._percentiles = with_sum
print(json.dumps(bench.measure(int(sys.argv[2]), int(sys.argv[3]), 1, float(sys.argv[4]), True)))
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_run(tree: Path, peers: int, entries: int, gap_ms: float) -> dict[str, object]:
    python = tree / ".venv" / "bin" / "python"
    cpu_before, started = _children_cpu(), time.perf_counter()
    done = subprocess.run(
        [str(python), "-c", _ONE_RUN, str(tree / "benchmarks"), str(peers), str(entries), str(gap_ms)],
        capture_output=True, text=True, timeout=600, check=True, cwd=tree,
    )  # fmt: skip
    cpu_s, wall_s = _children_cpu() - cpu_before, time.perf_counter() - started
    figure = json.loads(done.stdout.strip().splitlines()[-1])
    proposing_s = (float(figure["sum_ms"]) + entries * gap_ms) / 1000
    return {
        "figure": "run",
        "tree": str(tree),
        "peers": peers,
        "entries": entries,
        "gap_ms": gap_ms,
        "p50_ms": figure["p50_ms"],
        "p99_ms": figure["p99_ms"],
        "cpu_s": round(cpu_s, 3),
        "wall_s": round(wall_s, 2),
        "proposing_s": round(proposing_s, 3),
    }


def split(few: dict[str, object], many: dict[str, object], slow: dict[str, object]) -> tuple[float, float]:
    """Per-commit CPU (ms, all peers) and per-second CPU (share of one core) from one round's three runs."""

    def cpu(run: dict[str, object]) -> float:
        return float(run["cpu_s"])  # type: ignore[arg-type]

    def seconds(run: dict[str, object]) -> float:
        return float(run["proposing_s"])  # type: ignore[arg-type]

    per_second = (cpu(slow) - cpu(many)) / (seconds(slow) - seconds(many))
    commits = int(many["entries"]) - int(few["entries"])  # type: ignore[call-overload]
    per_commit = (cpu(many) - cpu(few) - per_second * (seconds(many) - seconds(few))) / commits
    return per_commit * 1000, per_second


def _summary(values: list[float]) -> dict[str, float]:
    return {
        "median": round(statistics.median(values), 3),
        "min": round(min(values), 3),
        "max": round(max(values), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the tree without signed consensus (with its .venv)")
    parser.add_argument("after", type=Path, help="the tree with it (with its .venv)")
    parser.add_argument("--peers", type=int, nargs="+", default=[4, 10])
    parser.add_argument("--runs", type=int, default=3, help="rounds; each runs every kind on both trees")
    parser.add_argument("--entries", type=int, nargs=2, default=[40, 150], metavar=("FEW", "MANY"))
    parser.add_argument("--gap-ms", type=float, default=20.0, help="pause after each commit")
    parser.add_argument("--slow-gap-ms", type=float, default=100.0, help="the per-second run's pause")
    args = parser.parse_args()
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    few, many = args.entries
    kinds = {"few": (few, args.gap_ms), "many": (many, args.gap_ms), "slow": (many, args.slow_gap_ms)}
    runs: dict[tuple[str, int], list[dict[str, dict[str, object]]]] = {}
    for _ in range(args.runs):
        for peers in args.peers:
            round_of = {name: {} for name in trees}  # type: dict[str, dict[str, dict[str, object]]]
            for kind, (entries, gap_ms) in kinds.items():
                for name, tree in trees.items():  # alternately, so the machine's mood falls on both
                    run = one_run(tree, peers, entries, gap_ms)
                    print(json.dumps({**run, "kind": kind, "side": name}), flush=True)
                    round_of[name][kind] = run
            for name in trees:
                runs.setdefault((name, peers), []).append(round_of[name])
    for (name, peers), rounds in runs.items():
        splits = [split(one["few"], one["many"], one["slow"]) for one in rounds]
        summary = {
            "figure": "signed_cost",
            "side": name,
            "tree": str(trees[name]),
            "peers": peers,
            "runs": len(rounds),
            "entries": many,
            "gap_ms": args.gap_ms,
            "p50_ms": _summary([float(one["many"]["p50_ms"]) for one in rounds]),  # type: ignore[arg-type]
            "p99_ms": _summary([float(one["many"]["p99_ms"]) for one in rounds]),  # type: ignore[arg-type]
            "cpu_per_commit_ms": _summary([per_commit for per_commit, _ in splits]),
            "cpu_per_second_cores": _summary([per_second for _, per_second in splits]),
            "cpu_per_commit_whole_run_ms": _summary(
                [float(one["many"]["cpu_s"]) * 1000 / many for one in rounds]  # type: ignore[arg-type]
            ),
        }
        print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    sys.exit(main())
