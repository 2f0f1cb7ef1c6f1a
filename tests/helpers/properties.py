"""Property tests of tables (hypothesis): the phases they run in, the times they draw, and the check
that a fresh engine fed the same events through the wire codec accepts and refuses the same ones.
"""

from __future__ import annotations

import os
from typing import Any

import msgpack
from hypothesis import Phase
from hypothesis import strategies as st

from kdm.engine import Engine, IllegalAction
from kdm.events import Event
from kdm.manager import Rules
from kdm.state import canonical

PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink)
#: ``make check`` (``KDM_QUICK=1``) runs a tenth of the random examples, seeds and inputs, so the quick
#: run stays quick; ``make test`` and CI run them all.
QUICK = os.environ.get("KDM_QUICK") == "1"
QUICK_SHARE = 10


def examples(count: int) -> int:
    """How many random examples to try: ``count``, or a tenth of it (at least one) in the quick run."""
    return max(1, count // QUICK_SHARE) if QUICK else count


times = st.one_of(st.integers(-100, 3000).map(float), st.floats(-1e9, 1e9, allow_nan=False))


def through_the_wire(rules: Rules, original: Event) -> Event:
    decoded = rules.codec.decode(msgpack.unpackb(msgpack.packb(rules.codec.encode(original)), raw=False))
    assert decoded == original
    return decoded


def assert_replays(
    rules: Rules, players: int, options: dict[str, Any], attempts: list[tuple[Event, bool, str, Any]]
) -> None:
    """A fresh engine fed every attempted event through the wire codec accepts and refuses the same
    ones, with the same effects and the same digest after each."""
    engine = Engine(rules, players, options)
    for event, applied, digest, effects in attempts:
        decoded = through_the_wire(rules, event)
        try:
            replayed = engine.apply(decoded)
        except IllegalAction:
            assert not applied, f"replay refused {decoded}"
        else:
            assert applied, f"replay accepted {decoded}"
            assert canonical(replayed) == canonical(effects)
        assert engine.digest() == digest
