"""Presses bounded by what the other voters saw (``kdm.vouching``), on the pure record.

A press is applied once enough of the other voters have committed their stamps on it, and what is
committed behind it waits; then its claim is bounded by what they saw: no earlier than it reached
them, no quicker a reaction than from their applying its trigger, after every press they had applied
when it reached them. Two records fed the same log agree on every effective time.
"""

from __future__ import annotations

from typing import Any

import pytest

from kdm.engine import IllegalAction, effective_time
from kdm.entries import NOT_SHOWN, Act, Create, Join, Reveal, Start, Vouch
from kdm.events import TimedEvent, Vouched
from kdm.manager import installed_plugins
from kdm.notices import Applied, Notice, Rejected
from kdm.plugins.kilo.events import Slap
from kdm.record import TableRecord, commitment
from kdm.vouching import SLACK_MS, Stamp, bound, press_digest, stamps_needed
from tests.helpers.signed import PLUGINS, Node

#: The seats of the tests' tables: four laptops, one seat each.
PLAYERS = 4


def playing(vouch: bool = True, copies: int = 1) -> tuple[list[TableRecord], list[Node]]:
    """``copies`` records of one four-seat table (``vouch`` on or off), dealt and passing."""
    nodes = [Node(41000 + i) for i in range(PLAYERS)]
    table = nodes[0].id
    records = [TableRecord(installed_plugins(), table=table) for _ in range(copies)]
    log = [nodes[0].write(Create, table, name="t", players=PLAYERS, options={}, plugins=PLUGINS, vouch=vouch)]
    log += [node.write(Join, table, commit=commitment(node.id.encode())) for node in nodes]
    log.append(nodes[0].write(Start, table))
    for shuffle, nonce in enumerate((b"", b"1")):
        log += [
            node.write(Reveal, table, shuffle=shuffle, nonce=nonce + node.id.encode(),
                       next_commit=commitment(b"1" + node.id.encode()))
            for node in nodes
        ]  # fmt: skip
    for entry in log:
        for record in records:
            record.apply(entry)
    engine = records[0].engine
    assert engine is not None
    while engine.state.phase == "announcing":  # the queens are called (no deck checks who holds them)
        (called,) = engine.awaiting()
        announce = {"kind": "announce", "seat": 0, "card": called.cards[0]}
        apply_all(records, act(nodes[0], records[0], announce))
    assert engine.state.phase == "passing"
    return records, nodes


def act(node: Node, record: TableRecord, event: dict[str, Any]) -> dict[str, Any]:
    return node.write(Act, record.table, event=event)


def slap(node: Node, record: TableRecord, seat: int, t_sync: float, **timing: Any) -> dict[str, Any]:
    return act(node, record, {"kind": "slap", "seat": seat, "t_sync": t_sync, **timing})


def vouch(voter: Node, record: TableRecord, press: dict[str, Any], seen: float, applied: int,
          shown: float | None = None, digest: bytes | None = None) -> dict[str, Any]:  # fmt: skip
    """``voter``'s stamps on ``press`` (an entry as written): seen at ``seen`` ms, with ``applied`` events
    applied, its trigger applied at ``shown`` ms."""
    return voter.write(
        Vouch, record.table, press=press["id"][0], counter=press["id"][1],
        digest=digest or press_digest(press["event"]), seen_us=round(seen * 1000), applied=applied,
        shown_us=NOT_SHOWN if shown is None else round(shown * 1000),
    )  # fmt: skip


def apply_all(records: list[TableRecord], entry: dict[str, Any]) -> list[Notice]:
    """Apply ``entry`` at every record; every one says the same; what the first said."""
    said = [record.apply(entry) for record in records]
    assert all(repr(notices) == repr(said[0]) for notices in said), said
    return said[0]


def slapped(notices: list[Notice]) -> list[tuple[int, float]]:
    """The slaps applied among ``notices``: (seat, effective time)."""
    return [
        (effect["seat"], effect["effective"])
        for notice in notices if isinstance(notice, Applied)
        for effect in notice.effects if effect["kind"] == "slapped"
    ]  # fmt: skip


def test_a_press_waits_for_its_stamps_and_what_is_committed_behind_it_waits_too() -> None:
    (record,), nodes = playing()
    seq = record.engine.state.seq if record.engine else 0
    opener = slap(nodes[1], record, 1, t_sync=1000.0)
    assert record.apply(opener) == [] and record.held.presses
    behind = act(nodes[2], record, {"kind": "feint", "seat": 2, "t_sync": 1100.0})
    assert record.apply(behind) == [], "committed after the press: it waits behind it"
    # Four voters: one of them may lie, so two of the three others must stamp.
    assert stamps_needed(PLAYERS, PLAYERS - 1) == 2
    assert record.apply(vouch(nodes[0], record, opener, seen=1002.0, applied=seq)) == []
    notices = record.apply(vouch(nodes[3], record, opener, seen=1003.0, applied=seq))
    assert slapped(notices) == [(1, 1000.0)], "an honest time within the slack stands"
    # The feint behind it is a press too: applied once it has its own stamps.
    assert not any(isinstance(n, Applied) and n.event.kind == "feint" for n in notices)
    assert record.held.presses and len(record.held.queue) == 1


def test_a_reaction_claimed_quicker_than_the_others_saw_it_is_bounded() -> None:
    """A follower that waited, then claims a reaction of 100 ms to the opener: it reacted no quicker
    than from the others' applying the opener to the press reaching them, less the slack."""
    (record,), nodes = playing()
    seq = record.engine.state.seq if record.engine else 0
    opener = slap(nodes[1], record, 1, t_sync=1000.0)
    record.apply(opener)
    record.apply(vouch(nodes[0], record, opener, seen=1002.0, applied=seq))
    record.apply(vouch(nodes[2], record, opener, seen=1002.5, applied=seq))
    racer = slap(nodes[3], record, 3, t_sync=1100.0, trigger=seq, rt=100.0)
    record.apply(racer)
    record.apply(vouch(nodes[0], record, racer, seen=1600.0, applied=seq + 1, shown=1010.0))
    notices = record.apply(vouch(nodes[2], record, racer, seen=1590.0, applied=seq + 1, shown=1012.0))
    least_rt = 1590.0 - 1012.0 - SLACK_MS
    assert slapped(notices) == [(3, 1000.0 + least_rt)]


def test_a_press_that_reached_the_others_after_they_applied_another_comes_after_it() -> None:
    """Whatever it claims, a press the others received only once they had applied a slap is ordered
    after that slap: a cheater who waits to see the others' presses cannot put its own first."""
    (record,), nodes = playing()
    seq = record.engine.state.seq if record.engine else 0
    opener = slap(nodes[1], record, 1, t_sync=1000.0)
    record.apply(opener)
    for voter in (nodes[0], nodes[2]):
        record.apply(vouch(voter, record, opener, seen=1001.0, applied=seq))
    follower = slap(nodes[2], record, 2, t_sync=1300.0, trigger=seq, rt=300.0)
    record.apply(follower)
    for voter in (nodes[0], nodes[3]):
        record.apply(vouch(voter, record, follower, seen=1301.0, applied=seq + 1, shown=1001.0))
    # It reached them 1 ms after the follower did and says it reacted in 100 ms: within the slack of
    # what they saw, but they had applied the follower's slap by then.
    racer = slap(nodes[3], record, 3, t_sync=1100.0, trigger=seq, rt=100.0)
    record.apply(racer)
    record.apply(vouch(nodes[0], record, racer, seen=1302.0, applied=seq + 2, shown=1001.0))
    notices = record.apply(vouch(nodes[2], record, racer, seen=1302.0, applied=seq + 2, shown=1001.0))
    ((seat, effective),) = slapped(notices)
    assert seat == 3 and effective > 1300.0


def test_a_late_stamp_of_one_voter_moves_no_honest_press() -> None:
    """One voter says the press reached it a second late (a slow link, or a lie): the earliest stamp
    counts, so the honest time stands."""
    (record,), nodes = playing()
    seq = record.engine.state.seq if record.engine else 0
    opener = slap(nodes[1], record, 1, t_sync=1000.0)
    record.apply(opener)
    record.apply(vouch(nodes[0], record, opener, seen=2000.0, applied=seq))
    notices = record.apply(vouch(nodes[2], record, opener, seen=1004.0, applied=seq))
    assert slapped(notices) == [(1, 1000.0)]


def test_stamps_for_another_press_under_its_id_or_from_its_own_laptop_do_not_count() -> None:
    """A stamp counts for the press it digests, from another seat's laptop only, once: a process cannot
    have early stamps on one press and commit another under its id, nor stamp its own."""
    (record,), nodes = playing()
    seq = record.engine.state.seq if record.engine else 0
    opener = slap(nodes[1], record, 1, t_sync=1000.0)
    record.apply(opener)
    assert record.apply(vouch(nodes[1], record, opener, seen=1000.0, applied=seq)) == []
    assert record.apply(vouch(nodes[0], record, opener, seen=900.0, applied=seq, digest=bytes(16))) == []
    assert record.apply(vouch(nodes[2], record, opener, seen=1001.0, applied=seq)) == []
    assert record.apply(vouch(nodes[2], record, opener, seen=1001.0, applied=seq)) == []  # once
    notices = record.apply(vouch(nodes[3], record, opener, seen=1002.0, applied=seq))
    assert slapped(notices) == [(1, 1000.0)]


def test_a_table_created_before_voters_vouched_applies_presses_at_once() -> None:
    """A log kept before presses were vouched for replays as it was played."""
    (record,), nodes = playing(vouch=False)
    notices = record.apply(slap(nodes[1], record, 1, t_sync=1000.0))
    assert slapped(notices) == [(1, 1000.0)] and not record.held.queue


def test_two_records_fed_the_same_log_agree_on_every_effective_time() -> None:
    records, nodes = playing(copies=2)
    seq = records[0].engine.state.seq if records[0].engine else 0
    opener = slap(nodes[1], records[0], 1, t_sync=1000.0)
    apply_all(records, opener)
    # It reached them 30 ms and more after it says it was made: later than the slack lets it be.
    apply_all(records, vouch(nodes[3], records[0], opener, seen=1040.0, applied=seq))
    notices = apply_all(records, vouch(nodes[2], records[0], opener, seen=1030.0, applied=seq))
    assert slapped(notices) == [(1, 1030.0 - SLACK_MS)]
    assert records[0].engine is not None and records[1].engine is not None
    assert records[0].engine.digest() == records[1].engine.digest()


def test_a_refused_press_is_judged_once_it_has_its_stamps_in_log_order() -> None:
    (record,), nodes = playing()
    seq = record.engine.state.seq if record.engine else 0
    twice = [slap(nodes[1], record, 1, t_sync=1000.0 + i) for i in range(2)]
    for press in twice:
        record.apply(press)
    for press in twice:
        for voter in (nodes[0], nodes[2]):
            notices = record.apply(vouch(voter, record, press, seen=1001.0, applied=seq))
    assert isinstance(notices[-1], Rejected) and "already slapped" in notices[-1].reason


def test_bound_takes_the_earliest_arrival_and_the_latest_showing() -> None:
    stamps = [Stamp(bytes(16), 1010.0, 500.0, 7), Stamp(bytes(16), 1004.0, 520.0, 9)]
    assert bound(stamps) == Vouched(not_before=1004.0 - SLACK_MS, least_rt=1004.0 - 520.0 - SLACK_MS, after=7)
    assert bound([Stamp(bytes(16), 1004.0, None, 3)]).least_rt is None


@pytest.mark.parametrize(
    ("vouched", "expected"),
    [
        (None, 600.0),  # the claim alone: eff(trigger) + rt
        (Vouched(not_before=0.0, least_rt=300.0), 800.0),
        (Vouched(not_before=0.0, least_rt=50.0), 600.0),  # a reaction slower than they could tell stands
        (Vouched(not_before=0.0, least_rt=None, after=3), 700.0),  # after seq 2's press (700)
    ],
)
def test_effective_time_takes_the_claim_within_what_is_vouched(
    vouched: Vouched | None, expected: float
) -> None:
    reactions = {1: 500.0, 2: 700.0, 5: 900.0}
    event = TimedEvent(seat=0, t_sync=0.0, trigger=1, rt=100.0, vouched=vouched)
    got = effective_time(reactions, event)
    assert got == expected or (expected == 700.0 and 700.0 < got < 700.001)


def test_a_claim_is_still_refused_for_what_it_says_whatever_is_vouched() -> None:
    event = TimedEvent(seat=0, t_sync=0.0, trigger=1, rt=5.0, vouched=Vouched(not_before=0.0, least_rt=400.0))
    with pytest.raises(IllegalAction, match="quicker than a person"):
        effective_time({1: 0.0}, event, min_reaction_ms=100.0)


def test_no_player_can_say_what_is_vouched_for_its_press() -> None:
    """``vouched`` is the record's to set: an event map that names it is refused by the codec."""
    (record,), _nodes = playing()
    codec = record.rules.codec
    with pytest.raises(ValueError, match="unknown fields"):
        codec.decode({"kind": "slap", "seat": 1, "vouched": {"not_before": 0.0}})
    assert "vouched" not in codec.encode(Slap(seat=1))


def test_a_press_whose_vouchers_are_gone_for_good_is_applied_when_the_survivors_go_on() -> None:
    """Four laptops, three killed while a press of the last one waits for their stamps: once it goes on
    without them (a forced configuration, in log order), nobody is left to vouch, and the press is
    applied as claimed, with what waited behind it (the table froze otherwise)."""
    (record,), nodes = playing()
    survivor = nodes[0]
    press = slap(survivor, record, 0, t_sync=1000.0)
    assert record.apply(press) == [] and record.held.presses, "the others' stamps are awaited"
    behind = act(survivor, record, {"kind": "feint", "seat": 0, "t_sync": 1100.0})
    assert record.apply(behind) == []
    notices = record.membership_changed("force", survivor.id, (survivor.id,))
    assert slapped(notices) == [(0, 1000.0)] and not record.held.queue and not record.held.presses
