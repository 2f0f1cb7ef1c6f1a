"""The referee against seated players' modified clients in real ``kdm`` processes (issue 'A referee
nobody can fool'): what a tempted friend's client says of its own moves is checked against the log.

Each attack is a role in ``tests/modified_clients.py``; each test plays a whole game beside it and
checks every honest peer that the attack reached for the same refusal, and the game for one digest on
every peer and in a replay of the committed log.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kdm.cards import pretty
from kdm.entries import NOT_SHOWN, Act, Vouch
from kdm.notices import Applied, Notice, TookOver, Voided
from kdm.plugins.kems.rules import NOTES_CLOSED
from kdm.replay import read_committed, replayed
from kdm.vouching import SLACK_MS
from tests.helpers.attacks import QUICK, Game, client, finished, logging_env
from tests.helpers.processes import DEADLINE_S, table
from tests.modified_clients import ANNOUNCEMENTS, DODGE_S

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
    card it read is the card it draws, and the game ends on one digest. Nobody feints and the dodger
    opens no window (``steady``): every window is a true one that it loses, and it draws in the first
    round (a feint's false slap or a window of its own once made it draw in neither of two)."""
    programs = {seat: client("steady") for seat in range(4) if seat != DODGER} | {DODGER: client("dodger")}
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


#: The seat whose process is killed mid-round and started again.
RESTARTED = 2


def test_a_player_killed_mid_round_and_started_again_plays_on_in_the_same_round(tmp_path: Path) -> None:
    """Item 2: seat 2's process is killed (``kill -9``) while a round is in play, after its seat was
    dealt, and its player runs the same command again. Its keys come back with its key (``kdm.kept``):
    the table waits for it as for a key, it takes its place in the same round (nothing changes hands,
    nothing is dealt again: the card it owed is the card it gets), and the game ends on one digest on
    every peer and in a replay, the audits naming nobody."""
    with table(tmp_path, 4, 2, env=logging_env(tmp_path), deck="fair") as scene:
        killed = scene.processes[RESTARTED]
        killed.send_signal(signal.SIGKILL)
        killed.wait(DEADLINE_S)
        _back, back_out = scene.player(RESTARTED, "join", scene.contact)
        assert back_out.wait_for(lambda line: line.endswith(f"takes seat {RESTARTED} back"), DEADLINE_S)
        scene.wait_all()
        ended = [process.returncode for process in scene.processes]
        assert ended == [0, 0, -signal.SIGKILL, 0, 0], ended
    (founder_log,) = (tmp_path / "p0" / "tables").glob("*.log")
    notices: list[Notice] = []
    record = replayed(read_committed(founder_log)[0], lambda _record, notice: notices.append(notice))
    assert record.engine is not None and record.engine.over and record.engine.state.round == 2
    assert not [notice for notice in notices if isinstance(notice, (Voided, TookOver))]
    reports = [scene.report(seat) for seat in range(4)]
    assert {report["digest"] for report in reports} == {record.engine.digest()}
    assert reports[RESTARTED]["rejoined"] is True
    for index, output in enumerate(scene.outputs):
        said = "\n".join(output.lines)
        assert "stands in" not in said and "played again" not in said and "fair deck: seat" not in said, index


# --- item 1: presses bounded by what the others saw ----------------------------------------------

#: The clocks' error between two processes on one machine, beside the slack (``kdm.vouching``).
CLOCKS_MS = 5.0


@dataclass
class Race:
    """One window the racer (or forger) slapped into: every seat's effective time, what its client
    wrote down of its slap, and when the last of the voters that vouched for that slap had applied the
    window's opener (their ``Vouch`` stamps in the log, on the agreed clock), or when the slapper had,
    for a slap that names no trigger (a forged time: the voters stamp no sight of it). The latest of
    all the stamps, which is no earlier than the latest the record counted: the bound is no tighter
    than the referee's."""

    opener: int
    effective: dict[int, float]
    made: dict[str, Any]
    others_shown: float

    def last(self, seat: int) -> bool:
        return max(self.effective, key=lambda s: self.effective[s]) == seat


def races(game: Game, attack: str, seat: int) -> list[Race]:
    """The windows of the replayed log the ``attack``'s slaps went into, in log order."""
    made = {press["opener"]: press for press in game.made(attack)}
    windows: dict[int, dict[int, float]] = {}
    opener = None
    for notice in game.notices:
        if not isinstance(notice, Applied):
            continue
        for effect in notice.effects:
            if effect["kind"] == "slapped":
                if effect["opened"]:
                    opener = effect["seq"]
                    windows[opener] = {}
                assert opener is not None
                windows[opener][effect["seat"]] = effect["effective"]
    # Every voucher's sight of the opener: the record counts the stamps committed by the time it applies
    # the press (the first ``stamps_needed`` at least), so their latest is at most the latest of all.
    shown: dict[tuple[str, int], list[int]] = {}
    for entry in game.logged:
        if isinstance(entry, Vouch):
            shown.setdefault((entry.press, entry.counter), []).append(entry.shown_us)

    def others_shown(press: dict[str, Any]) -> float:
        if attack == "forged time":  # a slap that names no trigger: nobody stamps a sight of it
            return float(press["shown"])
        stamps = shown[(press["id"][0], press["id"][1])]
        assert stamps and NOT_SHOWN not in stamps, stamps
        return max(stamps) / 1000

    raced = [(o, times) for o, times in windows.items() if o in made and seat in times]
    return [Race(o, times, made[o], others_shown(made[o])) for o, times in raced]


@pytest.mark.parametrize(
    ("seat", "attack"), [(2, "claimed reaction"), (0, "claimed reaction"), (2, "forged time")]
)
def test_a_slap_claimed_quicker_than_it_was_made_is_bounded_by_what_the_others_saw(
    tmp_path: Path, seat: int, attack: str
) -> None:
    """Item 1: the racer waits until every other seat has slapped, then claims it reacted to the opener
    in 100 ms (from the leader's seat too: seat 0 founds the table); the forger claims a press time 5 ms
    after the opener's. Before, the claim put it first after the opener in every window and never last.
    Now every peer bounds it by what the other voters saw: its effective time is no earlier than its
    true reaction as they saw it (from their application of the opener to its true press) less the
    slack, and it comes after the slaps the others had applied when it reached them: last in every
    window, on one digest everywhere and in a replay.

    The reaction is measured from the vouchers' sight of the opener, not the racer's own: the leader
    applies each commit a trip before the others learn of it, and a press from the leader's seat is
    judged as if its player saw the card when the others did (what keeps the leader's head start from
    counting, for an honest player there as for a cheater). Measured from its own sight, the racer at
    the leader's seat gains that head start less its press's trip, which a busy machine makes more than
    the clocks' error (a CI run: 5.5 ms)."""
    role = "forger" if attack == "forged time" else "racer"
    programs = {seat: client(role)}
    with table(tmp_path, 4, 5, programs, logging_env(tmp_path), options=QUICK) as scene:
        scene.wait_all()
        game = finished(scene, [index for index in range(4) if index != seat], tmp_path)
    raced = races(game, attack, seat)
    assert raced, "no window raced"
    if seat == 0:
        assert any(race.made["leader"] for race in raced), "the racer led while it raced"
    for race in raced:
        true_reaction = race.made["pressed"] - race.others_shown  # as the other voters saw it, if they did
        opened_at = min(race.effective.values())  # the opener's time: the others reacted to it
        assert race.effective[seat] >= opened_at + true_reaction - SLACK_MS - CLOCKS_MS, race
    last = sum(race.last(seat) for race in raced)
    print(f"{role} at seat {seat}: last in {last} of {len(raced)} windows")
    assert last == len(raced), [race.effective for race in raced]


#: The announcer's seat.
ANNOUNCER = 2


def test_a_slap_announced_to_the_voters_is_made_whether_its_author_proposes_it_or_not(tmp_path: Path) -> None:
    """The announcer tells the voters it slapped, 8 times while the cards go round, and proposes none
    of those slaps. Before, its word (a digest) bound it to nothing: it could hold its announcements
    and propose only the last one before another seat opened a window, counted as made then, ahead of
    the opener (a scratch client did so: first in 3 of 3 windows it joined, never slapping falsely).
    Now every honest voter proposes the press it was told of at once: every slap it announced is in the
    log as announced, judged the same everywhere (one digest, and a replay's); every other one it
    announced with keys the table refuses and proposed clean a moment later, which would have let it
    cancel an announcement, or keep it, when it liked: the announced one went first, and was refused.
    (Each clean one is a false slap, and ends its round: the game has rounds enough for all eight.)"""
    programs = {ANNOUNCER: client("announcer")}
    # (The game starting is enough: its rounds may end at the announcer's false slaps before any pass.)
    with table(tmp_path, 4, 8, programs, logging_env(tmp_path), options=QUICK, playing=None) as scene:
        scene.wait_all()
        game = finished(scene, [0, 1, 3], tmp_path)
    made = {tuple(made["id"]): made["swapped"] for made in game.made("announced slap")}
    assert len(made) == ANNOUNCEMENTS and any(made.values())
    first: dict[tuple[str, int], Act] = {}
    for entry in game.logged:
        if isinstance(entry, Act):
            first.setdefault((entry.id.node, entry.id.counter), entry)
    assert set(made) <= set(first), set(made) - set(first)
    # what the log judged under each id is the slap as announced: a swap, announced with keys the table
    # refuses and proposed clean a moment later, came too late (its copy is ignored)
    assert [bool(first[key].keys) for key in made] == list(made.values())


#: The call thief's seat: team 1 (seats 1 and 3), whose opponents' Kem's calls it steals.
THIEF = 1


def test_a_contre_that_steals_an_opponent_s_kems_call_is_ordered_after_it(tmp_path: Path) -> None:
    """Item 1, Kem's: the thief calls « Contre Kem's ! » on the signer the moment an opponent's « Kem's ! »
    (or « Double Kem's ! ») opens the window, with the caller's trigger and a reaction of 100 ms.
    Before, every such call went to the thief (15 of 15). Now its call reached the others after they
    had applied the Kem's call, so every peer orders it after: the Kem's call counts in every window,
    on one digest everywhere. The opponents are careless in the game's first deals (``misreader``: quick
    meaningless gestures, each taken by the partner for their sign) and the thief's team makes no sign
    and calls nothing in those deals (``quiet-partner``), so that the opponents call first whatever the deal;
    the target is low so that the game, played honestly after, ends well within the processes' deadline."""
    programs = {THIEF: client("call-thief"), 3: client("quiet-partner")} | {
        seat: client("misreader") for seat in (0, 2)
    }
    options = ("target=2", "sweep_after_ms=300")
    with table(
        tmp_path, 4, None, programs, logging_env(tmp_path), options, variants=["kems"], playing="chasse"
    ) as scene:
        scene.wait_all()
        game = finished(scene, [0, 2, 3], tmp_path)
    windows: dict[int, dict[int, tuple[str, float]]] = {}  # by the seq of the call that opened it
    opened = -1
    for notice in game.notices:
        for effect in notice.effects if isinstance(notice, Applied) else ():
            if effect["kind"] == "called":
                opened = notice.seq if effect["opened"] else opened
                windows.setdefault(opened, {})[effect["seat"]] = (effect["call"], effect["effective"])
    stolen = game.made("stolen call")
    attacked = [
        windows[call["caller_seq"]] for call in stolen if THIEF in windows.get(call["caller_seq"], {})
    ]
    assert attacked, (windows, stolen)
    for window in attacked:
        first = min(window, key=lambda seat: window[seat][1])
        assert first != THIEF and window[first][0] in ("kems", "double"), window


#: The four-hiders (team 1) and the catchers (team 0, the host's seat among them).
HIDERS, CATCHERS = (1, 3), (0, 2)


def test_a_kems_accused_holding_four_of_a_kind_cannot_answer_the_contre_with_two_cards(
    tmp_path: Path,
) -> None:
    """Item 4, RULES 3.5: a Contre on a seat that holds four of a kind scores for the caller's team. The
    four-hiders answer such a Contre with two of their cards, which would make it a failed one (the
    caller's team losing 1, the accused's hand hidden). Every peer refuses the answer for that reason
    when the log has it, the accused's hand is shown as the rules show it when its time is up, and the
    Contre scores 1 for the caller's team; one digest everywhere. The catchers take every gesture of
    theirs for a sign and the hiders make none but when they hold four, so that the one deal the game
    needs ends that way whatever the cards."""
    programs = {seat: client("four-hider") for seat in HIDERS} | {
        seat: client("catcher") for seat in CATCHERS
    }
    options = ("target=1", "show_answer_ms=1000")
    with table(
        tmp_path, 4, None, programs, logging_env(tmp_path), options, variants=["kems"], playing="chasse"
    ) as scene:
        scene.wait_all()
        game = finished(scene, [0, 1, 2, 3], tmp_path)
    hidden = game.made("hidden four")
    assert hidden, "no four-hider was caught holding four"
    refused = game.assert_refused_everywhere(
        "holds four of a kind: it answers the Contre by showing its hand"
    )
    assert refused >= 1
    results = [
        effect
        for notice in game.notices
        if isinstance(notice, Applied)
        for effect in notice.effects
        if effect["kind"] == "call_result"
    ]
    contres = [result for result in results if result["call"] == "contre"]
    assert contres and contres[-1]["target"] in HIDERS, results
    assert (contres[-1]["result"], contres[-1]["team"], contres[-1]["points"]) == ("confirmed", 0, 1), results
    shown = [
        effect
        for notice in game.notices
        if isinstance(notice, Applied)
        for effect in notice.effects
        if effect["kind"] == "hand_shown" and effect["seat"] == contres[-1]["target"]
    ]
    assert shown and shown[-1]["four"], shown
