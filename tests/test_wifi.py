"""The userspace Wi-Fi (`tests/helpers/wifi.py`) against its specification: the medium alone, on a clock
of the test's own (no I/O, no time): losses per profile, order on each pair, stalls, multicast filtered.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import replace

import pytest

from tests.helpers.wifi import PROFILES, Delay, Medium


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
