"""How many signatures a commit makes and checks, and the CPU they cost at the least (issue 28, item 1).

The table is ``benchmarks/consensus_latency.py``'s (separate node processes on 127.0.0.1, CurveZMQ, logs
on disk, no game). Every node process counts the ed25519 signatures it makes and checks (PyNaCl's
``crypto_sign`` and ``crypto_sign_open``, counted by a ``sitecustomize`` put on ``PYTHONPATH`` for the
children only: kdm is not changed) and writes the counts when it exits. Two tables per size, one
proposing ``--entries`` small and one large (one follower proposes, one entry at a time, ``--gap-ms``
apart): the difference, divided by the entries they differ by, is what one commit costs, summed over
every peer, without the joins and the election. A sign and a check are timed here (the best of five
runs of 2,000), and their product with the counts is the least CPU a commit can take with these
signatures: a floor under the work per commit, whatever the rest costs. Prints one JSON object per size.

    python benchmarks/signatures.py [--peers 4 10] [--entries 40 140] [--gap-ms 20]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import timeit
from pathlib import Path

import consensus_latency  # this folder's: the table measured is that script's
import nacl.signing

# Outside a namespace the benchmarks keep to loopback, like the tests (tests/conftest.py).
os.environ.setdefault("KDM_INTERFACE", "127.0.0.1")

# Loaded first by every child python (``PYTHONPATH``): counts PyNaCl's signatures, written at exit.
_COUNTER = """
import atexit, collections, json, os
import nacl.bindings
counts = collections.Counter()
def counted(name, function):
    def call(*args):
        counts[name] += 1
        return function(*args)
    return call
nacl.bindings.crypto_sign = counted("signed", nacl.bindings.crypto_sign)
nacl.bindings.crypto_sign_open = counted("checked", nacl.bindings.crypto_sign_open)
atexit.register(lambda: open(os.path.join(os.environ["KDM_SIGNATURES_TO"], f"{os.getpid()}.json"), "w")
                .write(json.dumps(counts)))
"""


def counted_run(peers: int, entries: int, gap_ms: float) -> list[dict[str, int]]:
    """Each node's counts over a table's whole life: joins, an election and ``entries`` commits."""
    with tempfile.TemporaryDirectory(prefix="kdm-signatures-") as folder:
        hook, counts = Path(folder) / "hook", Path(folder) / "counts"
        hook.mkdir()
        counts.mkdir()
        (hook / "sitecustomize.py").write_text(_COUNTER)
        saved = dict(os.environ)
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(hook), saved.get("PYTHONPATH", "")]))
        os.environ["KDM_SIGNATURES_TO"] = str(counts)
        try:
            consensus_latency.measure(peers, entries, 1, gap_ms, on_disk=True)
        finally:
            os.environ.clear()
            os.environ.update(saved)
        found = [json.loads(path.read_text()) for path in sorted(counts.glob("*.json"))]
    if len(found) != peers:
        raise RuntimeError(f"{len(found)} of {peers} nodes wrote their counts")
    return found


def best_us(statement: object) -> float:
    """The best of five runs of 2,000 calls, per call, in µs."""
    return min(timeit.repeat(statement, number=2000, repeat=5)) / 2000 * 1e6  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", type=int, nargs="+", default=[4, 10])
    parser.add_argument("--entries", type=int, nargs=2, default=[40, 140], help="the small and large runs")
    parser.add_argument("--gap-ms", type=float, default=20.0)
    args = parser.parse_args()
    key = nacl.signing.SigningKey.generate()
    payload = os.urandom(80)
    signed = key.sign(payload)
    sign_us = best_us(lambda: key.sign(payload))
    check_us = best_us(lambda: key.verify_key.verify(signed))
    small, large = args.entries
    for peers in args.peers:
        few, many = counted_run(peers, small, args.gap_ms), counted_run(peers, large, args.gap_ms)
        per_commit = {
            kind: (sum(node.get(kind, 0) for node in many) - sum(node.get(kind, 0) for node in few))
            / (large - small)
            for kind in ("signed", "checked")
        }
        busiest = max(
            (b.get("checked", 0) - a.get("checked", 0)) / (large - small)
            for a, b in zip(
                sorted(few, key=lambda node: node.get("checked", 0)),
                sorted(many, key=lambda node: node.get("checked", 0)),
                strict=True,
            )
        )
        floor_ms = (per_commit["signed"] * sign_us + per_commit["checked"] * check_us) / 1000
        print(
            json.dumps(
                {
                    "figure": "signatures_per_commit",
                    "peers": peers,
                    "signed": round(per_commit["signed"], 2),
                    "checked": round(per_commit["checked"], 2),
                    "checked_by_the_busiest": round(busiest, 2),
                    "sign_us": round(sign_us, 1),
                    "check_us": round(check_us, 1),
                    "signature_cpu_ms_per_commit": round(floor_ms, 2),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main())
