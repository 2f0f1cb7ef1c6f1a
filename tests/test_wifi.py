"""The userspace Wi-Fi (`tests/helpers/wifi.py`) against its specification.

First the medium alone, on a clock of the test's own (no I/O, no time): losses per profile, order on each
pair, stalls, multicast filtered. Then the real thing on a namespace LAN (root, as CI runs it): round trips
between laptops on ``wifi`` are a home Wi-Fi's (median, p95, p99 and loss as measured between two laptops:
these figures are the emulator's specification, with tolerances that hold with another test run on both
cores), ``perfect`` adds nothing a game would notice, ``bad`` loses a fifth of multicast, ``no_multicast``
carries none but ARP and unicast still work, a Wi-Fi LAN leaves nothing behind, a sniffer reads the air,
and a laptop cut off hears nothing until it is restored.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import pytest

from tests.helpers.netns import (
    LineWatcher,
    NamespaceLan,
    crashed_run,
    namespaces,
    require_netns,
    running,
    wait_until,
)  # fmt: skip
from tests.helpers.wifi import PROFILES, Delay, Medium

ECHO = str(Path(__file__).with_name("helpers") / "echo.py")
DEADLINE_S = 60.0
PORT = 7000
GROUP = "239.255.70.1"

# The home Wi-Fi the `wifi` profile stands for, round trips between two laptops (the contract).
WIFI_MEDIAN_MS = 4.0
WIFI_P95_BELOW_MS = 8.0
WIFI_P99_MS = 50.0
WIFI_LOSS = 0.0012


def mac(i: int) -> bytes:
    return bytes([0x02, 0, 0, 0, 0, i])


def frame(destination: bytes, source: bytes, payload: int) -> bytes:
    return destination + source + b"\x08\x00" + payload.to_bytes(4, "big")


MULTICAST_MAC = bytes.fromhex("01005e7f4601")
IPV6_MULTICAST_MAC = bytes.fromhex("333300000001")
BROADCAST_MAC = b"\xff" * 6


def medium_after_learning(profile: str, seed: int = 1, no_multicast: bool = False) -> Medium:
    """A medium of two laptops that has learned both their addresses."""
    medium = Medium(2, PROFILES[profile], seed=seed, no_multicast=no_multicast)
    medium.receive(0, frame(BROADCAST_MAC, mac(0), 0), 0.0)
    medium.receive(1, frame(BROADCAST_MAC, mac(1), 0), 0.0)
    medium.deliveries(1e9)
    medium.counters.clear()
    return medium


# -- the medium alone -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("profile", "unicast", "group"), [("perfect", 0.0, 0.0), ("wifi", 0.0006, 0.02), ("bad", 0.01, 0.20)]
)
def test_each_profile_loses_its_share_of_unicast_and_of_group_frames(
    profile: str, unicast: float, group: float
) -> None:
    frames = 100_000
    medium = medium_after_learning(profile)
    for i in range(frames):
        medium.receive(0, frame(mac(1), mac(0), i), i * 1e-4)
        medium.receive(0, frame(MULTICAST_MAC if i % 2 else BROADCAST_MAC, mac(0), i), i * 1e-4)
    counted = medium.counters
    assert counted["sent_unicast"] + counted["lost_unicast"] == frames
    # Five standard deviations of a binomial count, and never a loss where the profile has none.
    for kind, expected in (("unicast", unicast), ("group", group)):
        margin = 5 * (frames * expected * (1 - expected)) ** 0.5
        assert abs(counted[f"lost_{kind}"] - frames * expected) <= margin, (kind, counted)


def test_a_frame_held_back_holds_back_those_behind_it_on_its_pair() -> None:
    medium = medium_after_learning("bad", seed=3)
    sent_at: dict[tuple[int, int], list[float]] = defaultdict(list)
    arrived: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for step in range(20_000):  # 20 s of a frame each way every millisecond
        now = step / 1000
        for source in (0, 1):
            medium.receive(source, frame(mac(1 - source), mac(source), step), now)
            sent_at[(source, 1 - source)].append(now)
        for target, carried in medium.deliveries(now):
            arrived[target].append((int.from_bytes(carried[14:18], "big"), now))
    for target, frames in arrived.items():
        numbers = [number for number, _ in frames]
        assert numbers == sorted(numbers), f"frames to laptop {target} out of order"
    # The tail is there (bad's retransmissions take 60-375 ms) and holds the frames behind it.
    longest = max(at - number / 1000 for number, at in arrived[1])
    assert 0.06 <= longest <= 0.375 + 0.25


def test_a_stall_holds_every_frame_on_the_medium_until_it_ends() -> None:
    # bad's stalls alone: no delay and no loss besides, so that every gap is a stall.
    stalls_only = replace(PROFILES["bad"], unicast=Delay(), group=Delay(), unicast_loss=0.0, group_loss=0.0)
    medium = Medium(3, stalls_only, seed=5)
    arrivals: list[float] = []
    for step in range(12_000):
        now = step / 1000
        medium.receive(step % 3, frame(BROADCAST_MAC, mac(step % 3), step), now)
        arrivals += [now for _ in medium.deliveries(now)]
    gaps = [
        (earlier, later - earlier)
        for earlier, later in itertools.pairwise(arrivals)
        if later - earlier > 0.01
    ]
    assert [round(start) for start, _ in gaps] == [5, 10], gaps  # one every 5 s
    assert all(0.06 <= length <= 0.25 for _, length in gaps), gaps
    assert len(arrivals) == 12_000 * 2  # each frame to both others, held but not lost


def test_no_multicast_drops_multicast_but_carries_broadcast_and_unicast() -> None:
    medium = medium_after_learning("perfect", no_multicast=True)
    for i, destination in enumerate([MULTICAST_MAC, IPV6_MULTICAST_MAC, BROADCAST_MAC, mac(1)]):
        medium.receive(0, frame(destination, mac(0), i), 1.0)
    carried = [payload[:6] for _, payload in medium.deliveries(1.0)]
    assert carried == [BROADCAST_MAC, mac(1)]
    assert medium.counters["dropped_multicast"] == 2


def test_unicast_goes_to_the_laptop_that_sent_from_its_address_and_floods_until_then() -> None:
    medium = Medium(3, PROFILES["perfect"])
    medium.receive(0, frame(mac(2), mac(0), 1), 0.0)
    assert [target for target, _ in medium.deliveries(0.0)] == [1, 2]  # laptop 2 not heard from yet
    medium.receive(2, frame(mac(0), mac(2), 2), 0.0)
    medium.receive(0, frame(mac(2), mac(0), 3), 0.0)
    assert [target for target, _ in medium.deliveries(0.0)] == [0, 2]


def test_a_laptop_cut_off_gets_nothing_not_even_what_was_in_flight() -> None:
    medium = medium_after_learning("wifi")
    medium.receive(0, frame(mac(1), mac(0), 1), 0.0)
    medium.cut(1)
    medium.receive(0, frame(mac(1), mac(0), 2), 0.0)
    medium.receive(1, frame(mac(0), mac(1), 3), 0.0)
    assert medium.deliveries(10.0) == []
    medium.restore(1)
    medium.receive(0, frame(mac(1), mac(0), 4), 10.0)
    assert [payload[14:18] for _, payload in medium.deliveries(20.0)] == [(4).to_bytes(4, "big")]


def test_a_laptop_held_hears_nothing_sent_meanwhile_until_the_hold_ends_then_all_in_order() -> None:
    """``hold``: laptop 1 deaf from 1.0 s to 1.5 s. What is sent to it meanwhile arrives at 1.5 s, in
    order; what it sends goes at once, and what was sent to it after the hold is not held."""
    medium = Medium(3, PROFILES["perfect"])
    for laptop in range(3):
        medium.receive(laptop, frame(BROADCAST_MAC, mac(laptop), 0), 0.0)
    medium.deliveries(0.0)
    medium.hold(1, 1.5)
    for i in range(5):
        medium.receive(0, frame(mac(1), mac(0), i), 1.0 + i / 10)
    medium.receive(1, frame(mac(2), mac(1), 9), 1.2)
    assert [(target, payload[14:18]) for target, payload in medium.deliveries(1.2)] == [
        (2, (9).to_bytes(4, "big"))
    ]
    assert medium.deliveries(1.499) == []
    held = medium.deliveries(1.5)
    assert [payload[17] for _, payload in held] == [0, 1, 2, 3, 4] and {target for target, _ in held} == {1}
    medium.receive(0, frame(mac(1), mac(0), 5), 2.0)
    assert [payload[17] for _, payload in medium.deliveries(2.0)] == [5]


# -- on a namespace LAN ---------------------------------------------------------------------------------


def quantile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def start_echoes(lan: NamespaceLan, pairs: int) -> None:
    """An echo on laptop 2k+1 for each of `pairs` pairs, running until the LAN closes."""
    for k in range(pairs):
        server = lan.run(
            2 * k + 1,
            [sys.executable, ECHO, "serve", lan.address(2 * k + 1), str(PORT)],
            stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        assert server.stdout is not None
        assert LineWatcher(server.stdout).wait_for(lambda line: line == "ready", DEADLINE_S)


def round_trips(
    lan: NamespaceLan, pairs: int, count: int, timeout: float = 0.6, echoes: bool = True
) -> tuple[list[float], int]:
    """`count` round trips from laptop 2k to laptop 2k+1, for each of `pairs` pairs at once (they share
    the medium, as laptops in one house do): every round trip's milliseconds, and how many were lost.
    Starts the echoes first, unless `echoes` is False (they run already)."""
    if echoes:
        start_echoes(lan, pairs)
    askers = [
        lan.run(
            2 * k,
            [
                sys.executable,
                ECHO,
                "ask",
                lan.address(2 * k),
                lan.address(2 * k + 1),
                str(PORT),
                str(count),
                str(timeout),
            ],
            stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        for k in range(pairs)
    ]
    rtts: list[float] = []
    lost = 0
    for asker in askers:
        result = json.loads(asker.communicate(timeout=DEADLINE_S)[0])
        rtts += result["rtts_ms"]
        lost += result["lost"]
    return rtts, lost


def figures(rtts: list[float], lost: int) -> str:
    quantiles = ", ".join(f"p{int(q * 100)} {quantile(rtts, q):.2f}" for q in (0.5, 0.95, 0.99))
    return f"round trip ms: {quantiles}, max {max(rtts):.1f}; lost {lost} of {len(rtts) + lost}"


@pytest.mark.netns
def test_round_trips_on_wifi_are_a_home_wifis() -> None:
    require_netns()
    with NamespaceLan(6, link="wifi", seed=int.from_bytes(os.urandom(4), "big")) as lan:
        rtts, lost = round_trips(lan, pairs=3, count=1500)
    print(f"wifi (seed {lan.seed}): {figures(rtts, lost)}")
    # The median and p95 also hold the forwarder's and the probes' own time (0.1-0.2 ms on a quiet
    # machine, more when the cores are busy): hence more room above than below.
    assert WIFI_MEDIAN_MS - 0.6 <= quantile(rtts, 0.5) <= WIFI_MEDIAN_MS + 1.0
    assert quantile(rtts, 0.5) + 1.0 <= quantile(rtts, 0.95) < WIFI_P95_BELOW_MS
    # p99 falls in the tail (1.4 % of round trips, 20-250 ms): which of its frames it lands on varies
    # from run to run, so the share of the tail is checked too, within five standard deviations.
    assert WIFI_P99_MS / 2.5 <= quantile(rtts, 0.99) <= WIFI_P99_MS * 2
    tail = sum(rtt > 15 for rtt in rtts) / len(rtts)
    assert 0.014 - 5 * (0.014 / len(rtts)) ** 0.5 <= tail <= 0.014 + 5 * (0.014 / len(rtts)) ** 0.5, tail
    assert lost / (len(rtts) + lost) <= 4 * WIFI_LOSS  # 5 or so expected of 4,500: only an excess shows


@pytest.mark.netns
def test_perfect_adds_no_delay_a_game_would_notice() -> None:
    require_netns()
    with NamespaceLan(2, link="perfect") as lan:
        rtts, lost = round_trips(lan, pairs=1, count=1000)
    print(f"perfect: {figures(rtts, lost)}")
    assert lost == 0
    assert quantile(rtts, 0.5) < 1.0 and quantile(rtts, 0.95) < 3.0


def multicast_and_broadcast_received(lan: NamespaceLan, count: int) -> dict[str, int]:
    """Laptop 0 streams `count` multicast and `count` broadcast datagrams; what laptop 1 received."""
    listener = lan.run(
        1,
        [sys.executable, ECHO, "listen", GROUP, str(PORT), lan.address(1)],
        stdout=subprocess.PIPE,
        stdin=subprocess.PIPE,
        text=True,
    )
    assert listener.stdout is not None and listener.stdin is not None
    heard = LineWatcher(listener.stdout)
    assert heard.wait_for(lambda line: line == "ready", DEADLINE_S)
    streamer = lan.run(
        0,
        [sys.executable, ECHO, "stream", GROUP, str(PORT), lan.address(0), str(count), "1000"],
        stdin=subprocess.DEVNULL,
    )
    assert streamer.wait(DEADLINE_S) == 0
    assert wait_until(lambda: lan.radio_counters()["queued"] == 0, DEADLINE_S)  # all delivered or lost
    listener.stdin.close()
    summary = heard.wait_for(lambda line: line.startswith("{"), DEADLINE_S)
    assert summary is not None
    counts: dict[str, int] = json.loads(summary)
    return counts


@pytest.mark.netns
def test_bad_loses_a_fifth_of_multicast() -> None:
    require_netns()
    count = 1500
    with NamespaceLan(2, link="bad", seed=int.from_bytes(os.urandom(4), "big")) as lan:
        received = multicast_and_broadcast_received(lan, count)
    print(f"bad (seed {lan.seed}): received {received} of {count} each")
    # 20 % lost: 300 of 1,500, give or take 15; five standard deviations either way.
    for kind in ("multicast", "broadcast"):
        assert 0.80 - 0.05 <= received[kind] / count <= 0.80 + 0.05, received


@pytest.mark.netns
def test_no_multicast_carries_none_but_arp_and_unicast_work() -> None:
    require_netns()
    with NamespaceLan(2, link="perfect", no_multicast=True) as lan:
        received = multicast_and_broadcast_received(lan, 200)
        rtts, lost = round_trips(lan, pairs=1, count=50)  # the first one's ARP goes by broadcast
        dropped = lan.radio_counters()["dropped_multicast"]
    assert received == {"multicast": 0, "broadcast": 200}
    assert dropped >= 200 and lost == 0 and len(rtts) == 50


def interfaces(namespace: str | None = None) -> str:
    where = ["-n", namespace] if namespace else []
    return subprocess.run(["ip", *where, "-o", "link"], capture_output=True, text=True, check=False).stdout


@pytest.mark.netns
def test_a_wifi_lan_leaves_no_namespace_tap_or_forwarder_even_after_a_failure() -> None:
    require_netns()
    created: list[str] = []
    forwarders: list[int] = []
    with pytest.raises(RuntimeError, match="boom"), NamespaceLan(2, link="wifi") as lan:
        created = [lan.switch, lan.namespace(0), lan.namespace(1)]
        forwarders = [
            int(pid)
            for pid in subprocess.run(
                ["ip", "netns", "pids", lan.switch], capture_output=True, text=True, check=True
            ).stdout.split()
        ]
        assert forwarders and all(map(running, forwarders))
        assert "eth0" in interfaces(lan.namespace(0))
        raise RuntimeError("boom")
    assert not set(created) & namespaces()
    assert not any(map(running, forwarders))
    assert not re.search(r"^\d+: p\d+[:@]", interfaces(), re.MULTILINE)  # no TAP ever left in the root


@pytest.mark.netns
def test_a_crashed_runs_forwarder_exits_and_its_taps_go_with_it() -> None:
    require_netns()
    crashed = crashed_run(
        """
        import subprocess
        from tests.helpers.netns import NamespaceLan
        lan = NamespaceLan(2, link="wifi").__enter__()
        pids = subprocess.run(["ip", "netns", "pids", lan.switch], capture_output=True, text=True).stdout
        print(lan.switch, lan.namespace(0), lan.namespace(1), *pids.split(), flush=True)
        """,
        DEADLINE_S,
    )
    assert crashed.returncode == -signal.SIGKILL, crashed.stderr
    switch, *hosts_and_pids = crashed.stdout.split()
    hosts, forwarders = hosts_and_pids[:2], [int(pid) for pid in hosts_and_pids[2:]]
    assert forwarders
    # Its creator gone, the forwarder reads the end of its commands and exits, and its TAPs with it...
    assert wait_until(lambda: not any(map(running, forwarders)), DEADLINE_S)
    assert all("eth0" not in interfaces(host) for host in hosts)
    # ... and the next LAN removes the namespaces left.
    with NamespaceLan(1):
        assert not {switch, *hosts} & namespaces()


@pytest.mark.netns
def test_a_sniffer_reads_the_air(tmp_path: Path) -> None:
    require_netns()
    capture = tmp_path / "capture.bin"
    secret = b"what laptop0 tells laptop1 over TCP"
    listen = (
        "import socket, sys; s = socket.create_server((sys.argv[1], 7001)); print('ready', flush=True); "
        "c, _ = s.accept(); print(c.recv(100).decode(), flush=True)"
    )
    speak = "import socket, sys; socket.create_connection((sys.argv[1], 7001)).sendall(sys.argv[2].encode())"
    with NamespaceLan(2, link="wifi") as lan:
        sniffer = lan.capture(capture)
        assert sniffer.stdout is not None and sniffer.stdout.readline().strip() == "capturing"
        listen_argv = [sys.executable, "-c", listen, lan.address(1)]
        listener = lan.run(1, listen_argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        assert listener.stdout is not None
        heard = LineWatcher(listener.stdout)
        assert heard.wait_for(lambda line: line == "ready", DEADLINE_S)
        speaker = lan.run(
            0, [sys.executable, "-c", speak, lan.address(1), secret.decode()], stdin=subprocess.DEVNULL
        )
        assert speaker.wait(DEADLINE_S) == 0
        assert heard.wait_for(lambda line: line == secret.decode(), DEADLINE_S)
        assert wait_until(lambda: secret in capture.read_bytes(), DEADLINE_S)


@pytest.mark.netns
def test_a_laptop_cut_off_the_air_sees_its_carrier_go_and_hears_nothing_until_restored() -> None:
    require_netns()
    with NamespaceLan(2, link="perfect") as lan:
        assert round_trips(lan, pairs=1, count=20)[1] == 0
        lan.cut(1)
        assert "NO-CARRIER" in interfaces(lan.namespace(1))
        # Its address stays; what is sent to it goes nowhere.
        assert (
            lan.address(1)
            in subprocess.run(
                ["ip", "-n", lan.namespace(1), "-o", "addr"], capture_output=True, text=True, check=True
            ).stdout
        )
        assert round_trips(lan, pairs=1, count=5, timeout=0.1, echoes=False) == ([], 5)
        lan.restore(1)
        assert "NO-CARRIER" not in interfaces(lan.namespace(1))
        assert round_trips(lan, pairs=1, count=20, echoes=False)[1] == 0
