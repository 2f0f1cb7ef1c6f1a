"""The engine's own records: what a duty asks of the table's hosts."""

from __future__ import annotations

from kdm.engine import Duty, Owed


def test_a_duty_says_what_it_asks_of_the_hosts() -> None:
    """Issue 26: a duty's kind was implied by which of its fields were set, the same test written in
    eight places; ``owed_as`` says it once."""
    assert Duty("deal").owed_as is Owed.SEED and Duty("shuffle", seat=2).owed_as is Owed.SEED
    assert Duty("close", after_ms=1500.0).owed_as is Owed.TIMER
    assert Duty("keep_seven", seat=1, after_ms=4000.0).owed_as is Owed.DECISION
    assert Duty("show_hand", seat=1).owed_as is Owed.REVEAL and Duty("draw").owed_as is Owed.REVEAL
