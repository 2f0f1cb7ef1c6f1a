"""A table with a PIN admits only joiners that prove it (issue 12), and the PIN never travels.

The exchange itself (``kdm.net.admission``) is tested alone first, then nodes on the memory network: a
joiner with the PIN becomes a learner and reads the log; one without it, or with a wrong one, is told
so in one line and gets nothing of the table; a stranger replaying or forging confirmations gets no
further, each of its guesses costs it an exchange and is counted, and after a few the whole table
checks one confirmation per interval, at its leader, a friend's before a guesser's (issue 25)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from kdm.net.admission import (
    DOUBLING_EVERY,
    EXCHANGES_PER_S,
    FREE_WRONG_PINS,
    GUESS_MEMORY_S,
    MAX_INTERVAL_S,
    SLOWED_INTERVAL_S,
    GuessBackoff,
    Prover,
    Verifier,
    check_pin,
)
from kdm.net.clock import monotonic_ms
from kdm.net.node import Node, node_codec
from kdm.net.raft_log import MemoryStorage
from kdm.net.transport import MemoryNetwork, MemoryTransport
from kdm.testing import run_virtual

KDM = [sys.executable, "-m", "kdm"]
LOOPBACK = "127.0.0.1"
TABLE = "kitchen-table"
PIN = "73915046"


def test_the_right_pin_is_proved() -> None:
    joiner, member = Prover(TABLE, "joiner", PIN), Verifier(TABLE, "member", PIN)
    answer = member.answer("joiner", joiner.offer)
    assert isinstance(answer, bytes) and len(answer) == 32  # a point, and nothing else
    confirmation = joiner.confirm("member", answer)
    assert confirmation is not None
    assert member.confirmed("joiner", joiner.offer, confirmation) is True
    assert member.waiting("joiner")
    assert member.check_next() == ("joiner", True)
    assert not member.holds and member.wrong == 0


def test_a_wrong_pin_is_known_only_to_the_member_and_costs_one_guess() -> None:
    """The joiner confirms first: a guesser cannot tell a right answer from a wrong one, and learns
    its guess was wrong only from the member, which counts it."""
    member = Verifier(TABLE, "member", PIN)
    guesser = Prover(TABLE, "joiner", "73915047")
    answer = member.answer("joiner", guesser.offer)
    assert isinstance(answer, bytes)
    confirmation = guesser.confirm("member", answer)
    assert confirmation is not None  # nothing here says whether the guess was right
    assert member.confirmed("joiner", guesser.offer, confirmation) is True
    assert member.confirmed("joiner", guesser.offer, bytes(32)) is False  # the first one counts
    assert member.check_next() == ("joiner", False)
    assert member.wrong == 1
    # One exchange takes one confirmation: the next must come with a new exchange.
    assert member.confirmed("joiner", guesser.offer, confirmation) is None


def test_a_joiner_that_guessed_wrong_waits_behind_one_that_did_not() -> None:
    member = Verifier(TABLE, "member", PIN)
    guesser, friend = Prover(TABLE, "guesser", "0000"), Prover(TABLE, "friend", PIN)
    for _ in range(2):
        guesser = Prover(TABLE, "guesser", "0000")
        answer = member.answer("guesser", guesser.offer)
        assert isinstance(answer, bytes)
        member.confirmed("guesser", guesser.offer, guesser.confirm("member", answer) or b"")
        if member.wrong == 0:
            assert member.check_next() == ("guesser", False)
    answer = member.answer("friend", friend.offer)
    assert isinstance(answer, bytes)
    member.confirmed("friend", friend.offer, friend.confirm("member", answer) or b"")
    assert member.check_next() == ("friend", True)  # held after the guesser's, checked first
    assert member.check_next() == ("guesser", False)
    assert member.check_next() is None


def test_a_confirmation_is_bound_to_the_table_the_joiner_and_the_member() -> None:
    joiner = Prover(TABLE, "joiner", PIN)
    for other, name in (
        (Verifier("another-table", "member", PIN), "joiner"),
        (Verifier(TABLE, "member", PIN), "someone-else"),
    ):
        answer = other.answer(name, joiner.offer)
        assert isinstance(answer, bytes)
        confirmation = joiner.confirm("member", answer)
        assert confirmation is not None
        assert other.confirmed(name, joiner.offer, confirmation) is True
        assert other.check_next() == (name, False)


def test_an_offer_that_is_no_point_is_refused_and_a_repeated_offer_is_not_a_new_guess() -> None:
    member = Verifier(TABLE, "member", PIN, exchanges_per_s=2)
    assert member.answer("joiner", b"\x01" * 31) == "its offer is not a point of the group"
    assert member.answer("joiner", bytes(32)) == "its offer is not a point of the group"
    joiner = Prover(TABLE, "joiner", PIN)
    first = member.answer("joiner", joiner.offer)
    assert member.answer("joiner", joiner.offer) == first  # said hello again before the answer came
    # Fresh offers are fresh guesses: the member answers only so many a second.
    answers = [member.answer(f"guesser{i}", Prover(TABLE, f"guesser{i}", "0000").offer) for i in range(4)]
    assert sum(isinstance(answer, str) for answer in answers) >= 4 - 2
    assert joiner.confirm("member", b"\x01" * 32) is None  # an answer that is no point


def test_the_table_slows_down_after_a_few_wrong_guesses_and_more_after_many() -> None:
    backoff = GuessBackoff()
    now = 1_000_000.0
    for _ in range(FREE_WRONG_PINS - 1):
        backoff.wrong("10.0.0.7", now)
        assert not backoff.slowed(now) and backoff.wait_ms(now) == 0
    backoff.wrong("10.0.0.7", now)
    assert backoff.slowed(now)
    assert backoff.wait_ms(now) == SLOWED_INTERVAL_S * 1000
    assert backoff.wait_ms(now + SLOWED_INTERVAL_S * 1000) == 0
    backoff.checked(now + 5000)  # a right PIN checked: the next waits its turn too
    assert backoff.wait_ms(now + 5000) == SLOWED_INTERVAL_S * 1000
    for _ in range(DOUBLING_EVERY):
        backoff.wrong("10.0.0.8", now)
    assert backoff.interval_s(now) == 2 * SLOWED_INTERVAL_S
    for _ in range(DOUBLING_EVERY * 10):
        backoff.wrong("10.0.0.8", now)
    assert backoff.interval_s(now) == MAX_INTERVAL_S
    assert (backoff.tried("10.0.0.7", now), backoff.tried("10.0.0.9", now)) == (FREE_WRONG_PINS, 0)
    later = now + GUESS_MEMORY_S * 1000
    assert not backoff.slowed(later) and backoff.tried("10.0.0.7", later) == 0  # forgotten


@pytest.mark.parametrize("pin", ["123", "1234567890123", "12a4", "", "١٢٣٤"])
def test_a_pin_is_four_to_twelve_digits(pin: str) -> None:
    with pytest.raises(ValueError, match="4 to 12 digits"):
        check_pin(pin)
    assert check_pin("0042") == "0042"


# --- nodes ------------------------------------------------------------------------------------------


def address(node_id: str) -> str:
    return f"memory://{node_id}"


class Table:
    """A founder with a PIN on the memory network, leading alone, and the joiners that knock."""

    def __init__(self, network: MemoryNetwork, pin: str | None = PIN) -> None:
        self.network = network
        self.founder = Node(network.transport("founder:1"), TABLE, MemoryStorage(), voters=("founder:1",),
                            address_of=address, pin=pin)  # fmt: skip
        self.refusals: dict[str, list[str]] = {}

    async def start(self) -> None:
        await self.founder.transport.start()
        await self.founder.start()
        self.founder.propose(b"the founder's first entry")

    async def joiner(self, name: str, pin: str | None, contact: str = "founder:1") -> Node:
        transport = self.network.transport(name)
        await transport.start()
        node = Node(transport, TABLE, MemoryStorage(), voters=("founder:1",), address_of=address, pin=pin)
        self.refusals[name] = []
        node.on_refused = self.refusals[name].append
        await node.start(contact=contact)
        return node


async def until(condition: Callable[[], bool], limit_s: float = 5.0) -> bool:
    """Whether ``condition`` came true within ``limit_s`` of virtual time."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit_s
    while not condition():
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


def test_a_joiner_with_the_pin_reads_the_log_and_one_without_gets_nothing() -> None:
    async def scene() -> None:
        network = MemoryNetwork()
        table = Table(network)
        await table.start()
        friend = await table.joiner("friend:2", PIN)
        stranger = await table.joiner("stranger:3", None)
        assert await until(lambda: friend.raft.last_index >= 1 and bool(table.refusals["stranger:3"]))
        assert friend.node_id in table.founder.raft.learners
        assert table.refusals == {
            "friend:2": [],
            "stranger:3": ["the table asks for a PIN: give it with --pin"],
        }
        await until(lambda: False, 2.0)  # the stranger keeps knocking for a while: still nothing
        assert stranger.node_id not in table.founder.members
        assert stranger.raft.last_index == 0
        await asyncio.gather(friend.stop(), stranger.stop(), table.founder.stop())

    run_virtual(scene())


def test_a_wrong_pin_is_refused_in_one_line_and_gets_nothing() -> None:
    async def scene() -> None:
        table = Table(MemoryNetwork())
        await table.start()
        guesser = await table.joiner("guesser:2", "73915047")
        assert await until(lambda: bool(table.refusals["guesser:2"]))
        assert table.refusals["guesser:2"] == ["the table refused the PIN: it is not this table's PIN"]
        assert guesser.node_id not in table.founder.members
        assert guesser.raft.last_index == 0
        await asyncio.gather(guesser.stop(), table.founder.stop())

    run_virtual(scene())


def test_a_table_without_a_pin_takes_a_joiner_that_offers_one() -> None:
    async def scene() -> None:
        table = Table(MemoryNetwork(), pin=None)
        await table.start()
        friend = await table.joiner("friend:2", PIN)
        assert await until(lambda: friend.raft.last_index >= 1)
        await asyncio.gather(friend.stop(), table.founder.stop())

    run_virtual(scene())


def test_the_pin_never_travels() -> None:
    """Every byte between a founder and a joiner that proves the PIN, searched for it."""
    seen: list[bytes] = []

    class Recording(MemoryNetwork):
        def _send(self, sender: str, address: str, data: bytes) -> None:
            seen.append(data)
            super()._send(sender, address, data)

    async def scene() -> None:
        table = Table(Recording())
        await table.start()
        friend = await table.joiner("friend:2", PIN)
        assert await until(lambda: friend.node_id in table.founder.raft.learners)
        await asyncio.gather(friend.stop(), table.founder.stop())

    run_virtual(scene())
    assert any(b"offer" in data for data in seen) and any(b"answer" in data for data in seen)
    assert not any(PIN.encode() in data for data in seen)


def test_forged_and_replayed_confirmations_get_a_stranger_nowhere() -> None:
    """A stranger replays a friend's whole hello (offer and confirmation) under its own id, then sends
    offers with made-up confirmations: it is never a member, and each exchange was one wrong guess,
    the fourth checked only once the table's backoff lets it."""

    async def scene() -> None:
        network = MemoryNetwork()
        table = Table(network)
        await table.start()
        friend = await table.joiner("friend:2", PIN)
        assert await until(lambda: friend.node_id in table.founder.raft.learners)
        stranger = network.transport("stranger:3")
        await stranger.start()
        proof = next(iter(friend._proofs.values()))
        assert isinstance(friend._prover, Prover)
        for _ in range(2):  # first an exchange is opened for that offer, then the replay is a guess
            send(stranger, "hello", {"node": "stranger:3", "offer": friend._prover.offer, "proof": proof})
            await until(lambda: False, 0.3)
        for guess in range(3):
            offer = Prover(TABLE, "stranger:3", f"{guess:04d}").offer
            send(stranger, "hello", {"node": "stranger:3", "offer": offer})
            await until(lambda: False, 0.3)
            send(stranger, "hello", {"node": "stranger:3", "offer": offer, "proof": bytes(32)})
            await until(lambda: False, 0.3)
        assert "stranger:3" not in table.founder.members
        verifier = table.founder._verifier
        assert verifier is not None
        # The replay and two guesses were checked at once, and slowed the table: the third waits.
        assert verifier.wrong == FREE_WRONG_PINS == 3 and verifier.waiting("stranger:3")
        loop = asyncio.get_running_loop()
        slowed_at = loop.time()
        assert await until(lambda: verifier.wrong == 4, SLOWED_INTERVAL_S + 1)
        assert loop.time() - slowed_at >= SLOWED_INTERVAL_S - 1  # the third check was 0.6 s before
        assert "stranger:3" not in table.founder.members
        await asyncio.gather(stranger.close(), friend.stop(), table.founder.stop())

    run_virtual(scene())


def send(transport: MemoryTransport, kind: str, body: dict[str, object], to: str = "founder:1") -> None:
    transport.connect(to, address(to))
    transport.send(to, node_codec(TABLE).encode(transport.node_id, kind, body))


def test_only_the_leader_checks_pins_and_its_wrong_guesses_slow_every_member_who_says_so() -> None:
    """A stranger knocks at a spectator (a member too): it is sent to the leader, which alone checks PINs,
    so knocking at every member at once earns no more turns. The leader tells the spectator of each wrong
    guess, both say who guesses, and once slowed the leader checks one confirmation per interval, a
    friend's before the stranger's, though the friend knocked at the spectator's door."""

    async def scene() -> None:
        network = MemoryNetwork()
        table = Table(network)
        await table.start()
        spectator = await table.joiner("spectator:2", PIN)
        assert await until(lambda: spectator.node_id in table.founder.raft.learners)
        said: dict[str, list[tuple[str, int, float]]] = {"founder": [], "spectator": []}
        table.founder.on_pin_guesses = lambda *guesses: said["founder"].append(guesses)
        spectator.on_pin_guesses = lambda *guesses: said["spectator"].append(guesses)
        stranger = network.transport("10.0.0.7:3")
        await stranger.start()
        codec = node_codec(TABLE)

        async def answer() -> dict[str, object]:
            sender, payload = await asyncio.wait_for(stranger.recv(), 1.0)
            return dict(codec.decode(payload, claimed_sender=sender).body)

        offer = Prover(TABLE, "10.0.0.7:3", "0000").offer
        send(stranger, "hello", {"node": "10.0.0.7:3", "offer": offer}, to="spectator:2")
        assert (await answer())["verdict"] == "ask" and spectator._verifier is not None
        send(stranger, "hello", {"node": "10.0.0.7:3", "offer": offer, "proof": bytes(32)}, to="spectator:2")
        assert (await answer())["leader"] == "founder:1" and spectator._verifier.wrong == 0
        for guess in range(FREE_WRONG_PINS):
            offer = Prover(TABLE, "10.0.0.7:3", f"{guess:04d}").offer
            send(stranger, "hello", {"node": "10.0.0.7:3", "offer": offer})
            assert (await answer())["answer"]
            send(stranger, "hello", {"node": "10.0.0.7:3", "offer": offer, "proof": bytes(32)})
            assert (await answer())["verdict"] == "wrong"
            await until(lambda: False, 0.6)  # within the table's PIN exchanges a second
        founder_verifier = table.founder._verifier
        assert founder_verifier is not None and founder_verifier.wrong == FREE_WRONG_PINS
        told = [("10.0.0.7", FREE_WRONG_PINS, SLOWED_INTERVAL_S)]
        assert await until(lambda: said == {"founder": told, "spectator": told})
        # The leader holds the stranger's next guess and a friend's, who knocked at the spectator's.
        offer = Prover(TABLE, "10.0.0.7:3", "0003").offer
        send(stranger, "hello", {"node": "10.0.0.7:3", "offer": offer})
        assert (await answer())["answer"]
        send(stranger, "hello", {"node": "10.0.0.7:3", "offer": offer, "proof": bytes(32)})
        assert (await answer())["verdict"] == "held"
        friend = await table.joiner("friend:4", PIN, contact="spectator:2")
        assert await until(lambda: founder_verifier.waiting("friend:4"))
        assert friend._pin_leader == "founder:1"  # the spectator sent it there (it might not know it)
        assert founder_verifier.waiting("10.0.0.7:3") and founder_verifier.wrong == FREE_WRONG_PINS
        assert await until(lambda: friend.node_id in table.founder.raft.learners, SLOWED_INTERVAL_S + 1)
        assert founder_verifier.waiting("10.0.0.7:3")  # the friend went first, the stranger waits on
        # The spectator heard of that turn too: were it to lead now, it would wait as long.
        assert await until(
            lambda: spectator._backoff.wait_ms(monotonic_ms()) > (SLOWED_INTERVAL_S - 1) * 1000
        )
        assert await until(lambda: founder_verifier.wrong == FREE_WRONG_PINS + 1, SLOWED_INTERVAL_S + 1)
        assert spectator._verifier.wrong == 0  # it checked none
        await asyncio.gather(stranger.close(), friend.stop(), spectator.stop(), table.founder.stop())

    run_virtual(scene())


def test_a_seated_player_lets_a_named_friend_in_while_a_stranger_slows_the_table() -> None:
    """A stranger's wrong guesses slow the table; a friend knocks, named, and waits for the leader's
    check. Every voter hears who waits at the door, and the other seated player lets the friend in at
    once, without the check. A stranger's word is not enough: it cannot let itself in."""

    async def scene() -> None:
        network = MemoryNetwork()
        table = Table(network)
        await table.start()
        player = await table.joiner("player:2", PIN)
        assert await until(lambda: player.node_id in table.founder.raft.learners)
        assert table.founder.promote(player.node_id)
        assert await until(lambda: player.node_id in player.raft.voters and player.raft.leader is not None)
        door: list[tuple[str, str, int, bool]] = []
        player.on_door = lambda *news: door.append(news)
        stranger = network.transport("10.0.0.7:3")
        await stranger.start()
        for guess in range(FREE_WRONG_PINS + 1):
            offer = Prover(TABLE, "10.0.0.7:3", f"{guess:04d}").offer
            send(stranger, "hello", {"node": "10.0.0.7:3", "offer": offer})
            await until(lambda: False, 0.6)
            send(stranger, "hello", {"node": "10.0.0.7:3", "offer": offer, "proof": bytes(32)})
            await until(lambda: False, 0.6)
        verifier = table.founder._verifier
        assert verifier is not None and verifier.wrong == FREE_WRONG_PINS and verifier.waiting("10.0.0.7:3")
        send(stranger, "let_in", {"joiner": "10.0.0.7:3"})  # its own word: dropped
        transport = network.transport("friend:4")
        await transport.start()
        friend = Node(transport, TABLE, MemoryStorage(), voters=("founder:1",), address_of=address, pin=PIN)
        friend.door_name = "Bob"
        await friend.start(contact="founder:1")
        assert await until(lambda: ("friend:4", "Bob", 0, False) in door)
        assert ("10.0.0.7:3", "", FREE_WRONG_PINS, False) in door  # waiting too, with its wrong guesses
        assert player.let_in("friend:4")
        assert await until(lambda: friend.node_id in table.founder.raft.learners, 2.0)  # not a turn of 20 s
        assert ("friend:4", "", 0, True) in door
        assert "10.0.0.7:3" not in table.founder.members and verifier.waiting("10.0.0.7:3")
        assert not friend.let_in("10.0.0.7:3")  # a spectator's kdm does not vote: it lets no one in
        await asyncio.gather(stranger.close(), friend.stop(), player.stop(), table.founder.stop())

    run_virtual(scene())


def test_a_flood_of_offers_is_answered_a_few_a_second() -> None:
    async def scene() -> None:
        network = MemoryNetwork()
        table = Table(network)
        await table.start()
        flooder = network.transport("flooder:3")
        await flooder.start()
        for guess in range(EXCHANGES_PER_S * 5):
            offer = Prover(TABLE, "flooder:3", f"{guess:04d}").offer
            send(flooder, "hello", {"node": "flooder:3", "offer": offer})
        answers = 0
        while True:
            try:
                await asyncio.wait_for(flooder.recv(), 0.5)
            except asyncio.TimeoutError:
                break
            answers += 1
        assert 1 <= answers <= EXCHANGES_PER_S * 2  # the flood may straddle a second
        await asyncio.gather(flooder.close(), table.founder.stop())

    run_virtual(scene())


# --- real processes ---------------------------------------------------------------------------------


@pytest.mark.processes
def test_processes_without_the_pin_are_told_in_one_line_and_with_it_play(tmp_path: Path) -> None:
    """``kdm host --pin`` on 127.0.0.1 (its bot gets the PIN from it); joiners without it and with a
    wrong one leave with one line and status 2, one with it takes the last seat and the game ends."""
    host_report, joiner_report = tmp_path / "host.json", tmp_path / "joiner.json"
    host = subprocess.Popen(
        [*KDM, "host", "--players", "3", "--bots", "1", "--as-bot", "greedy", "--headless", "--no-advertise",
         "--interface", LOOPBACK, "--option", "rounds=2", "--pin", PIN, "--report", str(host_report),
         "--data-dir", str(tmp_path / "host")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert host.stdout is not None
        contact = host.stdout.readline().decode().split()[2]

        def join(*flags: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [*KDM, "join", contact, "--as-bot", "greedy", "--headless", "--interface", LOOPBACK,
                 "--data-dir", str(tmp_path / "joiner"), *flags],
                capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                env={k: v for k, v in os.environ.items() if k != "KDM_PIN"},
            )  # fmt: skip

        without = join()
        assert (without.returncode, without.stderr.strip()) == (
            2, "kdm join: error: the table asks for a PIN: give it with --pin"
        )  # fmt: skip
        wrong = join("--pin", "73915047")
        assert (wrong.returncode, wrong.stderr.strip()) == (
            2, "kdm join: error: the table refused the PIN: it is not this table's PIN"
        )  # fmt: skip
        right = join("--pin", PIN, "--report", str(joiner_report))
        assert right.returncode == 0, right.stderr[-2000:]
        host.communicate(timeout=120)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    assert host.returncode == 0
    digests = {json.loads(report.read_text())["digest"] for report in (host_report, joiner_report)}
    assert len(digests) == 1 and None not in digests


@pytest.mark.processes
def test_a_bad_pin_is_one_line_and_status_2() -> None:
    done = subprocess.run([*KDM, "host", "--headless", "--pin", "12"], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)  # fmt: skip
    assert (done.returncode, done.stderr) == (
        2,
        "kdm host: error: --pin: '12' is not a PIN: a PIN is 4 to 12 digits\n",
    )
