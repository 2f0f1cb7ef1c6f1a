"""Clock-offset estimation (kdm.net.clock) against simulated ping/pong exchanges."""

from __future__ import annotations

import random

import pytest

from kdm.net.clock import ClockEstimator, ClockSample


def exchange(
    rng: random.Random, now: float, true_offset: float, out_ms: float, back_ms: float
) -> ClockSample:
    """One ping at local time `now` over a link whose one-way delays have a base plus exponential jitter.

    The leader's clock reads `local + true_offset`; it stamps its answer when the ping arrives and then
    spends a little time before the pong leaves, which is one more source of asymmetry.
    """
    there = out_ms + rng.expovariate(1 / (out_ms + 1))
    processing = rng.uniform(0, 0.5)
    back = back_ms + rng.expovariate(1 / (back_ms + 1))
    received = now + there + processing + back
    return ClockSample(sent=now, server_time=now + there + true_offset, received=received)


@pytest.mark.parametrize("true_offset", [-500.0, 500.0])
@pytest.mark.parametrize("seed", range(20))
def test_estimate_is_within_half_the_best_rtt(true_offset: float, seed: int) -> None:
    rng = random.Random(seed)
    # Asymmetric links, like a laptop on Wi-Fi talking to one on a cable: slow one way, fast the other.
    out_ms, back_ms = rng.uniform(0.2, 30), rng.uniform(0.2, 5)
    estimator = ClockEstimator(window=16)
    now = rng.uniform(0, 1e6)
    for _ in range(50):
        sample = exchange(rng, now, true_offset, out_ms, back_ms)
        estimator.add(sample)
        best = estimator.best_sample
        assert best is not None and estimator.offset_ms is not None and estimator.error_ms is not None
        assert estimator.error_ms == best.rtt_ms / 2
        assert abs(estimator.offset_ms - true_offset) <= estimator.error_ms
        now = sample.received + rng.uniform(50, 500)


def test_lan_like_delays_give_about_a_millisecond() -> None:
    rng = random.Random(7)
    estimator = ClockEstimator()
    now = 0.0
    for _ in range(16):
        sample = exchange(rng, now, 500.0, 0.3, 0.3)
        estimator.add(sample)
        now = sample.received + 100
    assert estimator.offset_ms is not None and estimator.error_ms is not None
    assert estimator.error_ms < 1.5
    assert abs(estimator.offset_ms - 500.0) < 1.5


def test_the_minimum_rtt_sample_wins() -> None:
    estimator = ClockEstimator()
    slow = ClockSample(sent=0, server_time=1_020, received=40)  # rtt 40, offset 1000
    fast = ClockSample(sent=100, server_time=1_103, received=104)  # rtt 4, offset 1001
    slower = ClockSample(sent=200, server_time=1_230, received=260)  # rtt 60, offset 1000
    for sample in (slow, fast, slower):
        estimator.add(sample)
    assert estimator.best_sample == fast
    assert estimator.offset_ms == 1_001
    assert estimator.error_ms == 2
    assert estimator.to_reference(5_000) == 6_001


def test_a_newer_sample_wins_a_tie() -> None:
    estimator = ClockEstimator()
    old = ClockSample(sent=0, server_time=505, received=10)
    new = ClockSample(sent=100, server_time=607, received=110)
    estimator.add(old)
    estimator.add(new)
    assert estimator.best_sample == new


def test_the_window_slides_past_an_old_best_sample() -> None:
    estimator = ClockEstimator(window=3)
    best = ClockSample(sent=0, server_time=501, received=2)  # rtt 2, offset 500
    estimator.add(best)
    later = [
        ClockSample(sent=100, server_time=615, received=110),  # rtt 10, offset 510
        ClockSample(sent=200, server_time=708, received=206),  # rtt 6, offset 505
        ClockSample(sent=300, server_time=820, received=340),  # rtt 40, offset 500
    ]
    estimator.add(later[0])
    estimator.add(later[1])
    assert estimator.best_sample == best
    # The fourth sample pushes the best one out; the best of the three left takes over.
    estimator.add(later[2])
    assert estimator.best_sample == later[1]
    assert estimator.offset_ms == 505
    assert estimator.error_ms == 3


def test_reset_forgets_the_old_leader() -> None:
    estimator = ClockEstimator()
    estimator.add(ClockSample(sent=0, server_time=501, received=2))
    estimator.reset()
    assert estimator.offset_ms is None
    assert estimator.error_ms is None
    with pytest.raises(RuntimeError, match="no clock sample yet"):
        estimator.to_reference(0)
    # A slower sample from the new leader is accepted: the old best must not linger.
    estimator.add(ClockSample(sent=10, server_time=-480, received=30))
    assert estimator.offset_ms == -500


@pytest.mark.parametrize(
    ("sent", "server_time", "received"),
    [(10.0, 0.0, 5.0), (float("nan"), 0.0, 1.0), (0.0, float("inf"), 1.0)],
)
def test_impossible_samples_are_refused(sent: float, server_time: float, received: float) -> None:
    with pytest.raises(ValueError):
        ClockSample(sent=sent, server_time=server_time, received=received)


def test_window_must_hold_a_sample() -> None:
    with pytest.raises(ValueError, match="at least one sample"):
        ClockEstimator(window=0)


def test_only_a_pong_that_answers_a_ping_sent_since_the_last_reset_is_a_sample() -> None:
    """A pong can outlive its ping: one queued for a killed process reached the process started again on
    its port, and its midpoint, half the downtime in the past, set the new process's clock 3 s behind the
    leader's. Only the answer to a ping this estimator sent, once, since it was last reset, counts."""
    estimator = ClockEstimator()
    assert not estimator.answers_a_ping(100.0)  # sent by the process that ran before this one
    estimator.pinged(7_000.0)
    assert estimator.answers_a_ping(7_000.0)
    assert not estimator.answers_a_ping(7_000.0)  # a copy of the same pong
    estimator.pinged(7_500.0)
    estimator.reset()  # a new leader: the ping went to the old one
    assert not estimator.answers_a_ping(7_500.0)
