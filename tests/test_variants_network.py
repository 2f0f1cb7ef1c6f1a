"""Variants at networked tables (RULES 2, DESIGN 5): bot peers play whole games with variants over the
in-memory network; the record rebuilds each peer's rules from the plugins the table recorded (presets
included), peers fulfil the variants' duties (a chosen pile's draw, the grab grace's close) and every
peer ends with the same digest."""

from __future__ import annotations

import pytest

from kdm.agents import Profile
from kdm.net.transport import MemoryNetwork
from kdm.testing import run_virtual
from tests.helpers.nodes import play_table

#: Quick bots, but thinking longer than the 120 ms reaction floor: a marathon instigator who passes on
#: faster than anyone can slap would keep every later checkpoint from being slapped.
FAST = Profile(
    reaction_ms=15, reaction_spread_ms=3, think_ms=(150, 200), feint_chance=0.02, fooled_chance=0.2
)


@pytest.mark.parametrize(
    "variants",
    [("spoons", "jokers", "seven_in_reserve", "classic"), ("piles", "all_at_once", "marathon")],
    ids=["spoons+jokers+seven_in_reserve+classic", "piles+all_at_once+marathon"],
)
def test_rule_2_bot_peers_play_variants_to_the_same_digest(variants: tuple[str, ...]) -> None:
    network = MemoryNetwork(delay=0.002)
    peers = run_virtual(
        play_table(
            4, 1, lambda i: network.transport(f"n{i}"), lambda n: f"memory://{n}", variants, profile=FAST
        )
    )
    digests = {peer.record.engine.digest() for peer in peers if peer.record.engine is not None}
    assert len(digests) == 1
    engine = peers[0].record.engine
    assert engine is not None and engine.over and engine.state.round == 1
    assert set(variants) <= set(engine.rules.names)
