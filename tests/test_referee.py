"""The referee against seated players' modified clients in real ``kdm`` processes (issue 'A referee
nobody can fool'): what a tempted friend's client says of its own moves is checked against the log.

Each attack is a role in ``tests/modified_clients.py``; each test plays a whole game beside it and
checks every honest peer that the attack reached for the same refusal, and the game for one digest on
every peer and in a replay of the committed log.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kdm.cards import pretty
from kdm.plugins.kems.rules import NOTES_CLOSED
from tests.helpers.attacks import QUICK, client, finished, logging_env
from tests.helpers.processes import table
from tests.modified_clients import DODGE_S

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


#: The seat whose first shuffle turn puts in a point that is no card.
BAD_CARD = 2


def test_a_shuffle_turn_with_a_point_that_is_no_card_is_refused_at_its_turn_by_every_peer(
    tmp_path: Path,
) -> None:
    """Item 3: the bad-card client's first lock turn puts in a point that is no card, with the proof it
    made for the true deck. Every honest peer refuses the turn when the log has it, before any card of
    the shuffle is dealt, names the seat for it, and the game goes on (the seat's turn waited on, taken
    over for good once withheld past ``key_timeout_s``: its process is told so and ends) to one digest
    everywhere and in a replay."""
    programs = {BAD_CARD: client("bad-card")}
    with table(tmp_path, 4, 2, programs, logging_env(tmp_path), deck="fair", playing=None) as scene:
        scene.wait_all()
        game = finished(scene, [0, 1, 3], tmp_path, sent_away=[BAD_CARD])
    (bad,) = game.made("bad card")
    assert (bad["seat"], bad["shuffle"], bad["step"]) == (BAD_CARD, 0, "lock")
    why = "its lock deck is not the deck it was handed, locked with the key it committed to"
    for index in (0, 1, 3):
        said = game.log(index)
        assert f"seat {BAD_CARD}'s lock: {why}" in said, index
        assert f"fair deck: seat {BAD_CARD} in shuffle 0: {why}" in said, index


#: The seat whose process freezes instead of drawing the card it read.
DODGER = 2


def test_a_player_that_freezes_instead_of_drawing_the_card_it_read_still_draws_it(tmp_path: Path) -> None:
    """Item 2, the dodge: the dodger reads the card it must draw face up, then its process freezes for
    ``DODGE_S`` (a stand-in took a seat silent for 1.2 s, voided the round, and the card went to another
    seat). The table waits for it as for its keys: nothing changes hands, nothing is played again, the
    card it read is the card it draws, and the game ends on one digest."""
    programs = {DODGER: client("dodger")}
    env = logging_env(tmp_path)
    with table(tmp_path, 4, 2, programs, env, options=QUICK, deck="fair", playing=None) as scene:
        scene.wait_all()
        game = finished(scene, [0, 1, 3], tmp_path)
    (dodge,) = game.made("dodge")
    assert dodge["seat"] == DODGER and dodge["frozen_s"] == DODGE_S
    for index in (0, 1, 3):
        said = game.log(index)
        assert "changed hands" not in said and "stands in" not in said, index
        assert f"({DODGER}) draws {pretty(dodge['card'])}" in said, index  # its player's name: "vm (2)"


#: The seat whose process hands nobody its keys.
WITHHOLDER = 2


def test_a_player_that_withholds_its_keys_is_named_charged_and_played_by_a_bot_to_the_end(
    tmp_path: Path,
) -> None:
    """Item 2: the withholder hands no other seat its keys, so nobody can read a card it locked. Past
    ``key_timeout_s`` every honest peer says a bot stands in for it and why, the round is dealt again,
    the seat is charged (RULES 1.4: 100 kilos), its process is told it lost the seat for good, and the
    game ends on one digest everywhere and in a replay."""
    programs = {WITHHOLDER: client("withholder")}
    with table(tmp_path, 4, 2, programs, logging_env(tmp_path), deck="fair", playing=None) as scene:
        scene.wait_all()
        game = finished(scene, [0, 1, 3], tmp_path, sent_away=[WITHHOLDER])
    assert game.made("keys withheld")
    for index in (0, 1, 3):
        said = game.log(index)
        assert f"a bot stands in for seat {WITHHOLDER} " in said and "withheld its keys for 10 s" in said, (
            index
        )
        assert f"({WITHHOLDER}) is charged 100 kg for holding the round up" in said, index
    assert game.record.engine is not None and game.record.engine.state.rules["kilo"].charged == {
        WITHHOLDER: 100
    }
