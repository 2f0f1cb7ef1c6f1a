"""Modified ``kdm`` clients for tests/test_adversary.py: kdm's own code with a key of its own, patched
before kdm's own command line runs. A tempted friend or a stranger on the LAN runs exactly this kind
of program, not a mock of one.

    python tests/modified_clients.py ROLE KDM-ARGUMENTS...

- ``cheat``: a seated player's client (``join``). Each press that reacts to another claims a reaction time
  no person has; once the leader's clock is one the others know (``CLOCK_SETTLE_MS``: until then the
  leader lets any press time through, by design), every other one instead reacts to nothing and claims a
  press time seconds early (which alone would put it first), and so does the first window it would open.
  It opens a window at a checkpoint, combo or not, to have a face to reveal (its hand shown, or a card
  drawn for its false slap: a round has one window, and the deal may give it no other), and one it forges
  the press of; no more: the others open the rest, and it forges its way into them. Each face it must
  reveal, it first lies about. Once the game runs, it writes a slap for another seat in its player's name
  and in its own, and ``FORGED_DONES`` ``done`` entries in the other players' names; it sends every member
  a takeover of a live seat and membership changes (a seated voter removed, ghost voters added).
- ``stranger``: a spectator (``join --watch``, so a learner, which reads the whole log). Once the game
  runs, it sends every member what a learner may not propose (a slap in a player's name, a takeover,
  ``done`` entries, membership changes), raft messages only a leader or a candidate sends and a term
  ahead, and, over sockets of its own with its key: a message under another member's id, a hello from
  an id that is no address (``garbage``), and "which table?" under ``IDENTITIES`` ids.
- ``usurper``: a seated player's client that forges raft messages as the voter it is (issue 25), once the
  game runs: an append of a term nobody elected it in, to one follower, carrying a chat line it
  signed, a takeover of a live seat and four ghost voters (first without an election certificate,
  then with one it made of its own vote and ghosts' votes); then heartbeats of that term to every
  member for ``FLOOD_S`` (every other one with the made-up certificate), as if it led; then answers
  of a newer term to the leader, as if it had moved on, for ``FLOOD_S`` more.
- ``forker``: the founder's client (so the leader at first) that, once the game runs, sends two
  followers two different entries for the same next index, each append signed as the leader signs
  (a chat line in its player's name, one text for each), then goes on as if nothing happened.
- ``ghost-maker``: the founder's client (so the leader at first) that, once the game runs and every
  seat votes, makes a key it made up a voter (``add_voter``), with no approval but its own: what a leader
  needs to become a quorum of its own with a few such ghosts, or to give two honest laptops two logs.
- ``staller``: the founder's client (so the leader at first) that, once the game runs and every seat
  votes, takes nothing the others give it (its node's screen refuses every proposal forwarded or
  relayed to it) while it goes on heartbeating as a healthy leader does: the table would stand still
  for as long as it liked, with nothing signed to show for it.
- ``edge-relayer``: a seated player's client that, once the game runs under the founder's lead and every
  seat votes, relays presses timed ``EDGE_MS`` ago (just inside the voters' relay bound, 700 ms) to every
  other voter, ``EDGE_RELAYS_PER_S`` a second for ``EDGE_S`` (slaps for the next seat in its own name,
  which the record refuses: the relays alone are the attack), and distrusts the leader itself all along:
  a leader whose radio hiccups (the test holds what is sent to it for a moment) once refused those as
  too old, and every voter that watched them, with the cheater's vote, deposed it.
- ``thief``: the founder's client (``host``), so the table's first leader. Once the game runs, while it
  leads, it asks the other voter whether seat 1's live process is silent (the honest voter says it is
  not, and signs nothing), then writes a takeover of seat 1 with its own word and a word it signed in
  the other voter's name: what a leader that decides alone would write, straight into its own log.
- ``backdater``: a seated player's client at a Kem's table, the second seat of its team. Once the
  signs are closed (RULES 3.2: no private word during play), it sends its partner notes that would
  change the team's sign, each saying it was written before: one as notes once said so (``"written":
  0``, no salt) and one salted like an honest note, with ``"written": 0`` too. Its own process keeps
  neither (it sends them sealed, past its own check).
- ``bad-card``: a seated player's client at a fair table whose first ``lock`` turn puts in a point that
  is no card (its first card locked with a key it made up), with the proof it made for the true deck.
- ``dodger``: a seated player's client at a fair table that reacts last to every slap and never
  opens a window nor feints (so that it draws, at a table of ``steady`` players) and, the first time it
  reads the card it must draw face up, freezes (its whole process, ``DODGE_S``) before drawing it, as
  if its laptop had hung: a stand-in would void the round, and the card it read would go to another
  seat.
- ``steady``: no attack, a player who never feints, so that no one at a table of them is fooled into a
  false slap: every window is opened by a combo, and its last slapper draws.
- ``withholder``: a seated player's client at a fair table that hands no other seat its keys (not
  straight, not sealed in the log when asked), so that nobody else can read a card it locked.
- ``racer``: a seated player's client in the base game whose bot never follows a slap: it waits until
  every other seat has slapped into the window (the moment its own record applies the last of them),
  then slaps as if it had reacted to the window's opener in ``CLAIMED_REACTION_MS`` (the table's
  least), to be first after the opener and never last. As the founder's client it races from the
  leader's seat.
- ``forger``: the racer's wait, then a slap that reacts to nothing and claims a press time
  ``FORGED_AFTER_OPENER_MS`` after the opener's: within the leader's bound of its clock, hundreds of
  milliseconds before the truth.
- ``announcer``: a seated player's client in the base game that, once the game runs, tells the voters
  it slapped (the word a press's author sends them: ``PRESSED``, with its signed entry, which each
  voter proposes at once)
  ``ANNOUNCEMENTS`` times, ``ANNOUNCE_EVERY_S`` apart, while the cards go round, and proposes none of
  those slaps: with a word that bound it to nothing, it could propose the last one it announced before
  another seat opened a window, counted as made then, and never slap falsely.
- ``call-thief``: a seated player's client at a Kem's table that, the moment an opponent's « Kem's ! »
  (or « Double Kem's ! ») opens the call window, calls « Contre Kem's ! » on that caller's partner
  (whose four of a kind the call gives away), claiming the caller's own trigger and a reaction in
  ``CLAIMED_REACTION_MS``.
- ``misreader``: no attack, a careless player at a Kem's table: in the game's first deals
  (``MISREADER_DEALS``) its bot gestures at once and takes every gesture its partner makes for their
  sign (« Kem's ! » each time, right or wrong), so that a test has the Kem's calls it needs from that
  team whatever the deal.
- ``quiet-partner``: no attack, the misreaders' opponent in those same deals: its bot makes no gesture
  and calls nothing until they are over (the ``call-thief`` too), so that the careless team's calls
  come first whatever the deal.
- ``four-hider``: a seated player's client at a Kem's table that hides its fours: it makes no gesture but
  when it holds four of a kind (then one that is no sign of its team's, as a slip), calls no Kem's, and
  answers a Contre on such a hand with two of its cards (``ShowTwo``: "I hold no Kem's"), which would
  score the Contre as failed.
- ``catcher``: no attack, a suspicious player at a Kem's table: its bot takes every gesture of an
  opponent for their sign (« Contre Kem's ! » each time) and never signs or calls Kem's itself, so that
  at a table of catchers and four-hiders a deal goes on until a four-hider holds four, is caught, and
  answers.
- ``late-founder N``: a host that holds its ``create`` back until N joins were refused for coming
  first: the join race, forced.
- ``pin-guesser SECONDS MEMBER...``: a stranger who guesses the table's PIN against every member at
  once for ``SECONDS``, over kdm's own exchange (``kdm.net.admission``) and wire, one guess in flight
  per member, as fast as each answers. Each answer it gets is written down: ``pin answered`` (its
  guess was wrong), ``pin held`` (its confirmation waits for the table's turn), and ``pin stopped``
  at the end, with how many it sent.
- ``door``: ``kdm``, imported already, that waits for the table's contact on its input and puts it in
  place of ``CONTACT`` in its arguments: a joiner started with the host joins the moment the host
  listens. Its bot thinks quickly, for a shorter game; the join is kdm's own.

Each attack is written, one JSON object a line, to the file named by ``KDM_ATTACKS``: what it was and
the ids of the entries it proposed, for the test to look for in every honest peer's log and in the log
the table committed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import os
import random
import sys
import time
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any

import zmq

from kdm import cli, entries
from kdm.agents import Bot, Decision, Profile
from kdm.deck import PrivateNote
from kdm.driver import TableDriver
from kdm.engine import Duty, SeatView
from kdm.entries import SILENT, Act, Chat, Done, EntryId, Takeover
from kdm.events import Event, TimedEvent
from kdm.fair.group import lock, random_key
from kdm.fair.messages import Reseal, ToSeat
from kdm.fair.table import FairDeck
from kdm.fair.turns import Shuffle, Turns, split_points
from kdm.host import TableHost
from kdm.host.io import Propose
from kdm.manager import installed_plugins
from kdm.net.admission import Prover
from kdm.net.keys import new_keys, public_key_of
from kdm.net.node import Node, address_of, ask_table_id, listen, lobby_codec, node_codec
from kdm.net.raft_log import chain_hash
from kdm.net.raft_messages import Certificate, ConfChange, Message, Vote, message_to_dict
from kdm.net.raft_messages import Entry as RaftEntry
from kdm.net.raft_signing import TableSigner, head_payload, vote_payload
from kdm.notices import Applied, Notice, Rejected
from kdm.peer import CLOCK_SETTLE_MS, Peer
from kdm.plugins.kems import bots as kems_bots
from kdm.plugins.kems import rules as kems_rules
from kdm.plugins.kems.events import Call, Gesture, ShowTwo
from kdm.plugins.kems.view import SALT_SIZE, KemsView, Signs, team_signs
from kdm.plugins.kilo import bots as kilo_bots
from kdm.plugins.kilo import rules as kilo_rules
from kdm.plugins.kilo.events import Announce, Draw, ShowHand, Slap
from kdm.record import NO_TABLE_YET

ATTACKS_ENV = "KDM_ATTACKS"
#: How late (after this process started) the cheater forges its first press: past the leader's settling
#: time (it led before this process was started), when the leader holds presses to its clock.
FORGE_AFTER_S = CLOCK_SETTLE_MS / 1000 + 0.5
#: How far back a forged press time goes: a trip on a LAN takes milliseconds, and only a leader that
#: was itself stopped as long takes a press as old (made while it was stopped).
FORGED_EARLY_MS = 60_000.0
#: How long the cheater waits for a forged press time to be committed before it gives it up.
GIVE_UP_S = 1.0
#: How long an attacker's bots think before a move: at the quick end of kdm's (200 ms to over a second),
#: and never quicker than the slowest of its bots' reactions (220-420 ms). A seat that always passes
#: before anyone can slap keeps every combo at a table of bots from being slapped (no checkpoint is held
#: there): the rounds it starts then end only on a feint, and one once played on past a test's 120 s.
QUICK_THINK_MS = (450.0, 700.0)
#: A reaction time no person has (the table's minimum is ``min_reaction_ms``, 100 by default).
FORGED_REACTION_MS = 1.0
#: ``done`` entries forged in other players' names (400 froze a table before issue 12).
FORGED_DONES = 400
#: Entries a forged ``prop`` carries at most (a message must stay under the wire's 64 KiB).
PER_MESSAGE = 50
#: How long the dodger's process freezes instead of drawing the card it read (the review's: 2.5 s, twice
#: the silence after which a stand-in took the seat).
DODGE_S = 2.5
#: The dodger reacts last to every slap, within the window (``QUICK``: 1.5 s), so that it draws.
SLOW_REACTION_MS = 900.0
#: How long the usurper floods the table with heartbeats of a term it did not win, then with answers of
#: a newer term (the review's stall lasted as long as the cheater liked: 20 s).
FLOOD_S = 5.0
#: How often it sends them.
FLOOD_EVERY_S = 0.05
#: Events the game applies before the forker forks (the test waits for the first pass at the founder's).
MOVES_BEFORE_THE_FORK = 12
#: Ids the stranger asks "which table?" under, over one connection and one key.
IDENTITIES = 1000
#: Counters of forged entries: far above what the forger's own peer uses, so as not to be applied once.
FORGED = 1_000_000
#: The reaction the racer and the call thief claim: the table's least (``min_reaction_ms``).
CLAIMED_REACTION_MS = 100.0
#: How long after the opener's press time the forger says it slapped.
FORGED_AFTER_OPENER_MS = 5.0
#: How many slaps the announcer announces, and how far apart.
ANNOUNCEMENTS, ANNOUNCE_EVERY_S = 8, 0.1
#: How old the edge-relayer's presses are when it relays them: inside the voters' relay bound (700 ms),
#: with a busy machine's trip to spare. How many it relays a second, and for how long.
EDGE_MS, EDGE_RELAYS_PER_S, EDGE_S = 670.0, 15, 15.0


def note(attack: str, **details: Any) -> None:
    """Write down an attack for the test (``KDM_ATTACKS``), with when it was made (``time.time``)."""
    with Path(os.environ[ATTACKS_ENV]).open("a") as attacks:
        attacks.write(json.dumps({"attack": attack, "at": time.time(), **details}) + "\n")


def falsified(event: Event | None) -> Event | None:
    """``event`` with faces that were not dealt (a two called for a queen, another card drawn, four aces
    shown), or None when it reveals no face. (Not another queen called: the seat may hold both.)"""
    if isinstance(event, Announce | Draw):
        return dataclasses.replace(event, card="2C" if event.card != "2C" else "3C")
    if isinstance(event, ShowHand):
        return dataclasses.replace(event, cards=tuple("AS" for _ in event.cards))
    return None


def lying_once(peers: list[Peer], lies: list[Event], spare: tuple[type[Event], ...] = ()) -> None:
    """Each peer's process lies once, at the first reveal it proposes for its own seat (``falsified``),
    and is honest after; its lie goes to ``lies``. A lie of a ``spare`` kind is not told."""
    for peer in peers:
        driver = peer.driver
        assert driver is not None
        honest, lied = driver.fulfil, []

        def lying(
            duty: Duty,
            honest: Callable[[Duty], Event | None] = honest,
            lied: list[Event] = lied,
            peer: Peer = peer,
        ) -> Event | None:
            event = honest(duty)
            ours = getattr(event, "seat", None) == peer.seat  # what this process proposes
            lie = None if lied or not ours else falsified(event)
            if lie is None or isinstance(lie, spare):
                return event
            lied.append(lie)
            lies.append(lie)
            return lie

        driver.fulfil = lying  # type: ignore[method-assign]


async def until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.05)  # a client waiting for its moment, not a test synchronisation


def beside_the_peer(attack: Callable[[Peer], Coroutine[Any, Any, None]]) -> None:
    """Run ``attack`` on the peer's loop once the peer starts (stopped with it)."""
    honest_start = Peer.start

    def start(self: Peer, *args: Any, **kwargs: Any) -> None:
        honest_start(self, *args, **kwargs)
        self._tasks.append(asyncio.get_running_loop().create_task(attack(self)))

    Peer.start = start  # type: ignore[method-assign]


def propose_to(node: Node, member: str, data: Sequence[RaftEntry]) -> None:
    """Forward proposals to ``member`` straight, as a follower forwards them to its leader."""
    for first in range(0, len(data), PER_MESSAGE):
        message = Message(
            "prop", node.raft.term, node.node_id, member, entries=tuple(data[first : first + PER_MESSAGE])
        )
        node._send(member, "raft", message_to_dict(message))


def give_up(host: TableHost, entry_id: tuple[str, int]) -> None:
    """Stop proposing entry ``entry_id`` if it is not committed yet, and let the bots think again."""
    if host.proposals.pending.pop(entry_id, None) is not None:
        host.wake_bots()  # planned now, played from the peer's next step on (a retry comes every 0.25 s)


def think_quickly() -> None:
    """This process's bots think as quickly as ``QUICK_THINK_MS`` lets them: shorter games for the tests."""
    Bot.think_ms = lambda self: self.rng.uniform(*QUICK_THINK_MS)  # type: ignore[method-assign]


def pressed_early(event: TimedEvent) -> TimedEvent:
    """``event`` pressed ``FORGED_EARLY_MS`` before it was, reacting to nothing: a time that alone would
    put it first in its window."""
    return dataclasses.replace(event, trigger=None, rt=None, t_sync=event.t_sync - FORGED_EARLY_MS)


def ghost() -> str:
    """A node id nobody runs."""
    return f"127.0.0.1:9~{new_keys().token}"


# --- the cheater ---------------------------------------------------------------------------------


def cheat() -> None:
    started = time.monotonic()
    lies: set[Event] = set()
    lied: set[tuple[str, int]] = set()
    reactions = itertools.count()
    forged_opening = False
    honest_fulfil, honest_act, honest_slap_now = TableDriver.fulfil, TableHost.act, kilo_bots.slap_now

    def fulfil(self: TableDriver, duty: Duty) -> Event | None:
        # Each reveal is a lie first; refused, it is owed again, and the second one is honest.
        event = honest_fulfil(self, duty)
        key = (duty.kind, self.engine.state.seq)
        lie = falsified(event) if key not in lied and getattr(event, "seat", None) in self.bots else None
        if lie is None:
            return event
        lied.add(key)
        lies.add(lie)
        return lie

    def settled() -> bool:
        return time.monotonic() - started > FORGE_AFTER_S

    def slap_now(view: SeatView, bot: Bot, table: Any) -> Decision | None:
        # A window of its own at a checkpoint, combo or not, to lie about a face whatever the deal
        # (judged, it shows its hand; or it draws for a false slap), and one whose press it forges once
        # the leader holds presses to its clock. Then it leaves the openings to the others and forges
        # its way into their windows.
        if lies and (forged_opening or not settled()):
            return None
        if table.checkpoint and view.seat not in table.barred:
            return Decision(Slap(seat=view.seat), bot.reaction_ms())
        return honest_slap_now(view, bot, table)

    def act(self: TableHost, event: Event, agent: Any = None) -> None:
        nonlocal forged_opening
        attack = window = None
        if isinstance(event, TimedEvent) and event.trigger is not None:
            # A reaction time is checked on apply, a press time only by a leader that has settled.
            window = event.trigger
            if next(reactions) % 2 == 0 or not settled():
                attack, event = "reaction time", dataclasses.replace(event, rt=FORGED_REACTION_MS)
            else:
                attack, event = "press time", pressed_early(event)
        elif isinstance(event, Slap) and settled() and not forged_opening:
            attack, event, forged_opening = "press time", pressed_early(event), True
        elif event in lies:
            attack = "faces"
        honest_act(self, event, agent)
        author = agent or self.me
        if attack is not None:
            note(attack, id=[author.identity, author.counter], seat=self.seat, window=window, kind=event.kind)
        if attack == "press time":
            # The leader drops it without a word, and kdm would propose it again forever while its
            # bot waits for it (not passing, if it was its turn): give it up, and think again.
            asyncio.get_running_loop().call_later(GIVE_UP_S, give_up, self, (author.identity, author.counter))

    TableDriver.fulfil = fulfil  # type: ignore[method-assign]
    TableHost.act = act  # type: ignore[method-assign]
    kilo_bots.slap_now = slap_now
    think_quickly()  # not part of the attack: a shorter game
    beside_the_peer(write_in_others_names)


async def write_in_others_names(peer: Peer) -> None:
    """Once the game runs: entries in the other players' names, and what only a leader proposes."""
    await until(lambda: peer.record.started and peer.seat is not None)
    node, record = peer.node, peer.record
    assert isinstance(node, Node) and node.keys is not None
    me = node.node_id
    others = [seat.node for seat in record.seats if seat.node != me]
    victim, removed = others[0], others[-1]
    victim_seat = record.seat_of(victim)
    assert victim_seat is not None

    def signed(entry: entries.Entry) -> bytes:
        assert node.keys is not None
        return entries.encode(entry, node.keys.sign, peer.table)

    slap = record.rules.codec.encode(Slap(seat=victim_seat, t_sync=node.agreed_time_ms()))
    for author in (victim, me):
        node.propose(signed(Act(EntryId(author, FORGED), event=slap)))
        note("slap for another seat", id=[author, FORGED], seat=victim_seat)
    for i in range(FORGED_DONES):
        author = others[i % len(others)]
        node.propose(signed(Done(EntryId(author, FORGED + i))))
    note("done in others' names", ids=[[others[i % len(others)], FORGED + i] for i in range(FORGED_DONES)])
    theft = Takeover(EntryId(f"{me}#{victim_seat}", FORGED), seat=victim_seat, commit=bytes(32))
    changes = [ConfChange("remove", removed)] + [ConfChange("add_voter", ghost()) for _ in range(4)]
    forwarded = [RaftEntry(0, 0, signed(theft))] + [RaftEntry(0, 0, c.encode(), "conf") for c in changes]
    for member in node.members:
        if member != me:
            propose_to(node, member, forwarded)
    note("takeover", id=[theft.id.node, FORGED], seat=victim_seat, to=list(node.members))
    note("membership", removed=removed, ghosts=4)


# --- the usurper: a seated voter that forges raft messages -----------------------------------------


def usurper() -> None:
    think_quickly()  # not part of the attack: a shorter game
    beside_the_peer(usurp)


def made_up_certificate(node: Node, term: int, at: tuple[int, int]) -> Certificate:
    """An election certificate for ``term`` of this node's own vote and three ghosts' (keys it made):
    every signature good, and not one from another member."""
    assert node.keys is not None
    payload = vote_payload(term, node.node_id, *at)
    votes = [Vote(node.node_id, TableSigner(node.keys, node.table).sign(payload))]
    for _ in range(3):
        keys = new_keys()
        votes.append(Vote(f"127.0.0.1:9~{keys.token}", TableSigner(keys, node.table).sign(payload)))
    return Certificate(term, node.node_id, *at, tuple(votes))


def send_raft(node: Node, message: Message) -> None:
    node._send(message.to, "raft", message_to_dict(message))


async def usurp(peer: Peer) -> None:
    await until(lambda: peer.record.started and peer.seat is not None and peer.node.leader is not None)
    await asyncio.sleep(0.5)  # a few moves into the game (a client waiting for its moment)
    node, record = peer.node, peer.record
    assert isinstance(node, Node) and node.keys is not None
    me, leader = node.node_id, node.leader
    assert leader is not None
    victim = next(seat.node for seat in record.seats if seat.node not in (me, leader))
    live_seat = next(i for i, seat in enumerate(record.seats) if seat.node == leader)
    term, last = node.raft.term + 1, node.raft.last_index
    at = (last, node.raft.log_entries()[-1].term if last else 0)

    def signed(entry: entries.Entry) -> bytes:
        assert node.keys is not None
        return entries.encode(entry, node.keys.sign, peer.table)

    chat = Chat(EntryId(me, FORGED), seat=peer.seat, text="a line no leader wrote")
    theft = Takeover(EntryId(f"{me}#{live_seat}", FORGED + 1), seat=live_seat, commit=bytes(32))
    forged = [RaftEntry(term, last + 1, signed(chat)), RaftEntry(term, last + 2, signed(theft))]
    forged += [
        RaftEntry(term, last + 3 + i, ConfChange("add_voter", ghost()).encode(), "conf") for i in range(4)
    ]
    append = Message("app", term, me, victim, *at, tuple(forged), commit=forged[-1].index)
    certificate = made_up_certificate(node, term, at)
    send_raft(node, append)
    send_raft(node, dataclasses.replace(append, certificate=certificate))
    note("forged append", term=term, to=victim, chat=[me, FORGED], takeover=[theft.id.node, FORGED + 1])
    members = [member for member in node.members if member != me]
    note("heartbeats of a term not won", term=term, to=members, start=time.time())
    flood_until = time.monotonic() + FLOOD_S
    sent = 0
    while time.monotonic() < flood_until:
        for member in members:
            heartbeat = Message("heartbeat", term, me, member, commit=node.raft.commit_index)
            send_raft(
                node, dataclasses.replace(heartbeat, certificate=certificate) if sent % 2 else heartbeat
            )
        sent += 1
        await asyncio.sleep(FLOOD_EVERY_S)
    note("heartbeats sent", term=term, rounds=sent, end=time.time())
    newer = node.raft.term + 1
    note("answers of a newer term", to=node.leader, start=time.time())
    answered_until = time.monotonic() + FLOOD_S
    while time.monotonic() < answered_until:
        if node.leader is not None and node.leader != me:
            answer = Message("app_resp", max(newer, node.raft.term + 1), me, node.leader, log_index=0)
            send_raft(node, answer)
        await asyncio.sleep(FLOOD_EVERY_S)
    note("answers sent", end=time.time())


# --- the forker: a leader that sends two logs --------------------------------------------------------


def forker() -> None:
    think_quickly()  # not part of the attack: a shorter game
    beside_the_peer(fork)


async def leading_a_game_under_way(peer: Peer) -> Node:
    """The peer's node, once it leads a game ``MOVES_BEFORE_THE_FORK`` events in, every seat's process
    voting (a client waiting for its moment)."""
    node, record = peer.node, peer.record
    assert isinstance(node, Node)
    await until(
        lambda: (
            record.started and node.is_leader and all(seat.home in node.raft.voters for seat in record.seats)
        )
    )
    await until(lambda: record.engine is not None and record.engine.state.seq >= MOVES_BEFORE_THE_FORK)
    return node


async def fork(peer: Peer) -> None:
    node = await leading_a_game_under_way(peer)
    assert node.keys is not None
    raft, me = node.raft, node.node_id
    followers = [voter for voter in raft.voters if voter != me][:2]
    term, last = raft.term, raft.last_index
    before = raft._log.hash(last)
    assert before is not None
    for counter, (follower, text) in enumerate(zip(followers, ("one story", "another story"), strict=True)):
        chat = Chat(EntryId(me, FORGED + counter), seat=peer.seat, text=text)
        entry = RaftEntry(term, last + 1, entries.encode(chat, node.keys.sign, peer.table))
        head = head_payload(term, me, last + 1, chain_hash(before, entry))
        signature = TableSigner(node.keys, node.table).sign(head)
        append = Message("app", term, me, follower, last, raft._log.term(last) or 0, (entry,),
                         commit=raft.commit_index, signature=signature)  # fmt: skip
        send_raft(node, append)
    note("fork", term=term, index=last + 1, to=followers)


# --- the ghost-maker: a leader that makes up a voter -------------------------------------------------


def ghost_maker() -> None:
    think_quickly()  # not part of the attack: a shorter game
    beside_the_peer(make_a_ghost)


async def make_a_ghost(peer: Peer) -> None:
    node = await leading_a_game_under_way(peer)
    raft, made_up = node.raft, ghost()
    raft._changes_need_approval = False  # its own Raft takes what it likes; the others' do not
    change, own = raft.approve("add_voter", made_up)
    proposed = raft.propose_conf_change(change.approved((own,)))
    node._process()
    note("ghost", ghost=made_up, proposed=proposed, term=raft.term, index=raft.last_index)


# --- the staller: a leader that takes nothing -------------------------------------------------------


def staller() -> None:
    think_quickly()  # not part of the attack: a shorter game
    beside_the_peer(stall)


async def stall(peer: Peer) -> None:
    node = await leading_a_game_under_way(peer)
    node.screen_proposal = lambda _sender, _data: "taken by a staller"
    note("stall", term=node.raft.term, voters=len(node.raft.voters))


# --- the edge-relayer ----------------------------------------------------------------------------


def edge_relayer() -> None:
    think_quickly()  # not part of the attack: a shorter game
    beside_the_peer(relay_at_the_edge)


async def relay_at_the_edge(peer: Peer) -> None:
    node, record = peer.node, peer.record
    assert isinstance(node, Node) and node.keys is not None
    await until(
        lambda: (
            record.started
            and peer.seat is not None
            and node.raft.leader == record.seats[0].home
            and all(seat.home in node.raft.voters for seat in record.seats)
            and record.engine is not None
            and record.engine.state.seq >= MOVES_BEFORE_THE_FORK
        )
    )
    me, leader, seat = node.node_id, node.raft.leader, peer.seat
    others = [voter for voter in node.raft.voters if voter not in (me, leader)]
    note("edge relays", leader=leader, to=others, seat=seat)
    loop = asyncio.get_running_loop()
    began, sent = loop.time(), 0
    node.raft.distrust_leader(round(EDGE_S * 1000 / node._tick_ms))  # its own vote, against the leader
    while loop.time() < began + EDGE_S:
        slap = Slap(seat=(seat + 1) % len(record.seats), t_sync=node.agreed_time_ms() - EDGE_MS)
        act = Act(EntryId(me, FORGED + sent), event=record.rules.codec.encode(slap))
        data = entries.encode(act, node.keys.sign, peer.table)
        for voter in others:
            node._send(voter, "relay", {"data": data})
        sent += 1
        await asyncio.sleep(1 / EDGE_RELAYS_PER_S)
    note("edge relays sent", count=sent)


# --- the stranger --------------------------------------------------------------------------------


def stranger() -> None:
    beside_the_peer(knock)


async def knock(peer: Peer) -> None:
    node = peer.node
    assert isinstance(node, Node) and node.keys is not None
    await until(lambda: node.node_id in node.raft.learners and peer.record.started)
    me, record = node.node_id, peer.record
    members = [member for member in node.members if member != me]
    seats = [seat.node for seat in record.seats]

    def signed(entry: entries.Entry) -> RaftEntry:
        assert node.keys is not None
        return RaftEntry(0, 0, entries.encode(entry, node.keys.sign, peer.table))

    slap = record.rules.codec.encode(Slap(seat=1, t_sync=node.agreed_time_ms()))
    forged = [signed(Act(EntryId(seats[1], FORGED), event=slap))]
    forged.append(signed(Takeover(EntryId(f"{me}#1", FORGED), seat=1, commit=bytes(32))))
    forged += [signed(Done(EntryId(seats[i % len(seats)], FORGED + i))) for i in range(FORGED_DONES)]
    changes = [ConfChange("remove", seats[1])] + [ConfChange("add_voter", ghost()) for _ in range(4)]
    forged += [RaftEntry(0, 0, change.encode(), "conf") for change in changes]
    term = node.raft.term
    for member in members:
        propose_to(node, member, forged)
        # What only a leader or a candidate sends, a term ahead: one would depose the leader.
        last = node.raft.last_index
        ahead = RaftEntry(term + 5, last + 1, b"a forged entry")
        for kind in ("heartbeat", "app", "vote"):
            entries_ = (ahead,) if kind == "app" else ()
            message = Message(kind, term + 5, me, member, last, term, entries_, commit=last + 1)
            node._send(member, "raft", message_to_dict(message))
        node._send(member, "raft", message_to_dict(Message("app_resp", term + 5, me, member)))
    note("learner proposals", count=len(forged) - len(changes), changes=len(changes), to=members)
    note("raft a term ahead", term=term + 5, to=members)
    await asyncio.to_thread(raw_sockets, node, members)


def raw_sockets(node: Node, members: list[str]) -> None:
    """Over sockets of this process's own key: a message under another member's id, a hello from an id
    that names no address, and "which table?" under a thousand ids."""
    keys = node.keys
    assert keys is not None
    context = zmq.Context()
    try:
        for index, member in enumerate(members):
            dealer = context.socket(zmq.DEALER)
            dealer.setsockopt(zmq.LINGER, 2000)
            dealer.setsockopt(zmq.CURVE_SERVERKEY, public_key_of(member) or b"")
            dealer.setsockopt(zmq.CURVE_PUBLICKEY, keys.curve.public)
            dealer.setsockopt(zmq.CURVE_SECRETKEY, keys.curve.secret)
            dealer.connect(address_of(member))
            posing_as = members[(index + 1) % len(members)]
            heartbeat = Message("heartbeat", node.raft.term, posing_as, member)
            dealer.send_multipart(
                [posing_as.encode(), node.codec.encode(posing_as, "raft", message_to_dict(heartbeat))]
            )
            garbage = f"garbage~{keys.token}"
            dealer.send_multipart([garbage.encode(), node.codec.encode(garbage, "hello", {"node": garbage})])
            for port in range(1, IDENTITIES + 1):
                name = f"127.0.0.1:{port}~{keys.token}"
                dealer.send_multipart([name.encode(), lobby_codec().encode(name, "which", {})])
            dealer.close()  # the frames leave within the linger
        note("another member's id", to=members)
        note("garbage hello", id=f"garbage~{keys.token}", to=members)
        note("identities", count=IDENTITIES, to=members)
    finally:
        context.term()


# --- the PIN guesser --------------------------------------------------------------------------------

#: How often the guesser says hello again to a member that has not answered its last one.
GUESS_AGAIN_S = 0.1


def pin_guesser(seconds: float, members: list[str]) -> None:
    asyncio.run(guess_pins(seconds, members))


async def guess_pins(seconds: float, members: list[str]) -> None:
    """Guess PINs from 0000 up at every member at once: each member gets the next guess as soon as it
    says the last one was wrong. A member that answers an offer gets the confirmation at once."""
    transport = await listen("127.0.0.1")
    me = transport.node_id
    table = (await ask_table_id(transport, members[0], address_of(members[0]))).table
    codec = node_codec(table)
    guesses = (f"{guess:04d}" for guess in itertools.count())
    guessed = {member: next(guesses) for member in members}
    provers = {member: Prover(table, me, guessed[member]) for member in members}
    proofs: dict[str, bytes] = {}
    sent = 0

    def hello(member: str) -> None:
        nonlocal sent
        body: dict[str, Any] = {"node": me, "offer": provers[member].offer}
        if member in proofs:
            body["proof"] = proofs[member]
        transport.connect(member, address_of(member))
        transport.send(member, codec.encode(me, "hello", body))
        sent += 1

    async def say_hello_again() -> None:
        while True:
            for member in members:
                hello(member)
            await asyncio.sleep(GUESS_AGAIN_S)  # a client's resend period, not a test synchronisation

    async def read_answers() -> None:
        while True:
            sender, payload = await transport.recv()
            try:
                envelope = codec.decode(payload, claimed_sender=sender)
            except ValueError:
                continue
            if envelope.kind != "pin" or sender not in provers:
                continue
            verdict, answer = envelope.body.get("verdict", ""), envelope.body["answer"]
            if verdict == "wrong":
                note("pin answered", member=sender, pin=guessed[sender])
                guessed[sender] = next(guesses)
                provers[sender] = Prover(table, me, guessed[sender])
                proofs.pop(sender, None)
                hello(sender)
            elif verdict == "held":
                note("pin held", member=sender)
            elif answer:
                proof = provers[sender].confirm(sender, answer)
                if proof is not None:
                    proofs[sender] = proof
                    hello(sender)

    tasks = [asyncio.ensure_future(say_hello_again()), asyncio.ensure_future(read_answers())]
    await asyncio.sleep(seconds)  # the attack lasts this long
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    note("pin stopped", node=me, hellos=sent)
    await transport.close()


# --- the thief -----------------------------------------------------------------------------------


#: How long the thief waits for the other voter's word (an honest one never comes) before it takes the
#: seat anyway.
WAIT_FOR_WORD_S = 1.0


def thief() -> None:
    think_quickly()  # not part of the attack: a shorter game
    beside_the_peer(take_a_live_seat)


async def take_a_live_seat(peer: Peer) -> None:
    node, record = peer.node, peer.record
    assert isinstance(node, Node) and node.keys is not None
    await until(lambda: record.started and node.is_leader and len(record.seats) == 3)
    me, victim, seat = node.node_id, record.seats[1], 1
    other = record.seats[2].process
    peer.take_over_with_word(seat, victim.name)  # asks the other voter, who heard seat 1 all along
    note("asked for word", seat=seat, node=victim.process, to=[other])
    await asyncio.sleep(WAIT_FOR_WORD_S)  # the thief's patience, not a test synchronisation
    position = record.position

    def word(keys: Any) -> list[Any]:
        said = entries.silence_statement(
            peer.table, seat, victim.process, victim.commitment, position, SILENT
        )
        return [position, keys.sign(said)]

    forged = {me: word(node.keys), other: word(node.keys)}  # its own, and one in the other's name
    peer.take_over(seat, Bot(seat, "greedy", seed=b"thief"), victim.name, silence=forged)
    stand_in = peer.host.agent(f"{me}#{seat}")
    assert stand_in is not None
    note(
        "leader takeover", id=[stand_in.identity, stand_in.counter], seat=seat, leader=node.is_leader,
        heard_ms=node.silent_ms(victim.process),
    )  # fmt: skip


# --- the backdater: notes that say they were written in time -------------------------------------


def backdater() -> None:
    beside_the_peer(backdate)


async def backdate(peer: Peer) -> None:
    await until(
        lambda: (
            peer.record.engine is not None
            and kems_rules.kems(peer.record.engine.state).signs_closed_at is not None
            and peer.seat is not None
        )
    )
    engine, agent, seat = peer.record.engine, peer.host.agents[0], peer.seat
    assert engine is not None and seat is not None
    partner = kems_rules.partner_of(seat, engine.state.players)
    known = team_signs(peer.deck.knowledge(engine.state, seat), seat, engine.state.players).signs
    other = next(gesture for gesture in kems_rules.GESTURES if gesture not in known)
    salted = Signs((other,), None, 0, salt=os.urandom(SALT_SIZE)).note_data()
    for data in ({"signs": [other], "presign": None, "deal": 0, "written": 0}, {**salted, "written": 0}):
        peer.host.notes._send_sealed(PrivateNote(seat, partner, data), agent, partner)
        peer.flush()
        note("backdated note", seat=seat, to=partner, sign=other)


# --- the bad card: a shuffle turn that is not what its keys make --------------------------------


def bad_card() -> None:
    think_quickly()  # not part of the attack: a shorter game
    honest_take = Turns._take

    def take(self: Turns, shuffle: Shuffle, step: str, seat: int, deck: list[bytes]) -> dict[str, Any]:
        fields = honest_take(self, shuffle, step, seat, deck)
        if step == "lock" and shuffle.index == 0:
            points = split_points(fields["deck"], len(deck), "a deck")
            fields = {**fields, "deck": b"".join([lock(points[0], random_key()), *points[1:]])}
            note("bad card", seat=seat, shuffle=shuffle.index, step=step)
        return fields

    Turns._take = take  # type: ignore[method-assign]


# --- the dodger: a freeze instead of the card it read it must draw -------------------------------


def dodger() -> None:
    think_quickly()  # not part of the attack: a shorter game
    steady()  # nor this: no false slap at the table, so that every window's last slapper draws
    Bot.reaction_ms = lambda self: SLOW_REACTION_MS  # type: ignore[method-assign]  # last: it draws
    kilo_bots.slap_now = lambda view, bot, table: None  # type: ignore[assignment]  # nor first
    honest_fulfil = FairDeck.fulfil
    dodged: list[Event] = []

    def fulfil(self: FairDeck, duty: Duty, state: Any, reveal: Any) -> Event | None:
        event = honest_fulfil(self, duty, state, reveal)
        if isinstance(event, Draw) and event.seat in self.here and not dodged:
            dodged.append(event)
            note("dodge", seat=event.seat, card=event.card, frozen_s=DODGE_S)
            time.sleep(DODGE_S)  # the whole process stops: no heartbeat, no word, as a laptop that hung
        return event

    FairDeck.fulfil = fulfil  # type: ignore[method-assign]


# --- the withholder: keys it never hands ---------------------------------------------------------


def withholder() -> None:
    think_quickly()  # not part of the attack: a shorter game
    honest_work = FairDeck.work

    def work(self: FairDeck, *args: Any, **kwargs: Any) -> list[Any]:
        out = honest_work(self, *args, **kwargs)
        kept = [item for item in out if not isinstance(item, ToSeat | Reseal)]
        if len(kept) < len(out) and not WITHHELD_NOTED:
            WITHHELD_NOTED.append(True)
            note("keys withheld", seats=sorted(self.here))
        return kept

    FairDeck.work = work  # type: ignore[method-assign]


#: Whether the withholder has written its attack down (once).
WITHHELD_NOTED: list[bool] = []


# --- the racer, the forger and the call thief: claims of a quicker press ------------------------


def racer() -> None:
    race_last(forge_time=False)


def forger() -> None:
    race_last(forge_time=True)


def race_last(forge_time: bool) -> None:
    """Never follow a slap; once every other seat has, slap as if first after the opener."""
    think_quickly()  # not part of the attack: a shorter game
    honest_react, honest_handle = kilo_bots.react, TableHost._handle
    kilo_bots.react = lambda view, bot, table: None  # type: ignore[assignment]

    def handle(self: TableHost, notice: Notice) -> None:
        honest_handle(self, notice)
        engine, seat = self.record.engine, self.seat
        if not isinstance(notice, Applied) or engine is None or seat is None or self.behind():
            return
        window = kilo_rules.table(engine.state).window
        others = engine.state.players - 1
        if window is None or window.closed or window.slapped(seat) or len(window.slaps) != others:
            return
        opener, now = window.opened_by, self.clock.agreed_ms()
        opened_at = next(eff for _seat, eff, seq in window.slaps if seq == opener)
        if forge_time:
            claim = Slap(seat=seat, t_sync=opened_at + FORGED_AFTER_OPENER_MS)
        else:
            claim = Slap(seat=seat, t_sync=now, trigger=opener, rt=CLAIMED_REACTION_MS)
        self.act(claim)
        shown = self.stamps.applied_at.get(opener)
        note(
            "forged time" if forge_time else "claimed reaction", id=[self.me.identity, self.me.counter],
            seat=seat, opener=opener, pressed=now, shown=shown, leader=bool(self.node.is_leader),
        )  # fmt: skip

    TableHost._handle = handle  # type: ignore[method-assign]
    del honest_react


def announcer() -> None:
    think_quickly()  # not part of the attack: a shorter game
    beside_the_peer(announce_slaps)


async def announce_slaps(peer: Peer) -> None:
    host = peer.host
    await until(lambda: host.record.started and host.seat is not None and host.record.engine is not None)
    announced = 0
    while announced < ANNOUNCEMENTS:
        await asyncio.sleep(ANNOUNCE_EVERY_S)
        engine, seat = host.record.engine, host.seat
        if engine is None or seat is None or engine.state.phase != "passing" or host.behind():
            continue
        slap = Slap(seat=seat, t_sync=host.clock.agreed_ms(), round=engine.state.round)
        event = host.record.rules.codec.encode(slap)
        host.me.counter += 1  # the id the slap would be proposed under
        key = (host.me.identity, host.me.counter)
        # Every other one is announced with keys the table refuses (the digest does not cover them),
        # and the same slap without them proposed a moment later: a cancel, or a swap, if it went first.
        swapped = announced % 2 == 1
        announced_as = Act(EntryId(*key), event=event, keys=b"junk" if swapped else b"")
        host.stamps.pressed(host.me, key, event, entries.encode(announced_as, host.sign, host.table))
        peer.flush()
        note("announced slap", id=list(key), seat=seat, t_sync=slap.t_sync, swapped=swapped)
        if swapped:
            await asyncio.sleep(ANNOUNCE_EVERY_S / 2)
            host.out.append(Propose(entries.encode(Act(EntryId(*key), event=event), host.sign, host.table)))
            peer.flush()
        announced += 1


def call_thief() -> None:
    think_quickly()  # not part of the attack: a shorter game
    quiet_in_careless_deals()  # not part of the attack either: the opponents' calls to steal
    honest_handle = TableHost._handle

    def handle(self: TableHost, notice: Notice) -> None:
        honest_handle(self, notice)
        engine, seat = self.record.engine, self.seat
        event = notice.event if isinstance(notice, Applied) else None
        if not isinstance(event, Call) or engine is None or seat is None or self.behind():
            return
        players = engine.state.players
        opened = any(effect.get("opened") for effect in notice.effects)
        ours = kems_rules.team_of(event.seat, players) == kems_rules.team_of(seat, players)
        if not opened or event.call == "contre" or ours:
            return
        signer, now = kems_rules.partner_of(event.seat, players), self.clock.agreed_ms()
        self.act(Call(seat=seat, call="contre", target=signer, t_sync=now, trigger=event.trigger,
                      rt=CLAIMED_REACTION_MS))  # fmt: skip
        note(
            "stolen call", id=[self.me.identity, self.me.counter], seat=seat, caller=event.seat,
            caller_seq=notice.seq, trigger=event.trigger, pressed=now,
            shown=self.stamps.applied_at.get(event.trigger) if event.trigger is not None else None,
        )  # fmt: skip

    TableHost._handle = handle  # type: ignore[method-assign]


def players_drawn_with(**chances: float) -> None:
    """Every bot of this process is drawn as an honest one, but for ``chances`` (``Profile``'s fields)."""
    honest_drawn = Profile.drawn.__func__  # type: ignore[attr-defined]

    def drawn(cls: type[Profile], rng: random.Random, slips: random.Random | None = None) -> Profile:
        return dataclasses.replace(honest_drawn(cls, rng, slips), **chances)

    Profile.drawn = classmethod(drawn)  # type: ignore[method-assign,assignment]


def steady() -> None:
    players_drawn_with(feint_chance=0.0)


#: The game's first deals, in which a misreader is careless: it makes meaningless gestures within
#: ``MISREADER_DECOY_MS`` and no exchange (an exchange planned puts a gesture off), and takes each gesture
#: of its partner for their sign. Its partner's « Kem's ! » comes well before an honest team could hold
#: four, sign and call, so it opens those deals' calls whatever the cards. (Careless in every deal, its
#: team would lose a point a deal and the game seldom reach its target.)
MISREADER_DEALS = 2
MISREADER_DECOY_MS = (150.0, 400.0)


def misreader() -> None:
    think_quickly()
    honest = kems_bots._decoy, kems_bots.DECOY_EVERY_MS, kems_bots._exchange, kems_bots._misread
    honest_decoy, honest_every, honest_exchange, honest_misread = honest

    def careless(view: SeatView) -> bool:
        table = view.rules[kems_rules.NAME]
        return isinstance(table, KemsView) and table.deal <= MISREADER_DEALS

    def decoy(view: SeatView, table: KemsView, bot: Bot, watch: kems_bots.Watch) -> Decision | None:
        kems_bots.DECOY_EVERY_MS = MISREADER_DECOY_MS if careless(view) else honest_every
        return honest_decoy(view, table, bot, watch)

    def exchange(view: SeatView, table: KemsView, bot: Bot, watch: kems_bots.Watch) -> Decision | None:
        return None if careless(view) else honest_exchange(view, table, bot, watch)

    def misread(
        view: SeatView, bot: Bot, watch: kems_bots.Watch, latest: tuple[int, str] | None
    ) -> Decision | None:
        if not careless(view) or latest is None or latest[0] in watch.tempted:
            return honest_misread(view, bot, watch, latest)
        watch.tempted.add(latest[0])
        return Decision(Call(seat=view.seat, call="kems", trigger=latest[0]), bot.reaction_ms())

    kems_bots._decoy, kems_bots._exchange, kems_bots._misread = decoy, exchange, misread


def quiet_in_careless_deals() -> None:
    """In the deals its opponents are careless in (``MISREADER_DEALS``), this seat's bot makes no gesture
    and calls nothing: a team dealt four of a kind would otherwise call before the careless ones."""
    for name in ("_sign", "_answer_sign", "_catch_sign", "_decoy"):
        honest = getattr(kems_bots, name)

        def quiet(view: SeatView, table: KemsView, bot: Bot, watch: kems_bots.Watch,
                  honest: Callable[..., Decision | None] = honest) -> Decision | None:  # fmt: skip
            return None if table.deal <= MISREADER_DEALS else honest(view, table, bot, watch)

        setattr(kems_bots, name, quiet)


def quiet_partner() -> None:
    think_quickly()
    quiet_in_careless_deals()


def four_hider() -> None:
    think_quickly()
    honest_answer = kems_bots._answer_contre

    def slip(view: SeatView, table: KemsView, bot: Bot, watch: kems_bots.Watch) -> Decision | None:
        made = kems_bots._mine(view, table, watch)
        if not kems_bots._weigh(view, table, watch).four or (
            made and view.seq - made[0][0] < kems_bots.RESIGN_AFTER_EVENTS
        ):
            return None
        gesture = next(g for g in kems_rules.GESTURES if g not in table.signs and g != table.presign)
        return Decision(Gesture(seat=view.seat, gesture=gesture), bot.think_ms())

    def answer(view: SeatView, table: KemsView, bot: Bot, watch: kems_bots.Watch) -> Decision | None:
        decision = honest_answer(view, table, bot, watch)
        if decision is None or not isinstance(decision.event, ShowHand):
            return decision
        two = decision.event.tokens[:2]
        note("hidden four", seat=view.seat, hand=list(decision.event.cards), seq=view.seq)
        return Decision(ShowTwo(seat=view.seat, tokens=two), decision.delay_ms)

    kems_bots._sign, kems_bots._answer_contre = slip, answer
    kems_bots._decoy = kems_bots._answer_sign = lambda *_: None


def catcher() -> None:
    think_quickly()
    players_drawn_with(bluff_chance=1.0)
    kems_bots._sign = kems_bots._answer_sign = lambda *_: None


# --- the join race -------------------------------------------------------------------------------


def late_founder(joins: int) -> None:
    """Hold the table's ``create`` back until ``joins`` joins were refused for coming before it."""
    honest_create, honest_handle = TableHost.create_table, TableHost._handle
    held: dict[TableHost, tuple[Any, ...]] = {}
    refused: dict[TableHost, int] = {}

    def create_table(self: TableHost, *args: Any, **kwargs: Any) -> None:
        held[self] = (args, kwargs)

    def handle(self: TableHost, notice: Notice) -> None:
        honest_handle(self, notice)
        if self in held and isinstance(notice, Rejected) and notice.code == NO_TABLE_YET:
            refused[self] = refused.get(self, 0) + 1
            if refused[self] == joins:
                args, kwargs = held.pop(self)
                honest_create(self, *args, **kwargs)

    TableHost.create_table = create_table  # type: ignore[method-assign]
    TableHost._handle = handle  # type: ignore[method-assign]


def door(arguments: list[str]) -> list[str]:
    installed_plugins()  # what a join loads first, loaded before the table exists
    think_quickly()
    print("at the door", flush=True)
    contact = sys.stdin.readline().strip()
    return [contact if argument == "CONTACT" else argument for argument in arguments]


#: The roles that only patch kdm before its command line runs with the arguments as given.
PATCHING: dict[str, Callable[[], None]] = {
    "cheat": cheat, "stranger": stranger, "usurper": usurper, "forker": forker, "thief": thief,
    "ghost-maker": ghost_maker, "staller": staller, "edge-relayer": edge_relayer,
    "withholder": withholder, "dodger": dodger, "bad-card": bad_card, "backdater": backdater,
    "racer": racer, "forger": forger, "call-thief": call_thief, "announcer": announcer,
    "misreader": misreader,
    "four-hider": four_hider, "catcher": catcher, "steady": steady, "quiet-partner": quiet_partner,
}  # fmt: skip


def main(argv: list[str]) -> int:
    role, *arguments = argv
    if role in PATCHING:
        PATCHING[role]()
    elif role == "late-founder":
        late_founder(int(arguments.pop(0)))
    elif role == "pin-guesser":
        pin_guesser(float(arguments[0]), arguments[1:])
        return 0
    elif role == "door":
        arguments = door(arguments)
    else:
        raise SystemExit(f"no such client: {role}")
    return cli.main(arguments)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
