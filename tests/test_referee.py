"""The referee against seated players' modified clients in real ``kdm`` processes (issue 'A referee
nobody can fool'): what a tempted friend's client says of its own moves is checked against the log.

Each attack is a role in ``tests/modified_clients.py``; each test plays a whole game beside it and
checks every honest peer that the attack reached for the same refusal, and the game for one digest on
every peer and in a replay of the committed log.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kdm.plugins.kems.rules import NOTES_CLOSED
from tests.helpers.attacks import client, finished, logging_env
from tests.helpers.processes import table

pytestmark = pytest.mark.processes

#: Seat 2 is the second seat of team 0 (seats 0 and 2): its partner, seat 0, is the host's player.
BACKDATER, PARTNER = 2, 0


def test_a_note_that_says_it_was_written_before_play_is_refused_by_the_partner(tmp_path: Path) -> None:
    """RULES 3.2: once the signs are closed, no private word. The backdater sends its partner two notes
    that would change their sign, each saying it was written in time (``"written": 0``, once unsalted
    as notes were, once salted as honest ones are); the partner's process, the only one a note reaches,
    refuses both for that reason, since neither is the note its team's ``TeamReady`` committed, and the
    game ends on one digest."""
    programs = {BACKDATER: client("backdater")}
    options = ("target=1", "sweep_after_ms=300")
    with table(
        tmp_path, 4, None, programs, logging_env(tmp_path), options, variants=["kems"], playing="chasse"
    ) as scene:
        scene.wait_all()
        game = finished(scene, [0, 1, 3], tmp_path)
    backdated = game.made("backdated note")
    assert len(backdated) == 2 and {note["to"] for note in backdated} == {PARTNER}
    refusal = f"refused a private note from seat {BACKDATER} to seat {PARTNER}: {NOTES_CLOSED}"
    assert game.log(PARTNER).count(refusal) == len(backdated)
