"""Garbage at a live table: three bot peers (real ``kdm`` processes on 127.0.0.1) play a game while this
process sends them malformed input, and the game must end with equal digests.

What is sent, to every peer's port (found from ``/proc``), only on 127.0.0.1:
- zmq messages from CURVE clients with keys of their own, under ids with their key, another's or
  none, holding well-formed envelopes with a field mutated, byte-mutated ones and random bytes;
- zmq connections without CURVE (their handshake fails);
- raw TCP bytes (a zmq greeting cut short or mutated, or noise);
- UDP datagrams to the introducer (``kdm.net.introducer``) at the same port number.

Prints one JSON object: inputs sent (by kind), seconds, whether every peer finished, whether the
digests are equal, and each peer's open fds and RSS before, at most during, and after the fuzz (from
``/proc``). The joiners' keys are not known here: CURVE clients reach the host past the handshake, and
the joiners with every other kind of input.

    python benchmarks/fuzz.py [--inputs 20000] [--rate 2000] [--rounds 2] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import zmq

from kdm.net.keys import new_keys, public_key_of

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.test_fuzz import envelope_bytes, mutate_bytes, random_id

LOOPBACK = "127.0.0.1"
os.environ.setdefault("KDM_INTERFACE", LOOPBACK)


def spawn(argv: list[str], stdout: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "kdm", *argv],
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.DEVNULL,
    )


def listening_ports(pid: int) -> list[int]:
    """The TCP ports process ``pid`` listens on at 127.0.0.1 (its sockets' inodes in /proc/net/tcp)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = []
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, state, inode = fields[1], fields[3], fields[9]
        if state == "0A" and inode in inodes and local.startswith("0100007F:"):
            ports.append(int(local.split(":")[1], 16))
    return ports


def footprint(pid: int) -> dict[str, int] | None:
    try:
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    rss = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
    return {"fds": fds, "rss_kib": rss}


class Fuzzer:
    """Sends one malformed input at a time to one of the peers' ports."""

    def __init__(self, targets: list[tuple[int, str]], seed: int) -> None:
        self.rng = random.Random(seed)
        self.context = zmq.Context()
        self.targets = targets  # (port, the node id listening there)
        self.clients = []
        for port, node_id in targets:
            server_key = public_key_of(node_id)
            for _ in range(3):
                keys = new_keys()
                client = self.context.socket(zmq.DEALER)
                client.setsockopt(zmq.LINGER, 0)
                client.setsockopt(zmq.SNDHWM, 100_000)
                client.setsockopt(zmq.CURVE_SERVERKEY, server_key)
                client.setsockopt(zmq.CURVE_PUBLICKEY, keys.curve.public)
                client.setsockopt(zmq.CURVE_SECRETKEY, keys.curve.secret)
                client.connect(f"tcp://{LOOPBACK}:{port}")
                self.clients.append((client, keys.token, node_id))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sent = {"curve": 0, "plain_zmq": 0, "raw_tcp": 0, "udp": 0}

    def send_one(self) -> None:
        rng = self.rng
        pick = rng.random()
        port, _node_id = rng.choice(self.targets)
        if pick < 0.02:
            plain = self.context.socket(zmq.DEALER)
            plain.setsockopt(zmq.LINGER, 0)
            plain.connect(f"tcp://{LOOPBACK}:{port}")
            try:  # queued until a handshake that never completes (zmq.Again: not even queued)
                plain.send_multipart([b"127.0.0.1:1~x", rng.randbytes(40)], zmq.NOBLOCK)
            except zmq.Again:
                pass
            finally:
                plain.close(linger=0)
            self.sent["plain_zmq"] += 1
        elif pick < 0.04:
            with socket.create_connection((LOOPBACK, port), timeout=1.0) as raw:
                greeting = b"\xff" + bytes(8) + b"\x7f\x03\x00CURVE" + bytes(15)
                raw.sendall(mutate_bytes(rng, greeting) if rng.random() < 0.5 else rng.randbytes(64))
            self.sent["raw_tcp"] += 1
        elif pick < 0.14:
            question = b"kdm: which node are you?".ljust(300, b"\0")
            datagram = (
                mutate_bytes(rng, question) if rng.random() < 0.7 else rng.randbytes(rng.randrange(400))
            )
            self.udp.sendto(datagram, (LOOPBACK, port))
            self.sent["udp"] += 1
        else:
            client, token, node_id = rng.choice(self.clients)
            name = rng.choice([f"127.0.0.1:{rng.randrange(1, 65536)}", "garbage"])
            sender = f"{name}~{token}" if rng.random() < 0.9 else random_id(rng)
            data, _raw = envelope_bytes(rng, sender, node_id, rng.randrange(1, 5), rng.randrange(0, 300))
            try:
                client.send_multipart([sender.encode(), data], zmq.NOBLOCK)
            except zmq.Again:
                return
            self.sent["curve"] += 1

    def close(self) -> None:
        for client, _token, _node in self.clients:
            client.close(linger=0)
        self.udp.close()
        self.context.destroy(linger=0)


def largest(seen: dict[str, int] | None, now: dict[str, int] | None) -> dict[str, int] | None:
    if seen is None or now is None:
        return seen or now
    return {key: max(seen[key], now[key]) for key in seen}


def run(inputs: int, rounds: int, seed: int, timeout_s: float, rate: int) -> dict[str, Any]:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kdm-fuzz-") as scratch:
        root = Path(scratch)
        common = ["--interface", LOOPBACK, "--headless"]
        host = spawn(["host", "--players", "3", "--option", f"rounds={rounds}", "--as-bot", "greedy",
                      "--no-advertise", "--table", "fuzz", "--seed", str(seed),
                      "--data-dir", str(root / "d0"), "--report", str(root / "peer0.json"), *common],
                     subprocess.PIPE)  # fmt: skip
        peers = [host]
        fuzzer = None
        try:
            assert host.stdout is not None
            line = host.stdout.readline().decode()
            if not line.startswith("listening on "):
                raise SystemExit(f"the host did not start: {line.strip()}")
            contact = line.split()[2]
            for index in (1, 2):
                report = str(root / f"peer{index}.json")
                argv = ["join", contact, "--as-bot", "greedy", "--seed", str(seed * 100 + index),
                        "--data-dir", str(root / f"d{index}"), "--report", report]  # fmt: skip
                peers.append(spawn([*argv, *common], subprocess.DEVNULL))
            # Every peer's port, once it listens.
            targets: list[tuple[int, str]] = []
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and len(targets) < 3:
                targets = [(port, contact) for peer in peers for port in listening_ports(peer.pid)]
                time.sleep(0.1)
            before = [footprint(peer.pid) for peer in peers]
            fuzzer = Fuzzer(targets, seed)
            fuzz_started = time.perf_counter()
            most = list(before)
            while sum(fuzzer.sent.values()) < inputs and all(peer.poll() is None for peer in peers):
                for _ in range(rate // 10):  # spread over the game: ``rate`` inputs a second
                    fuzzer.send_one()
                time.sleep(0.1)
                most = [largest(old, footprint(peer.pid)) for old, peer in zip(most, peers, strict=True)]
            fuzz_seconds = time.perf_counter() - fuzz_started
            after = [footprint(peer.pid) for peer in peers]
            end = time.monotonic() + timeout_s
            for peer in peers:
                peer.wait(max(0.1, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
        finally:
            for peer in peers:
                if peer.poll() is None:
                    peer.kill()
                    peer.wait()
            if fuzzer is not None:
                fuzzer.close()
        reports = [
            json.loads((root / f"peer{i}.json").read_text())
            for i in range(3)
            if (root / f"peer{i}.json").exists()
        ]
    digests = [report.get("digest") for report in reports]
    sent = fuzzer.sent if fuzzer is not None else {}
    return {
        "figure": "fuzz_live_table",
        "inputs": sum(sent.values()),
        "inputs_by_kind": sent,
        "ports_fuzzed": len(targets),
        "fuzz_seconds": round(fuzz_seconds, 3),
        "seconds": round(time.perf_counter() - started, 3),
        "finished": len(reports) == 3,
        "digests_equal": len(reports) == 3 and len(set(digests)) == 1,
        "digests": digests,
        "peers_before": before,
        "peers_after": after,
        "peers_most": most,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--rate", type=int, default=2000, help="inputs a second")
    options = parser.parse_args()
    print(json.dumps(run(options.inputs, options.rounds, options.seed, options.timeout, options.rate)))


if __name__ == "__main__":
    main()
