"""No one decides alone (issue 25): what the leader screened at its door, the record checks on apply.

A takeover needs the signed word of a quorum of the other voters that the seat's process is silent,
given a few entries before; a node without a seat writes nothing but its own join; one node's chat lines
are at most ``CHAT_LOG_BURST`` of the last ``CHAT_LOG_WINDOW`` entries. The record is pure: two peers
that apply the same entries refuse the same ones, for the same reason.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import msgpack

from kdm import entries
from kdm.driver import SteppedClock
from kdm.entries import SILENT, WITHHELD, Chat, Create, Done, Join, Reveal, Start, Takeover
from kdm.host.notes import Notes
from kdm.host.takeovers import (
    ALIVE,
    ASK_AFTER_MS,
    ASK_WORD,
    KEY_TIMEOUT_S,
    LONG_LIMIT_LOOKS,
    LONG_LOOK_SLACK_MS,
    LONG_QUESTIONS_LAPSE_MS,
    PROBE,
    QUESTIONS_LAPSE_MS,
    QUIET_WORK_EVERY_MS,
    QUIET_WORK_SLACK_MS,
    STALL_FACTOR,
    TAKEOVER_AFTER_S,
    WORD,
    Takeovers,
)
from kdm.manager import installed_plugins
from kdm.net.node import HEARTBEAT_MS
from kdm.notices import Rejected, Said, Started, TookOver
from kdm.record import CHAT_LOG_BURST, CHAT_LOG_WINDOW, SILENCE_FRESH_ENTRIES, TableRecord, commitment
from tests.helpers.signed import PLUGINS, Node, seated_table


def started(players: int) -> tuple[TableRecord, list[Node]]:
    record, nodes = seated_table(players)
    (notice,) = record.apply(nodes[0].write(Start, record.table))
    assert isinstance(notice, Started)
    return record, nodes


def word(signer: Node, record: TableRecord, seat: int, kind: str = SILENT, **changed: Any) -> list[Any]:
    """``signer``'s word that ``seat``'s process is ``kind``, as it would give it now (or with the
    ``position``, ``node``, ``hand`` or ``signed`` key ``changed``)."""
    position = changed.get("position", record.position)
    node = changed.get("node", record.seats[seat].process)
    hand = changed.get("hand", record.seats[seat].commitment)
    said = entries.silence_statement(record.table, seat, node, hand, position, kind)
    return [position, changed.get("signed", signer.keys).sign(said)]


def takeover(taker: Node, record: TableRecord, seat: int, silence: dict[str, Any], why: str = "") -> Any:
    return taker.write(
        Takeover, record.table, author=f"{taker.id}#{seat}", seat=seat, commit=commitment(b"x"),
        silence=silence, why=why,
    )  # fmt: skip


def both(records: list[TableRecord], entry: dict[str, Any]) -> str:
    """Apply ``entry`` at every record: each does the same; the one notice's reason, or its kind."""
    said = {
        tuple((type(n).__name__, getattr(n, "reason", "")) for n in record.apply(entry)) for record in records
    }
    assert len(said) == 1, said
    ((kind, reason),) = said.pop()
    return reason or kind


def test_a_quorum_of_the_other_voters_word_lets_a_takeover_in() -> None:
    record, nodes = started(4)
    silence = {node.id: word(node, record, 3) for node in nodes[:2]}  # 2 of seats 0-2
    (took,) = record.apply(takeover(nodes[0], record, 3, silence))
    assert isinstance(took, TookOver) and record.seats[3].node == f"{nodes[0].id}#3"


def test_the_leader_alone_is_refused_by_every_peer_with_one_reason() -> None:
    """Its own word only (and it gives it: it is a voter), the leader's takeover of a live seat: two
    peers that applied the same log refuse it for the same reason, and the seat stays its player's."""
    nodes = [Node(41000 + i) for i in range(3)]
    table = nodes[0].id
    log = [nodes[0].write(Create, table, name="t", players=3, options={}, plugins=PLUGINS)]
    log += [node.write(Join, table, commit=commitment(node.id.encode())) for node in nodes]
    log.append(nodes[0].write(Start, table))
    peers = [TableRecord(installed_plugins(), table=table) for _ in range(2)]
    for entry in log:
        for peer in peers:
            peer.apply(entry)
    alone = {nodes[0].id: word(nodes[0], peers[0], 1)}
    reason = both(peers, takeover(nodes[0], peers[0], 1, alone))
    assert reason == (
        f"{nodes[0].id}#1 cannot take over seat 1 alone: 2 of the 2 other voters must say its process"
        f" {nodes[1].id} is silent, 1 did"
    )
    assert [peer.seats[1].node for peer in peers] == [nodes[1].id] * 2


def test_the_word_of_the_seats_own_process_a_stranger_or_another_key_does_not_count() -> None:
    record, nodes = started(4)
    stranger = Node(42000)
    victim = nodes[3]
    silence = {
        victim.id: word(victim, record, 3),  # the seat's own process speaks of itself
        stranger.id: word(stranger, record, 3),  # no voter
        nodes[1].id: word(nodes[1], record, 3, signed=nodes[0].keys),  # in another's name
        nodes[2].id: word(nodes[2], record, 2),  # of another seat
    }
    (refused,) = record.apply(takeover(nodes[0], record, 3, silence))
    assert isinstance(refused, Rejected)
    assert "2 of the 3 other voters must say its process" in refused.reason and ", 0 did" in refused.reason
    assert f"{victim.id} is not one of them" in refused.reason
    assert f"{stranger.id} is not one of them" in refused.reason
    assert f"{nodes[1].id}'s word is not signed by its key for the seat as it stands" in refused.reason
    assert f"{nodes[2].id}'s word is not signed by its key for the seat as it stands" in refused.reason
    assert record.seats[3].node == victim.id


def test_a_word_kept_for_later_is_stale() -> None:
    record, nodes = started(3)
    silence = {node.id: word(node, record, 2) for node in nodes[:2]}
    given = record.position
    for _ in range(SILENCE_FRESH_ENTRIES):
        record.apply({"t": "nonsense"})  # any committed entry counts, a malformed one too
    (refused,) = record.apply(takeover(nodes[0], record, 2, silence))
    assert isinstance(refused, Rejected)
    assert f"word was given at entry {given}, not in the {SILENCE_FRESH_ENTRIES} before" in refused.reason
    fresh = {node.id: word(node, record, 2) for node in nodes[:2]}
    (took,) = record.apply(takeover(nodes[0], record, 2, fresh))
    assert isinstance(took, TookOver)


def test_a_word_on_the_seat_as_it_stood_before_its_commitment_moved_does_not_count() -> None:
    """The word names the seat's commitment: a player back commits anew, so a word kept from before
    cannot take the seat from them again (here the seat reveals, which moves it too)."""
    record, nodes = started(3)
    silence = {node.id: word(node, record, 2) for node in nodes[:2]}
    reveal = nodes[2].write(
        Reveal, record.table, shuffle=0, nonce=nodes[2].id.encode(), next_commit=commitment(b"n")
    )
    assert record.apply(reveal) == []  # the shuffle waits for the others' reveals
    (refused,) = record.apply(takeover(nodes[0], record, 2, silence))
    assert isinstance(refused, Rejected) and refused.reason.endswith(
        f"{nodes[1].id}'s word is not signed by its key for the seat as it stands"
    )


def test_a_word_that_a_seat_is_silent_does_not_let_it_be_taken_for_withheld_keys() -> None:
    record, nodes = started(3)
    silent = {node.id: word(node, record, 2) for node in nodes[:2]}
    (refused,) = record.apply(takeover(nodes[0], record, 2, silent, why="withheld its keys for 10 s"))
    assert isinstance(refused, Rejected) and f"is {WITHHELD}, 0 did" in refused.reason
    withheld = {node.id: word(node, record, 2, WITHHELD) for node in nodes[:2]}
    (took, *_voided) = record.apply(takeover(nodes[0], record, 2, withheld, why="withheld its keys for 10 s"))
    assert isinstance(took, TookOver) and 2 in record.barred


def test_at_a_table_of_two_voters_the_one_others_word_is_the_takers_own() -> None:
    """Two laptops, three seats: the founder's, the bot it started (its laptop's vote is the founder's)
    and the joiner's. Of the joiner's seat, the one other voter is the founder, which takes it over on
    its own word; as the stranded table does once told to go on without the joiner."""
    nodes = [Node(41000 + i) for i in range(3)]
    founder, bot, joiner = nodes
    table = founder.id
    record = TableRecord(installed_plugins(), table=table)
    record.apply(founder.write(Create, table, name="t", players=3, options={}, plugins=PLUGINS))
    for node in nodes:
        laptop = founder.id if node is bot else ""
        record.apply(
            node.write(Join, table, commit=commitment(node.id.encode()), bot=node is bot, laptop=laptop)
        )
    record.apply(founder.write(Start, table))
    assert record.silence_voters(2) == [founder.id] and record.silence_voters(1) == [founder.id, joiner.id]
    (refused,) = record.apply(takeover(founder, record, 2, {}))
    assert refused.reason.endswith(
        f"1 of the 1 other voters must say its process {joiner.id} is silent, 0 did"
    )
    (took,) = record.apply(takeover(founder, record, 2, {founder.id: word(founder, record, 2)}))
    assert isinstance(took, TookOver)


def test_after_the_survivors_went_on_without_the_others_the_survivors_word_is_enough() -> None:
    """Four laptops, three gone for good: the one left goes on without them (a forced configuration,
    committed in the log among the entries). The dead cannot give their word on each other, so the
    survivors' word alone lets each dead seat to a bot; a voter promoted again later counts again."""
    record, nodes = started(4)
    survivor, *dead = nodes
    assert record.silence_voters(3) == [survivor.id, dead[0].id, dead[1].id]
    mine = {survivor.id: word(survivor, record, 3)}
    (refused,) = record.apply(takeover(survivor, record, 3, mine))
    assert refused.reason.endswith(
        f"2 of the 3 other voters must say its process {dead[2].id} is silent, 1 did"
    )
    record.membership_changed("force", survivor.id, (survivor.id,))
    for seat in (1, 2, 3):
        assert record.silence_voters(seat) == [survivor.id]
        (took,) = record.apply(takeover(survivor, record, seat, {survivor.id: word(survivor, record, seat)}))
        assert isinstance(took, TookOver)
    record.membership_changed("add_voter", dead[0].id)
    assert record.forced_voters == {survivor.id, dead[0].id}


def test_a_node_without_a_seat_writes_nothing_but_its_own_join() -> None:
    record, _nodes = started(3)
    stranger = Node(42000)
    for entry in (stranger.write(Done, record.table), stranger.write(Chat, record.table, seat=0, text="hi")):
        (refused,) = record.apply(entry)
        assert refused.reason == (
            f"{stranger.id} holds no seat: a node without one proposes nothing but its own join"
        )
        assert record.apply(entry) == []  # judged once
    assert stranger.id not in record.done and record.chat == []


def test_one_nodes_chat_lines_are_at_most_a_share_of_the_last_entries() -> None:
    record, nodes = started(3)
    talker = nodes[1]
    for line in range(CHAT_LOG_BURST):
        (said,) = record.apply(talker.write(Chat, record.table, seat=1, text=f"line {line}"))
        assert isinstance(said, Said)
    (refused,) = record.apply(talker.write(Chat, record.table, seat=1, text="one too many"))
    assert refused.reason == (
        f"{talker.id}'s chat lines would be more than {CHAT_LOG_BURST} of the last {CHAT_LOG_WINDOW} entries"
    )
    (other,) = record.apply(nodes[2].write(Chat, record.table, seat=2, text="my turn"))
    assert isinstance(other, Said)  # another's lines are theirs to count
    for _ in range(CHAT_LOG_WINDOW - CHAT_LOG_BURST):
        record.apply({"t": "nonsense"})
    (again,) = record.apply(talker.write(Chat, record.table, seat=1, text="later"))
    assert isinstance(again, Said)


def follower_watch(record: TableRecord, nodes: list[Node], silent: list[float]) -> tuple[Any, Takeovers]:
    """A follower's seat watcher at ``record`` (seat 1's process, led by seat 0's), which has not heard
    any other process for ``silent[0]`` ms, and its host."""
    node = SimpleNamespace(
        node_id=nodes[1].id, silent_ms=lambda _node: silent[0], is_leader=False, leader=nodes[0].id
    )
    host = SimpleNamespace(
        record=record, node=node, out=[], clock=SteppedClock(), sign=nodes[1].keys.sign, table=record.table,
        behind=lambda: False, agents=[], seats_here=lambda: set(),
        fair=SimpleNamespace(work=lambda: None, next_ask_ms=lambda: math.inf),
        deck=SimpleNamespace(waiting_on=lambda _state, _awaiting: set()),
    )  # fmt: skip
    watch = Takeovers(host)  # type: ignore[arg-type]
    watch.watch(TAKEOVER_AFTER_S, host.clock.local_ms())
    return host, watch


def test_a_table_at_rest_says_nothing_of_who_is_alive() -> None:
    """Issue 'Light on the CPU': a seat watcher's looks at a started game whose seats are all heard send
    nothing (every follower told every other voter it was alive three times a second)."""
    record, nodes = started(4)
    host, watch = follower_watch(record, nodes, [0.0])
    for _ in range(10):
        host.clock.set(watch.next_look_ms)
        watch.tick(host.clock.local_ms())
    assert host.out == []


def asked(host: Any, watch: Takeovers, leader: Node, seat: int) -> list[str]:
    """The leader asks ``watch``'s voter whether ``seat``'s process is silent: what the voter sends
    back, as the kinds of its messages and to whom."""
    host.out.clear()
    watch.answer_word(leader.id, {"seat": seat, "node": host.record.seats[seat].process, "why": SILENT})
    return [f"{msgpack.unpackb(sent.data)['t']} to {sent.to}" for sent in host.out]


def test_a_voter_asked_about_a_seat_asks_its_process_and_says_it_is_silent_only_if_it_does_not_answer() -> (
    None
):
    """A follower hears only its leader: asked whether a seat's process is silent, it asks that process
    whether it is there (``PROBE``), asked again at each of the leader's asks; it gives its signed word
    only once that process has left its questions unanswered until the silence limit runs out (from
    when the leader asks, ``ASK_AFTER_MS`` into the silence: 0.6 s). A process that answers (anything
    heard from it since the first question) gets no word against it: a leader that would take a live
    seat over gets none from an honest voter."""
    assert ASK_AFTER_MS >= HEARTBEAT_MS + 200  # an answer to the leader's heartbeats missed, and more
    record, nodes = started(4)
    silent = [60_000.0]  # nothing heard from the other follower since the game started
    host, watch = follower_watch(record, nodes, silent)
    wait_ms = watch.probe_wait_ms()
    assert wait_ms == TAKEOVER_AFTER_S * 1000 - ASK_AFTER_MS
    seat_process = record.seats[2].process
    assert asked(host, watch, nodes[0], 2) == [f"{PROBE} to {seat_process}"]
    host.clock.set(host.clock.local_ms() + wait_ms / 2)
    assert asked(host, watch, nodes[0], 2) == [f"{PROBE} to {seat_process}"]
    host.clock.set(host.clock.local_ms() + wait_ms / 2)
    said = asked(host, watch, nodes[0], 2)
    assert said == [f"{PROBE} to {seat_process}", f"{WORD} to {nodes[0].id}"]
    assert watch.my_word(2, seat_process, SILENT) is not None

    # The same, but the process answers the first question: no word, and its silence counts anew.
    host, watch = follower_watch(record, nodes, silent)
    asked(host, watch, nodes[0], 2)
    host.clock.set(host.clock.local_ms() + wait_ms + 1)
    silent[0] = 2.0  # its answer came a moment after the question
    assert asked(host, watch, nodes[0], 2) == [f"{PROBE} to {seat_process}"]
    silent[0] = 60_000.0  # then nothing: the wait runs from the question after that answer
    host.clock.set(host.clock.local_ms() + wait_ms - 1)
    assert asked(host, watch, nodes[0], 2) == [f"{PROBE} to {seat_process}"]
    host.clock.set(host.clock.local_ms() + 2)
    assert asked(host, watch, nodes[0], 2)[-1] == f"{WORD} to {nodes[0].id}"


def test_questions_left_unanswered_long_ago_count_nothing_at_the_next_ask() -> None:
    """A process that died left this voter's questions unanswered; it came back since, and a follower
    hears nothing from another at rest. When the leader asks about it again, long after, the old
    questions count nothing: the voter asks anew and gives no word before the wait (a leader that asked
    at once would take a live seat on an honest voter's word)."""
    record, nodes = started(4)
    silent = [60_000.0]  # nothing heard from the other follower, then or since
    host, watch = follower_watch(record, nodes, silent)
    wait_ms = watch.probe_wait_ms()
    asked(host, watch, nodes[0], 2)
    host.clock.set(host.clock.local_ms() + wait_ms + 1)
    assert asked(host, watch, nodes[0], 2)[-1] == f"{WORD} to {nodes[0].id}"  # it was gone then
    host.clock.set(host.clock.local_ms() + QUESTIONS_LAPSE_MS + 1)  # no ask for a while
    assert asked(host, watch, nodes[0], 2) == [f"{PROBE} to {record.seats[2].process}"]
    host.clock.set(host.clock.local_ms() + wait_ms - 1)
    assert watch.my_word(2, record.seats[2].process, SILENT) is None
    assert asked(host, watch, nodes[0], 2) == [f"{PROBE} to {record.seats[2].process}"]


def test_a_process_asked_whether_it_is_there_says_it_is_alive() -> None:
    record, nodes = started(3)
    host = SimpleNamespace(record=record, out=[])
    Notes(host).received(nodes[0].id, msgpack.packb({"t": PROBE}))  # type: ignore[arg-type]
    assert [(sent.to, msgpack.unpackb(sent.data)) for sent in host.out] == [(nodes[0].id, {"t": ALIVE})]


def test_the_leader_asks_before_the_limit_and_the_voters_question_the_seat_until_it_runs_out() -> None:
    """The leader asks the voters once a seat has missed two answers to its heartbeats (``ASK_AFTER_MS``),
    at each look, and each voter questions that seat from then to the silence limit: the seat is taken
    as the limit runs out, not a wait later. While the limit is long (``KEY_TIMEOUT_S``, mid-round at a
    fair table), that is nearly all of it: a voter asked early by a leader that does not wait gives no
    word before."""
    record, nodes = started(4)
    in_play = [True]
    record.round_in_play = lambda: in_play[0]  # type: ignore[method-assign]
    silent = [60_000.0]
    host, watch = follower_watch(record, nodes, silent)
    long_wait_ms = KEY_TIMEOUT_S * 1000 - ASK_AFTER_MS
    assert watch.probe_wait_ms() == long_wait_ms
    # The leader asks at each look, each at its latest (``LONG_LOOK_SLACK_MS`` late, a hair more as a
    # real timer goes off): none of those waits is a lapse of the voter's questions.
    look_ms = watch.look_period_ms(TAKEOVER_AFTER_S, watch.limit_s) + LONG_LOOK_SLACK_MS + 1
    assert 2 * (look_ms - 1) <= LONG_QUESTIONS_LAPSE_MS  # and a Wi-Fi stall on the way is none either
    assert watch.questions_lapse_ms() == LONG_QUESTIONS_LAPSE_MS
    start = host.clock.local_ms()
    while host.clock.local_ms() - start < long_wait_ms:
        said = asked(host, watch, nodes[0], 2)
        assert said == [f"{PROBE} to {record.seats[2].process}"], host.clock.local_ms() - start
        host.clock.set(min(host.clock.local_ms() + look_ms, start + long_wait_ms))
    assert asked(host, watch, nodes[0], 2)[-1] == f"{WORD} to {nodes[0].id}"
    in_play[0] = False
    assert watch.probe_wait_ms() == TAKEOVER_AFTER_S * 1000 - ASK_AFTER_MS
    assert watch.questions_lapse_ms() == QUESTIONS_LAPSE_MS  # two hiccups 1-2 s apart: not one silence

    # The leader's look: seat 3's process has missed two answers to the heartbeats: the voters are
    # asked (and, at the next looks, it is not taken before the long limit runs out).
    seat_3_silent_ms = ASK_AFTER_MS + 1
    leader_node = SimpleNamespace(
        node_id=nodes[0].id, silent_ms=lambda node: seat_3_silent_ms if node == nodes[3].id else 0.0,
        is_leader=True, leader=nodes[0].id,
    )  # fmt: skip
    in_play[0] = True
    leader = SimpleNamespace(
        **{
            **vars(host),
            "node": leader_node,
            "out": [],
            "sign": nodes[0].keys.sign,
            "agent": lambda _id: None,
        }
    )
    look = Takeovers(leader)  # type: ignore[arg-type]
    look.leading_since = look.led_since = -math.inf
    look.look_at_seats(TAKEOVER_AFTER_S, late=False)
    sent = sorted((msgpack.unpackb(item.data)["t"], item.to) for item in leader.out)
    assert sent == sorted([(PROBE, nodes[3].id), (ASK_WORD, nodes[1].id), (ASK_WORD, nodes[2].id)])
    assert look.words[3].silence == {}  # not its own word yet: the long limit has not run out here


def test_while_the_silence_limit_is_long_the_seat_watcher_looks_half_as_often() -> None:
    """Issue 'Light on the CPU', item 2: mid-round at a fair table a seat may be silent for
    ``KEY_TIMEOUT_S`` before it is taken over, and a look three times a second is more than that
    needs: the leader's watcher looks half as often there, and as often as before once the round is
    over."""
    quarter_ms = TAKEOVER_AFTER_S * 250
    assert LONG_LIMIT_LOOKS * quarter_ms <= KEY_TIMEOUT_S * 1000  # a fair round's limit is a long one
    record, nodes = started(3)
    in_play = [True]
    record.round_in_play = lambda: in_play[0]  # type: ignore[method-assign]
    host, watch = follower_watch(record, nodes, [0.0])
    host.node.is_leader, host.node.leader = True, host.node.node_id  # a leader's watcher looks

    def looks(count: int) -> list[float]:
        """The wait before each of the next ``count`` looks."""
        seen = []
        for _ in range(count):
            before = host.clock.local_ms()
            host.clock.set(watch.next_look_ms)
            watch.tick(host.clock.local_ms())
            seen.append(host.clock.local_ms() - before)
        return seen

    assert watch.limit_s == KEY_TIMEOUT_S
    # The first look was set before the limit was read; then every other quarter.
    assert looks(4) == [quarter_ms, 2 * quarter_ms, 2 * quarter_ms, 2 * quarter_ms]
    in_play[0] = False
    assert watch.limit_s == TAKEOVER_AFTER_S
    assert looks(3) == [2 * quarter_ms, quarter_ms, quarter_ms]
    assert host.out == []


def test_while_the_silence_limit_is_long_a_leaders_look_may_wait_for_its_next_heartbeats_answers() -> None:
    """Issue 'Light on the CPU', item 2: mid-round at a fair table (a limit of ``KEY_TIMEOUT_S``) the
    leader's look may come ``LONG_LOOK_SLACK_MS`` late (``slack_ms``: the peer does it at the first
    message heard once due, at rest the answers to the leader's next heartbeat), never past a key due
    to be asked for; a look that late, or a little more, is no stall of the process, one later than
    ``STALL_FACTOR`` times its wait and slack is. With the short limit a look keeps its time."""
    assert LONG_LOOK_SLACK_MS >= HEARTBEAT_MS  # a heartbeat's answers come within it at rest
    quarter_ms = TAKEOVER_AFTER_S * 250
    record, nodes = started(3)
    in_play = [True]
    record.round_in_play = lambda: in_play[0]  # type: ignore[method-assign]
    host, watch = follower_watch(record, nodes, [0.0])
    ask_at = [math.inf]
    host.fair = SimpleNamespace(work=lambda: None, next_ask_ms=lambda: ask_at[0])

    def look(after_ms: float) -> None:
        host.clock.set(watch.looked_ms + after_ms)
        watch.tick(host.clock.local_ms())

    look(QUIET_WORK_EVERY_MS)  # a follower's look, the limit long: no slack kept for when it leads
    host.node.is_leader, host.node.leader = True, host.node.node_id
    watch.leader_changed()
    assert watch.due_ms() == host.clock.local_ms() and watch.slack_ms() == 0.0  # a new leader: at once
    look(quarter_ms)
    assert watch.due_ms() == watch.looked_ms + 2 * quarter_ms and watch.slack_ms() == LONG_LOOK_SLACK_MS
    ask_at[0] = watch.due_ms() + 100.0  # a key to ask for just after: the look waits no later
    assert watch.slack_ms() == 100.0
    ask_at[0] = watch.due_ms() - 1.0
    assert watch.slack_ms() == 0.0
    ask_at[0] = math.inf
    look(2 * quarter_ms + LONG_LOOK_SLACK_MS)  # at its latest
    look(STALL_FACTOR * 2 * quarter_ms + 1)  # late for its wait alone, not with its slack
    assert watch.stalled == (-math.inf, 0.0)
    stall_ms = STALL_FACTOR * (2 * quarter_ms + LONG_LOOK_SLACK_MS) + 1
    look(stall_ms)
    assert watch.stalled == (host.clock.local_ms(), stall_ms)
    in_play[0] = False
    look(2 * quarter_ms)
    assert watch.due_ms() == watch.looked_ms + quarter_ms and watch.slack_ms() == 0.0
    look(STALL_FACTOR * quarter_ms + 1)  # the short limit's looks: on time, and a stall past twice that
    assert watch.stalled == (host.clock.local_ms(), STALL_FACTOR * quarter_ms + 1)


def test_a_follower_looks_at_the_seats_only_when_its_deck_has_work_due_and_at_once_when_it_leads() -> None:
    """Issue 'Light on the CPU': a follower takes no seat, so its watcher wakes only for its deck's work
    at a quiet table: a key to ask for when ``next_ask_ms`` says (the rest of that work follows what
    comes in), else every ``QUIET_WORK_EVERY_MS`` as a net (every follower looked every 0.3 s). Made
    leader (``leader_changed``), it looks at once, and takes that first look for no stall of its own. The
    net alone may come up to ``QUIET_WORK_SLACK_MS`` late (``slack_ms``), at the process's next wake-up."""
    record, nodes = started(4)
    host, watch = follower_watch(record, nodes, [0.0])
    worked: list[float] = []
    ask_at = [math.inf]
    host.fair = SimpleNamespace(
        work=lambda: worked.append(host.clock.local_ms()), next_ask_ms=lambda: ask_at[0]
    )
    start = host.clock.local_ms()  # when the watch began
    assert watch.due_ms() == start + QUIET_WORK_EVERY_MS
    # only the net is due: it may wait for a wake-up the process has anyway (the next heartbeat)
    assert watch.slack_ms() == QUIET_WORK_SLACK_MS
    ask_at[0] = start + QUIET_WORK_EVERY_MS + 200.0  # an ask just after the net: the net waits no later
    assert watch.due_ms() == start + QUIET_WORK_EVERY_MS and watch.slack_ms() == 200.0
    ask_at[0] = start + 700.0  # a key missing since before: asked for at its time, not at the net's
    assert watch.due_ms() == start + 700.0 and watch.slack_ms() == 0.0
    host.clock.set(start + 699.0)
    watch.tick(host.clock.local_ms())
    assert worked == []
    host.clock.set(start + 700.0)
    watch.tick(host.clock.local_ms())
    assert worked == [start + 700.0]
    # An ask the work left due (its process catching up: the work waited) waits for the net, or the
    # host would tick, and work, at once again and again.
    assert watch.due_ms() == start + 700.0 + QUIET_WORK_EVERY_MS
    ask_at[0] = math.inf
    assert watch.due_ms() == start + 700.0 + QUIET_WORK_EVERY_MS
    host.clock.set(watch.due_ms())
    watch.tick(host.clock.local_ms())
    assert worked == [start + 700.0, start + 700.0 + QUIET_WORK_EVERY_MS]
    host.clock.set(start + 5_000.0)  # far from the last look, as a follower's looks are
    host.node.is_leader = True
    watch.leader_changed()
    assert watch.due_ms() <= host.clock.local_ms()  # at once
    watch.tick(host.clock.local_ms())
    assert watch.led_since == host.clock.local_ms() and watch.stalled == (-math.inf, 0.0)
    assert watch.due_ms() == host.clock.local_ms() + TAKEOVER_AFTER_S * 250  # a leader's quarter
    assert watch.slack_ms() == 0.0  # a leader's look takes seats over: on time
    assert host.out == []
