"""Seats bound to players' keys (kdm.record, kdm.identity), and who votes (kdm.membership), purely.

A player whose process dies, or loses the network, comes back with the key that took the seat and gets
it back from the bot that stood in, at the first moment the rules allow; a stranger, or a forged claim,
gets nothing. Entries are applied to a ``TableRecord`` by hand, as a committed log would deliver them.
"""

from __future__ import annotations

from typing import Any

from nacl.signing import SigningKey

from kdm.hookspecs import hookimpl
from kdm.identity import Identity, NodeMemory, SeatMemory, claim_is_valid
from kdm.manager import installed_plugins, plugin_from
from kdm.membership import LEARNER_GONE_MS, PROMOTE, RETIRE, names_on_laptops, next_change, voting_homes
from kdm.notices import Notice, Rejected
from kdm.record import FULL, PLAYING, Seat, TableRecord, commitment

TABLE = "10.0.0.2:41000~founder"


class Holding:
    """A house rule that says when a player may come back (``allow``), like a slap window would."""

    NAME = "holding"
    allow = True

    @hookimpl
    def kdm_player_may_return(self, state: Any, seat: int) -> bool:
        return self.allow


class Table:
    """A record and the entries applied to it, each with a fresh id."""

    def __init__(self, players: int = 3) -> None:
        self.holding = Holding()
        info = plugin_from(self.holding)
        self.record = TableRecord({**installed_plugins(), info.name: info})
        self.counter = 0
        self.apply(TABLE, "create", name="kitchen", players=players, options={"rounds": 2},
                   plugins={"kilo": installed_plugins()["kilo"].version, "holding": "0"})  # fmt: skip

    def apply(self, node: str, kind: str, **fields: Any) -> list[Notice]:
        self.counter += 1
        return self.record.apply({"t": kind, "id": [node, self.counter], **fields})

    def join(
        self, node: str, identity: Identity | None = None, claim_by: Identity | None = None
    ) -> list[Notice]:
        claim: dict[str, bytes] = {}
        if identity is not None:
            signer = claim_by or identity
            claim = {"player": identity.public_key, "claim": signer.seat_claim(TABLE, node)}
        return self.apply(node, "join", name=node, bot=False, commit=commitment(node.encode()), **claim)

    def kinds(self, notices: list[Notice]) -> list[str]:
        return [type(notice).__name__ for notice in notices]


ALICE, BOB = Identity.ephemeral(), Identity.ephemeral()


def seated(players: int = 3) -> Table:
    table = Table(players)
    table.join(TABLE, Identity.ephemeral())
    table.join("bob-1", BOB)
    table.join("carol", Identity.ephemeral())
    return table


def test_a_claim_is_signed_by_the_players_key_for_one_table_and_one_node() -> None:
    claim = ALICE.seat_claim(TABLE, "alice-1")
    assert claim_is_valid(ALICE.public_key, claim, TABLE, "alice-1")
    assert not claim_is_valid(ALICE.public_key, claim, TABLE, "alice-2")
    assert not claim_is_valid(ALICE.public_key, claim, "another table", "alice-1")
    assert not claim_is_valid(BOB.public_key, claim, TABLE, "alice-1")
    assert not claim_is_valid(ALICE.public_key, claim[:10], TABLE, "alice-1")


def test_a_restarted_process_takes_back_its_seat_in_the_waiting_room() -> None:
    table = Table()
    table.join(TABLE, Identity.ephemeral())
    assert table.kinds(table.join("bob-1", BOB)) == ["Seated"]
    notices = table.join("bob-2", BOB)  # bob's laptop crashed; his new process has a new node id
    assert table.kinds(notices) == ["Returning", "Returned"]
    assert (notices[1].seat, notices[1].previous, notices[1].node) == (1, "bob-1", "bob-2")
    seat = table.record.seats[1]
    assert (seat.node, seat.home, seat.player, seat.away) == ("bob-2", "bob-2", BOB.public_key, False)
    assert len(table.record.seats) == 2  # the same seat, not a second one


def test_a_founder_back_in_the_waiting_room_still_starts_the_game() -> None:
    founder = Identity.ephemeral()
    table = Table()
    table.join(TABLE, founder)
    table.join("bob-1", BOB)
    table.join("carol", Identity.ephemeral())
    table.join("founder-2", founder)  # the founder's laptop crashed before the start; kdm again
    assert table.record.seats[0].home == "founder-2"
    (refused,) = table.apply("carol", "start")
    assert refused.reason == "only the host starts the game"
    assert table.kinds(table.apply("founder-2", "start")) == ["Started"]


def test_a_claim_for_someone_elses_key_is_refused() -> None:
    table = seated()
    mallory = Identity.ephemeral()
    (refused,) = table.join("mallory", BOB, claim_by=mallory)
    assert isinstance(refused, Rejected) and "does not hold the key" in refused.reason
    assert table.record.seats[1].node == "bob-1"


def test_a_stranger_is_refused_once_the_game_started_or_the_table_is_full_and_may_watch() -> None:
    full = seated()
    (refused,) = full.join("dave", Identity.ephemeral())
    assert isinstance(refused, Rejected) and refused.code == FULL
    full.apply(TABLE, "start")
    (refused,) = full.join("dave", Identity.ephemeral())
    assert isinstance(refused, Rejected) and refused.code == PLAYING
    assert refused.reason == "table 'kitchen': the game has already started"


def test_a_bot_stands_in_and_the_seat_stays_the_players() -> None:
    table = seated()
    table.apply(TABLE, "start")
    notices = table.apply(f"{TABLE}#1", "takeover", seat=1, commit=commitment(b"stand-in"), box_key=b"k" * 32)
    assert table.kinds(notices) == ["TookOver"]
    seat = table.record.seats[1]
    assert (seat.node, seat.home, seat.name, seat.player) == (f"{TABLE}#1", "bob-1", "bob-1", BOB.public_key)
    assert seat.away and seat.box_key == b"k" * 32


def test_a_player_back_waits_for_a_moment_the_rules_allow() -> None:
    table = seated()
    table.apply(TABLE, "start")
    table.apply(f"{TABLE}#1", "takeover", seat=1, commit=commitment(b"stand-in"))
    table.holding.allow = False  # say, a slap window is open: the stand-in's slap stands
    assert table.kinds(table.join("bob-2", BOB)) == ["Returning"]
    assert table.record.seats[1].node == f"{TABLE}#1" and 1 in table.record.returning
    assert table.kinds(table.apply("carol", "done")) == ["Finished"]  # still not now
    table.holding.allow = True
    notices = table.apply("carol", "done")  # the first entry after which the rules say yes
    assert table.kinds(notices) == ["Finished", "Returned"]
    assert (notices[1].node, notices[1].previous) == ("bob-2", f"{TABLE}#1")
    seat = table.record.seats[1]
    assert (seat.node, seat.home, seat.away) == ("bob-2", "bob-2", False)
    assert seat.commitment == commitment(b"bob-2")  # his own new commitment, for the next shuffle


def test_a_process_back_from_a_lost_network_takes_its_seat_back_under_the_same_node() -> None:
    table = seated()
    table.apply(TABLE, "start")
    table.apply(f"{TABLE}#1", "takeover", seat=1, commit=commitment(b"stand-in"))
    notices = table.join("bob-1", BOB)
    assert table.kinds(notices) == ["Returning", "Returned"]
    assert not table.record.seats[1].away
    (refused,) = table.join("bob-1", BOB)  # asking again while seated changes nothing
    assert isinstance(refused, Rejected) and "already seated" in refused.reason


def test_the_base_game_keeps_a_seat_in_a_slap_window() -> None:
    from kdm.plugins.kilo.testing import ScriptedKilo

    scripted = ScriptedKilo(4)
    scripted.start()
    scripted.deal([["KH", "KS", "KD", "KC"], ["QH", "QS", "2H", "2S"], ["QD", "QC", "2D", "2C"],
                   ["JH", "JS", "JD", "JC"]])  # fmt: skip
    assert scripted.engine.player_may_return(2)
    scripted.slap(0, at=1000.0)
    assert scripted.state.phase == "window" and not scripted.engine.player_may_return(2)


# --- who votes ----------------------------------------------------------------------------------------


def quiet(_node: str) -> float:
    return 0.0


def test_seated_learners_are_promoted_first() -> None:
    change = next_change(["a", "b", "c"], voters=["a"], learners=["c", "b", "x"], silent_ms=quiet, me="a")
    assert change == (PROMOTE, "b")


def test_a_seated_learner_votes_only_once_it_holds_the_log() -> None:
    """A restarted player's process starts with an empty log: as a voter it could not ack for a long
    while, and a few of those at once are as good as a lost quorum (found by the chaos soak)."""
    behind = {"b"}
    change = next_change(["a", "b", "c"], ["a"], ["b", "c"], quiet, "a", caught_up=lambda n: n not in behind)
    assert change == (PROMOTE, "c")
    assert next_change(["a", "b"], ["a"], ["b"], quiet, "a", caught_up=lambda n: n not in behind) is None


def test_a_stranger_or_a_spectator_never_votes_and_a_gone_one_is_let_go() -> None:
    assert next_change(["a", "b"], voters=["a", "b"], learners=["x"], silent_ms=quiet, me="a") is None
    silent = {"x": LEARNER_GONE_MS + 1}
    change = next_change(["a", "b"], ["a", "b"], ["x"], silent_ms=lambda n: silent.get(n, 0.0), me="a")
    assert change == (RETIRE, "x")


def test_a_players_old_process_stops_voting_once_the_new_one_votes() -> None:
    # bob-1 died; bob-2 took his seat back: bob-2 votes first, then bob-1 goes.
    assert next_change(["a", "bob-2"], ["a", "bob-1"], ["bob-2"], quiet, "a") == (PROMOTE, "bob-2")
    assert next_change(["a", "bob-2"], ["a", "bob-1", "bob-2"], [], quiet, "a") == (RETIRE, "bob-1")


def test_a_silent_player_keeps_their_vote_until_a_bot_holds_their_seat() -> None:
    assert next_change(["a", "b"], ["a", "b"], [], lambda n: 1e9, "a") is None
    seats = [
        Seat("a", "ann", False, b""),
        Seat("a#1", "bob", True, b"", home="b"),
        Seat("c", "cy", False, b""),
    ]
    assert voting_homes(seats) == ["a", "c"]
    assert next_change(voting_homes(seats), ["a", "b", "c"], [], quiet, "a") == (RETIRE, "b")
    seats[1] = Seat("b", "bob", False, b"")  # bob is back: he votes again once he is a learner
    assert next_change(voting_homes(seats), ["a", "c"], ["b"], quiet, "a") == (PROMOTE, "b")


def test_one_laptop_one_vote_a_players_bots_share_their_vote() -> None:
    """The issue "A first evening that works": a player and the bot they added on laptop 2 held two
    votes of three, and laptop 2's crash took the quorum with it. The bot names its player's node as
    its laptop, and only the player votes for that laptop; a bot started on its own still votes."""
    table = Table(players=4)
    table.join(TABLE, ALICE)
    table.join("bob-1", BOB)
    table.apply("bot-9", "join", name="bot 1 of bob", bot=True, commit=commitment(b"9"), laptop="bob-1")
    table.apply("lone-bot", "join", name="bot", bot=True, commit=commitment(b"lone"))
    seats = table.record.seats
    assert [seat.laptop for seat in seats] == ["", "", "bob-1", ""]
    assert voting_homes(seats) == [TABLE, "bob-1", "lone-bot"]
    assert next_change(voting_homes(seats), [TABLE, "bob-1", "bot-9"], [], quiet, TABLE) == (RETIRE, "bot-9")
    assert names_on_laptops(seats, ["bob-1"]) == ["bob-1", "bot 1 of bob"]


def test_a_seat_keeps_its_laptop_through_a_stand_in_and_a_return() -> None:
    table = Table(players=3)
    table.join(TABLE, ALICE)
    table.join("carol", Identity.ephemeral())
    bot = Identity.ephemeral()
    claim = {"player": bot.public_key, "claim": bot.seat_claim(TABLE, "bot-1")}
    table.apply("bot-1", "join", name="bot", bot=True, commit=commitment(b"1"), laptop=TABLE, **claim)
    table.apply(TABLE, "start")
    table.apply(f"{TABLE}#2", "takeover", seat=2, commit=commitment(b"stand-in"))
    assert table.record.seats[2].laptop == TABLE and voting_homes(table.record.seats) == [TABLE, "carol"]
    claim = {"player": bot.public_key, "claim": bot.seat_claim(TABLE, "bot-2")}
    table.apply("bot-2", "join", name="bot", bot=True, commit=commitment(b"2"), laptop=TABLE, **claim)
    assert table.record.seats[2].node == "bot-2" and table.record.seats[2].laptop == TABLE
    assert voting_homes(table.record.seats) == [TABLE, "carol"]


def test_a_join_naming_its_own_node_as_laptop_is_a_laptop_of_its_own() -> None:
    table = Table(players=3)
    table.join(TABLE, ALICE)
    table.apply("bob-1", "join", name="bob", bot=False, commit=commitment(b"b"), laptop="bob-1")
    assert table.record.seats[1].laptop == "" and voting_homes(table.record.seats) == [TABLE, "bob-1"]


def test_the_leader_never_retires_itself() -> None:
    assert next_change(["b"], ["a", "b"], [], quiet, "a") is None
    assert next_change([], ["a"], ["b"], quiet, "a") is None  # nobody seated yet: the founder votes alone


# --- the player's files ---------------------------------------------------------------------------------


def test_the_key_is_made_once_kept_private_and_read_back(tmp_path: Any) -> None:
    first = Identity.load_or_create(tmp_path)
    assert Identity.load_or_create(tmp_path).public_key == first.public_key
    assert (tmp_path / "identity.key").stat().st_mode & 0o777 == 0o600
    (tmp_path / "identity.key").write_text("not a key")
    replaced = Identity.load_or_create(tmp_path)
    assert replaced.public_key != first.public_key and (tmp_path / "identity.key.bad").exists()


def test_the_seats_a_player_holds_are_remembered_for_the_lobby(tmp_path: Any) -> None:
    memory = SeatMemory(tmp_path)
    assert memory.held() == {}
    memory.remember(TABLE, "kitchen", 2)
    assert SeatMemory(tmp_path).held() == {TABLE: {"name": "kitchen", "seat": 2}}
    memory.forget(TABLE)
    assert memory.held() == {}
    (tmp_path / "seats.json").write_text("[garbage")
    assert memory.held() == {}


def test_the_node_at_each_table_is_remembered_privately_for_a_restart(tmp_path: Any) -> None:
    memory = NodeMemory(tmp_path)
    assert memory.get(TABLE) is None
    key = SigningKey.generate()
    memory.remember(TABLE, "10.0.0.3", 41234, key, starts=0)
    memory.remember("another table", "10.0.0.3", 41999, SigningKey.generate(), starts=4)
    again = NodeMemory(tmp_path).get(TABLE)
    assert again is not None and (again.host, again.port, again.starts) == ("10.0.0.3", 41234, 0)
    assert bytes(again.key) == bytes(key)
    assert (tmp_path / "nodes.json").stat().st_mode & 0o777 == 0o600  # the key signs the node's entries
    (tmp_path / "nodes.json").write_text('{"' + TABLE + '": {"host": 3}}')
    assert memory.get(TABLE) is None  # unreadable: the process is a new node, and the game goes on
    (tmp_path / "nodes.json").write_text("[garbage")
    assert memory.get(TABLE) is None


def test_a_process_started_again_as_the_same_node_comes_back_with_a_new_commitment() -> None:
    """A crashed process that comes back as the same node (``NodeMemory``) has lost its secret nonce:
    its join is a return, which gives the seat its new commitment; the same join again changes nothing."""
    table = seated()
    table.apply(TABLE, "start")
    again = {"player": BOB.public_key, "claim": BOB.seat_claim(TABLE, "bob-1")}
    notices = table.apply(
        "bob-1", "join", name="bob", bot=False, commit=commitment(b"after the crash"), **again
    )
    assert table.kinds(notices) == ["Returning", "Returned"]
    assert table.record.seats[1].node == "bob-1"
    assert table.record.seats[1].commitment == commitment(b"after the crash")
    (refused,) = table.apply(
        "bob-1", "join", name="bob", bot=False, commit=commitment(b"after the crash"), **again
    )
    assert isinstance(refused, Rejected) and "already seated" in refused.reason


def test_a_seat_taken_without_a_key_cannot_be_claimed() -> None:
    table = Table()
    table.join(TABLE)  # a test peer over a fake log: no key
    assert table.record.seats[0].player == b""
    assert table.kinds(table.join("other")) == ["Seated"]
