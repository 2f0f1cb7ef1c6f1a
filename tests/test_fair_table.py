"""The fair deck at a table (DESIGN 7, issue 14): peers over a fake log deal, pass, draw and audit with
no process able to read a card the rules did not show it.

The log is ``kdm.testing.FakeLog``, which carries direct messages (the keys a seat hands another) and
records every one, so a test can look at all a process ever received.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
import re
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import msgpack
import pytest
from nacl.exceptions import CryptoError
from nacl.public import Box, PublicKey

from kdm import entries
from kdm.deck import OpenDeck
from kdm.engine import Duty, Engine
from kdm.entries import Act, DeckPart, EntryId, Takeover, decode
from kdm.events import Event
from kdm.fair import turns as turns_module
from kdm.fair.group import card_point, lock, random_key
from kdm.fair.shuffle import face_of, reveal
from kdm.fair.table import (
    ASK_AFTER_MS,
    FairDeck,
    Reseal,
    ToLog,
    ToNext,
    ToSeat,
    ToTable,
    pack_keys,
    unpack_keys,
)
from kdm.kept import Kept
from kdm.manager import Rules
from kdm.net.keys import new_keys
from kdm.notices import TookOver, Voided
from kdm.peer import Peer
from kdm.plugins.kems.events import Call, ShowTwo
from kdm.plugins.kilo.events import Announce
from kdm.replay import replayed_with_deck
from kdm.state import TableState
from kdm.testing import FakeLog, FakeNode, ScriptedTable, run_virtual
from kdm.window import Close
from tests.helpers.kems import TURNED, deal
from tests.helpers.peers import bot_peers
from tests.modified_clients import lying_once


class SignedLog(FakeLog):
    """A fake log whose nodes have keys of their own and ids that carry them, at a table whose id is
    the first node's: entries are signed, and a takeover needs the voters' word."""

    def __init__(self) -> None:
        super().__init__()
        self.table = ""
        #: The keyed id of each node by the name the tests give it (``n0`` leads).
        self.ids: dict[str, str] = {}

    def node(self, node_id: str) -> FakeNode:
        keys = new_keys()
        node = FakeNode(self, f"127.0.0.1:{41000 + int(node_id[1:])}~{keys.token}")
        self.ids[node_id] = node.node_id
        self.table = self.table or node.node_id
        node.keys, node.table = keys, self.table  # type: ignore[attr-defined]
        return node

    @property
    def leader(self) -> str:
        return FakeLog.leader.fget(self)  # type: ignore[attr-defined,no-any-return]

    @leader.setter
    def leader(self, node_id: str) -> None:
        FakeLog.leader.fset(self, self.ids.get(node_id, node_id))  # type: ignore[attr-defined]


def owe_now(peer: Peer) -> None:
    """``peer`` looks at what it owes the table now, out of turn."""
    peer.host.duties.owe()
    peer.flush()


def audited(peer: Peer) -> bool:
    """Whether ``peer``'s deck audited every shuffle (the last ones once the game is over)."""
    return isinstance(peer.deck, FairDeck) and all(shuffle.audited for shuffle in peer.deck.shuffles)


async def until(condition: Callable[[], bool], what: str, timeout_s: float = 30.0) -> None:
    """Wait (on the test's virtual clock) until ``condition`` holds."""
    for _ in range(int(timeout_s * 1000)):
        if condition():
            return
        await asyncio.sleep(0.001)
    raise AssertionError(f"timed out waiting for {what}")


async def fair_game(
    players: int = 4,
    options: dict[str, Any] | None = None,
    variants: tuple[str, ...] = (),
    watch: Callable[[list[Peer]], None] | None = None,
    log_out: list[FakeLog] | None = None,
    before_start: Callable[[list[Peer]], None] | None = None,
    kill: Callable[[list[Peer]], Peer | None] | None = None,
    takeover_after_s: float | None = None,
    deck: str = "fair",
    log: FakeLog | None = None,
) -> tuple[FakeLog, list[Peer]]:
    """A whole game of bot peers at a fair table; ``watch`` looks at the peers after every notice
    (``log_out`` gets the log as soon as there is one). ``kill`` looks at them every millisecond of the
    game and names a peer whose process dies then, if any (its seat is taken over); the survivors
    are returned."""
    log = log or FakeLog()
    if log_out is not None:
        log_out.append(log)
    peers = bot_peers(log, players, b"fair-test")
    if watch is not None:
        for peer in peers:
            peer.on_notice = lambda _notice: watch(peers)
    for peer in peers:
        peer.start(takeover_after_s=0.2 if kill is not None else takeover_after_s)
    table_options = {"rounds": 2, "slap_timeout_ms": 200} if options is None else options
    peers[0].create_table("kitchen", players, table_options, Rules.for_table(list(variants)), deck=deck)
    await asyncio.sleep(0)
    for peer in peers[1:]:
        peer.join_table()
    while len(peers[0].record.seats) < players:
        await asyncio.sleep(0.001)
    if before_start is not None:
        before_start(peers)
    peers[0].start_game()
    while kill is not None and (victim := kill(peers)) is None:
        await asyncio.sleep(0.001)
    if kill is not None:
        log.gone.add(victim.node.node_id)
        await victim.stop()
        peers = [peer for peer in peers if peer is not victim]
        log.leader = peers[0].node.node_id
    await asyncio.wait_for(asyncio.gather(*(p.finished.wait() for p in peers)), timeout=120)
    if kill is None and takeover_after_s is None and deck == "fair":  # (keys gone with a process: never)
        await until(lambda: all(audited(peer) for peer in peers), "every shuffle audited")
    for peer in peers:
        await peer.stop()
    return log, peers


def test_bot_peers_play_a_fair_game_to_the_same_digest_and_the_audits_find_nobody() -> None:
    _log, peers = run_virtual(fair_game())
    digests = {peer.record.engine.digest() for peer in peers}  # type: ignore[union-attr]
    assert len(digests) == 1
    engine = peers[0].record.engine
    assert engine is not None and engine.over and engine.state.round == 2
    for peer in peers:
        assert isinstance(peer.deck, FairDeck)
        assert peer.deck.findings == []
        assert all(shuffle.audited for shuffle in peer.deck.shuffles)


def keys_held(peer: Peer, log: FakeLog, committed: int) -> dict[int, dict[int, bytes]]:
    """Every key ``peer``'s process holds, by token and owner seat, found anywhere it could look: its
    seats' own secrets and key rings, every direct message sent to it (opened with its seats' keys),
    and the first ``committed`` entries of the log (keys shown to the table, keys actions carried)."""
    deck = peer.deck
    assert isinstance(deck, FairDeck)
    found: dict[int, dict[int, bytes]] = {}
    for (shuffle, seat), secrets in deck.private.secrets.items():
        for position, key in enumerate(secrets.position_keys):
            found.setdefault(deck.shuffles[shuffle].tokens[position], {})[seat] = key
    for (shuffle, _seat), ring in deck.private.rings.items():
        for position, owners in ring.held.items():
            found.setdefault(deck.shuffles[shuffle].tokens[position], {}).update(owners)
    seats = peer.record.seats
    for _sender, to, data in log.direct:
        if to != peer.node.node_id:
            continue
        body = msgpack.unpackb(data)
        if body.get("t") != "keys":
            continue
        for agent in peer.agents:
            try:
                opened = Box(agent.box, PublicKey(seats[body["sender"]].box_key)).decrypt(body["box"])
            except CryptoError:
                continue
            for token, owners in unpack_keys(msgpack.unpackb(opened)["keys"]).items():
                found.setdefault(token, {}).update(owners)
    for data in log.entries[:committed]:
        entry = decode(data)
        if isinstance(entry, DeckPart) and entry.step == "show":
            tokens = [int.from_bytes(entry.tokens[i : i + 4], "big") for i in range(0, len(entry.tokens), 4)]
            for index, token in enumerate(tokens):
                found.setdefault(token, {})[entry.seat] = entry.keys[32 * index : 32 * index + 32]
        if isinstance(entry, Act) and entry.keys:
            for token, owners in unpack_keys(entry.keys).items():
                found.setdefault(token, {}).update(owners)
    return found


def readable(deck: FairDeck, keys: dict[int, dict[int, bytes]]) -> dict[int, str]:
    """The faces these keys read: every token for which there is a key of every seat."""
    faces = {}
    for token, owners in keys.items():
        point = deck.point(token)
        if point is None or len(owners) < deck.players:
            continue
        face = face_of(reveal(point, [owners[s] for s in range(deck.players)]), deck.all_faces, deck.table)
        assert face is not None
        faces[token] = face
    return faces


def test_no_process_holds_the_means_to_read_a_card_the_rules_did_not_show_its_seat() -> None:
    """The knowledge test (issue 14): at the end of round 1, before its audit, each process gathers every
    key it holds (its secrets, its key rings, every message it received, the whole log so far) and reads
    all it can; it reads its own cards (those it was dealt or passed), the cards shown to the table, and
    nothing else: not another player's hand, not the pile."""
    held: dict[int, set[int]] = {seat: set() for seat in range(4)}
    seen: dict[int, tuple[dict[int, str], set[int], int]] = {}
    hidden: set[int] = set()
    box: list[FakeLog] = []

    def watch(peers: list[Peer]) -> None:
        for peer in peers:
            engine, seat, deck = peer.record.engine, peer.seat, peer.deck
            if engine is None or seat is None or not isinstance(deck, FairDeck):
                continue
            if engine.state.round == 1:
                held[seat].update(engine.state.hands[seat])
            elif engine.state.round == 2 and seat not in seen and box:
                log = box[0]
                faces = readable(deck, keys_held(peer, log, len(log.entries)))
                shown = set(deck.public) | set(engine.state.faces) | deck.shown_to.get(seat, set())
                seen[seat] = (faces, held[seat] | shown, len(deck.where))
                hidden.update(t for t in deck.where if t not in shown)

    run_virtual(fair_game(watch=watch, log_out=box))
    assert sorted(seen) == [0, 1, 2, 3]
    for seat, (faces, allowed, _made) in seen.items():
        assert set(faces) <= allowed, f"seat {seat} can read {sorted(set(faces) - allowed)}"
        assert held[seat] & set(faces), "it reads its own cards"
    assert hidden, "some cards were never shown to anyone but their holder"


def test_the_log_of_a_fair_game_read_alone_names_no_card_the_table_was_not_shown() -> None:
    """The log file alone (issue 14): replayed, it makes the table's digest, and its fair deck (no
    seat's secrets) reads only the cards shown to the table; no other card's name is anywhere in its
    bytes, though the audits ran (their secrets went to the players, not to the log)."""
    log, peers = run_virtual(fair_game())
    shown: set[str] = set()

    def gather(_record: Any, notice: Any) -> None:
        for effect in getattr(notice, "effects", ()):  # what the table is told: each face was shown to all
            if effect["kind"] != "shuffled":  # but the cards a shuffle takes (which is which is hidden)
                shown.update(value for value in _strings(effect) if value in all_faces)

    table_deck = peers[0].deck
    assert isinstance(table_deck, FairDeck)
    all_faces = set(table_deck.all_faces)
    record, replay_deck = replayed_with_deck(log.entries, gather)
    assert record.engine is not None and peers[0].record.engine is not None
    assert record.engine.digest() == peers[0].record.engine.digest()
    assert isinstance(replay_deck, FairDeck)
    assert set(replay_deck.public.values()) <= shown
    # Every text in the log (keys and points are bytes, where a card's name could appear by chance).
    texts = {text for data in log.entries for text in _strings(msgpack.unpackb(data, strict_map_key=False))}
    assert texts & all_faces <= shown
    never_shown = all_faces - shown
    assert never_shown, "some cards were never shown to the table"
    # The players' decks did read them: at the audits, every card of every shuffle.
    assert never_shown <= set(table_deck.audited_faces.values())


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list | tuple):
        return [s for item in value for s in _strings(item)]
    return []


class DeckTable:
    """Four seats' fair decks without a network: what one returns goes to the others at once (parts
    to every deck in one order, as the log would; keys to their seat; secrets to all)."""

    def __init__(self, players: int = 4, kept: bool = False) -> None:
        self.decks = [FairDeck("table", players) for _ in range(players)]
        for seat, deck in enumerate(self.decks):
            deck.here = {seat}
            if kept:  # each seat's player keeps its secrets (``kdm.kept``)
                deck.kept = {seat: Kept(bytes([seat + 1]) * 32)}
        #: Everything the decks were told in order, as a process started again replays it: effects, and
        #: parts with their seat.
        self.history: list[tuple[dict[str, Any] | DeckPart, int]] = []
        self.state = TableState(players=players, options={})
        self.counter = 0
        #: A seat's turn rewritten before it reaches the log (a cheat), by (step, seat).
        self.tamper: dict[tuple[str, int], Callable[[list[bytes]], list[bytes]]] = {}
        #: Turns on their way to the log while the seats hand them on straight (None: the log is quick).
        self.held_back: list[ToLog] | None = None
        self.log: list[DeckPart] = []
        #: (giver, receiver): keys one seat's process never sends another.
        self.withheld: set[tuple[int, int]] = set()
        #: Parts every deck refused: (seat, why).
        self.refused: list[tuple[int, str]] = []

    def made(self, effect: dict[str, Any]) -> None:
        self.history.append((effect, -1))
        for deck in self.decks:
            deck.observe([effect])  # type: ignore[list-item]

    def settle(self, duties: tuple[Duty, ...] = (), now_ms: float | None = None) -> None:
        """Every deck does what it owes until none owes anything (with ``held_back``, the turns reach
        the log only when nothing else moves, the latest first)."""
        busy = True
        while busy:
            busy = False
            for deck in self.decks:
                for item in deck.work(self.state, duties, now_ms):
                    busy = True
                    self.deliver(item)
            if not busy and self.held_back:
                busy, late = True, self.held_back[::-1]
                self.held_back = []
                for part in late:
                    self.commit(part)

    def deliver(self, item: ToLog | ToNext | ToSeat | ToTable | Reseal) -> None:
        if isinstance(item, ToSeat):
            if (item.sender, item.to) not in self.withheld:
                self.decks[item.to].received(item)
        elif isinstance(item, Reseal):  # what a peer does: seals each key to the asker, in the log
            pairs = b"".join(t.to_bytes(4, "big") + item.to.to_bytes(4, "big") for t in sorted(item.keys))
            self.commit(
                ToLog(item.sender, {"step": "sealed", "tokens": pairs, "keys": bytes(72 * len(item.keys))})
            )
            self.decks[item.to].received(
                ToSeat(item.sender, item.to, {t: {item.sender: k} for t, k in item.keys.items()})
            )
        elif isinstance(item, ToTable):
            for deck in self.decks:
                if item.sender not in deck.here:
                    deck.opened(item)
        elif isinstance(item, ToNext):
            tamper = self.tamper.get((item.step, item.sender))
            deck = item.deck if tamper is None else b"".join(tamper(_split(item.deck)))
            assert self.decks[item.to].ahead(dataclasses.replace(item, deck=deck)) is None
        elif self.held_back is not None and item.fields["step"] in ("lock", "key", "strip"):
            self.held_back.append(item)
        else:
            self.commit(item)

    def commit(self, item: ToLog) -> None:
        fields = dict(item.fields)
        tamper = self.tamper.get((fields["step"], item.seat))
        if tamper is not None:
            fields["deck"] = b"".join(tamper(_split(fields["deck"])))
        self.counter += 1
        part = DeckPart(EntryId("n", self.counter), seat=item.seat, **fields)
        answers = {deck.committed(part, item.seat) for deck in self.decks}
        assert len(answers) == 1, answers  # every peer takes it, or refuses it for one reason
        (answer,) = answers
        self.history.append((part, item.seat))
        if answer is None:
            self.log.append(part)
        else:
            assert tamper is not None, answer  # only a tampered turn is refused
            self.refused.append((item.seat, answer))

    def restart(self, seat: int) -> FairDeck:
        """Seat ``seat``'s process started again: a new deck, with what its player keeps, that replays
        everything the table's log told (nothing it was handed straight)."""
        deck = FairDeck("table", len(self.decks))
        deck.here, deck.kept = {seat}, dict(self.decks[seat].kept)
        for told, by in self.history:
            if isinstance(told, DeckPart):
                deck.committed(told, by)
            else:
                deck.observe([told])  # type: ignore[list-item]
        self.decks[seat] = deck
        return deck

    def faces(self, seat: int) -> dict[int, str]:
        return self.decks[seat].knowledge(self.state, seat).faces

    def draw(self, seat: int, token: int) -> None:
        """Seat ``seat`` draws ``token`` face up: the others hand it their keys, it reads the card first,
        and its draw carries every key (``Act.keys``), which shows the card to the whole table."""
        self.settle((Duty("draw", seat=seat, tokens=(token,)),))
        drawer = self.decks[seat]
        assert token in drawer.known.get(seat, {}) and all(token not in deck.public for deck in self.decks)
        keys = pack_keys({token: drawer.handing.keys_of(seat, token)})
        for deck in self.decks:
            assert deck.show_keys(seat, keys) is None


def _split(deck: bytes) -> list[bytes]:
    return [deck[i : i + 32] for i in range(0, len(deck), 32)]


PILE = ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H"]


def dealt_pile(table: DeckTable) -> list[int]:
    """A fresh shuffle of ``PILE`` into the pile, settled; seat 0 is dealt the top two cards."""
    tokens = list(range(len(PILE)))
    table.state.zones["pile"] = list(tokens)
    table.made({"kind": "shuffled", "zone": "pile", "tokens": tokens, "pool": PILE, "seed": b""})
    table.settle()
    table.state.hands[0] = [table.state.zones["pile"].pop(), table.state.zones["pile"].pop()]
    table.settle()
    return tokens


def test_cards_a_voided_round_dealt_again_name_nobody_at_the_audit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 'A referee nobody can fool', item 2: a voided round deals the cards lying hidden on the table
    again, by a fresh shuffle of the same tokens; their new faces are not the old shuffle's, and its audit
    once named a seat -1 for each ("claimed 5C at position 30, which holds another card"). Here the first
    shuffle keeps the open deck's order and the one that deals again rotates it, so that every card dealt
    again gets another face; the audits find nobody, and what they read is each card's face now."""
    honest_secrets = turns_module.deal_secrets

    def secrets(size: int, draw: list[int] | None = None, stream: Any = None) -> Any:
        order = list(range(size))
        return honest_secrets(size, order[1:] + order[:1] if size == 3 else order, stream)

    monkeypatch.setattr(turns_module, "deal_secrets", secrets)
    table = DeckTable()
    pile = table.state.zones["pile"] = list(range(len(PILE)))
    table.made({"kind": "shuffled", "zone": "pile", "tokens": list(pile), "pool": PILE, "seed": b""})
    table.settle()

    def draw_all(count: int) -> dict[int, str]:
        drawn = {}
        for _ in range(count):
            top = pile[-1]
            table.draw(0, top)
            drawn[top] = table.state.faces[top] = table.decks[0].public[top]
            pile.pop()
        return drawn

    first = draw_all(len(PILE) - 3)
    hidden = list(pile)
    for deck in table.decks:
        deck.voided(table.state)
    table.settle()
    again = draw_all(3)
    old = {token: sorted(PILE)[token] for token in hidden}  # the open deck's order, kept
    assert all(again[token] != old[token] for token in hidden)  # every card dealt again, another face
    for deck in table.decks:
        deck.over = True
    table.settle()
    for deck in table.decks:
        assert deck.findings == [] and all(shuffle.audited for shuffle in deck.shuffles)
        assert {token: deck.audited_faces[token] for token in again} == again
        assert {token: deck.audited_faces[token] for token in first} == first


def test_a_reshuffle_takes_hidden_and_shown_cards_and_keeps_them_hidden_until_shown() -> None:
    """A reshuffle (a flush with flush_to=shuffle, the Kem's bin becoming the talon) takes cards dealt
    by an earlier shuffle, some never shown: each seat first swaps its keys on them for a blind, then
    the two passes; after it, a card drawn is shown with every seat's key, a card dealt is read by its
    seat alone, and the audit at the end finds nobody."""
    table = DeckTable()
    dealt_pile(table)
    assert set(table.faces(0).values()) <= set(PILE) and len(table.faces(0)) == 2
    assert table.faces(1) == {}
    top = table.state.zones["pile"][-1]
    table.draw(1, top)  # shown to the table
    drawn = table.decks[1].public[top]
    assert all(deck.public[top] == drawn for deck in table.decks)
    table.state.zones["kilos"] = [table.state.zones["pile"].pop()]
    old = table.state.zones["pile"] + table.state.zones.pop("kilos")  # flushed under the pile
    new = list(range(100, 100 + len(old)))
    table.state.zones["pile"] = list(new)
    table.made({"kind": "shuffled", "zone": "pile", "tokens": new, "from_tokens": old, "seed": b""})
    table.settle()
    assert all(not deck.shuffles[1].broken and deck.shuffles[1].turn(4) is None for deck in table.decks)
    assert all(token not in deck.public for deck in table.decks for token in new)
    table.state.hands[2] = [table.state.zones["pile"].pop()]
    table.draw(3, table.state.zones["pile"][-1])
    in_hand = table.faces(2)
    assert len(in_hand) == 1 and set(in_hand.values()) <= set(PILE) - set(table.faces(0).values())
    assert all(table.state.hands[2][0] not in table.faces(seat) for seat in (0, 1, 3))
    shown = table.decks[0].public[table.state.zones["pile"][-1]]
    assert shown in set(PILE) - set(table.faces(0).values()) - set(in_hand.values())
    for deck in table.decks:
        deck.over = True
    table.settle()
    for deck in table.decks:
        assert deck.findings == [] and all(shuffle.audited for shuffle in deck.shuffles)
        reshuffled = [deck.audited_faces[token] for token in new]
        assert sorted(reshuffled) == sorted(deck.audited_faces[token] for token in old)


def test_a_process_started_again_makes_its_seats_secrets_again_and_reads_its_hand_from_the_log() -> None:
    """Issue 'A referee nobody can fool', item 2: seat 2's process dies after a fresh shuffle and a
    reshuffle (strip, lock, key) and starts again. Replaying the log with what its player keeps, it
    makes again the secrets of every turn its seat took (the same as before: the commitments in the
    log hold them), asks in the log for the keys of its card it was handed straight, reads the card it
    held, hands the others its keys as before, and the audits at the end find nobody."""
    table = DeckTable(kept=True)
    dealt_pile(table)
    old = table.state.zones["pile"]
    new = list(range(100, 100 + len(old)))
    table.state.zones["pile"] = list(new)
    table.made({"kind": "shuffled", "zone": "pile", "tokens": new, "from_tokens": old, "seed": b""})
    table.settle()
    table.state.hands[2] = [table.state.zones["pile"].pop()]
    table.settle()
    held, before = table.faces(2), table.decks[2].private
    assert len(held) == 1
    again = table.restart(2)
    assert again.private.secrets == before.secrets and set(before.secrets) == {(0, 2), (1, 2)}
    assert again.private.blinds == before.blinds and set(before.blinds) == {(1, 2)}
    assert table.faces(2) == {}  # its keys were handed straight: nothing in the log shows them
    table.settle(now_ms=0.0)
    table.settle(now_ms=ASK_AFTER_MS)
    assert table.faces(2) == held
    table.draw(3, table.state.zones["pile"][-1])  # seat 2's key for it is the one it committed to
    for deck in table.decks:
        deck.over = True
    table.settle()
    for deck in table.decks:
        assert deck.findings == [] and all(shuffle.audited for shuffle in deck.shuffles)


def test_a_process_that_kept_nothing_makes_no_secrets_for_the_turns_it_took_before() -> None:
    """Without what its player keeps (another key, a lost data directory) a process started again makes
    no secrets for its seat's turns: it reads nothing and hands nothing, and the table waits on it
    (``kdm.host.takeovers`` takes the seat as one that withholds its keys)."""
    table = DeckTable(kept=True)
    dealt_pile(table)
    table.decks[2].kept = {2: Kept(b"\xff" * 32)}
    again = table.restart(2)
    assert again.private.secrets == {} and again.private.blinds == {}
    table.state.hands[2] = [table.state.zones["pile"].pop()]
    table.settle(now_ms=0.0)
    assert table.faces(2) == {}


def test_a_reshuffle_strip_that_swapped_a_card_is_refused_at_its_turn_and_names_its_seat() -> None:
    table = DeckTable()
    dealt_pile(table)
    old = table.state.zones["pile"]
    new = list(range(100, 100 + len(old)))
    table.state.zones["pile"] = new
    table.tamper[("strip", 2)] = lambda points: [points[0], *points][: len(points)]
    table.made({"kind": "shuffled", "zone": "pile", "tokens": new, "from_tokens": old, "seed": b""})
    table.settle()
    why = "its strip deck at position 1 is not the card it was handed, under the key it committed to"
    assert table.refused == [(2, f"seat 2's strip: {why}")]
    for deck in table.decks:
        assert [(finding.seat, finding.reason) for finding in deck.findings] == [(2, f"in shuffle 1: {why}")]
        assert deck.shuffles[1].turn(4) == ("strip", 2)  # nothing of it is dealt: the table waits on seat 2
        assert deck.waiting_on(table.state, ()) == {2}


def test_a_seat_that_shows_false_faces_at_a_fair_table_is_refused_by_every_peer(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A false face claimed in a reveal: each process lies once, at the first card it shows (a card
    drawn under another name, a hand shown as four aces). Its keys show the true faces, so every peer
    refuses the lie with the card's true face, and the game goes on to one digest."""
    lies: list[Event] = []
    with caplog.at_level(logging.INFO, logger="kdm.peer"):  # (a queen not called: the rules' to refuse)
        _log, peers = run_virtual(fair_game(before_start=lambda peers: lying_once(peers, lies, (Announce,))))
    assert lies
    assert len({peer.record.engine.digest() for peer in peers}) == 1  # type: ignore[union-attr]
    refusals = re.findall(r": it names card \d+ \S+, but card \d+ is", caplog.text)
    assert len(refusals) == 4 * len(lies)  # by every peer, the liar's own included


@pytest.mark.parametrize(
    ("step", "tamper", "why"),
    [
        ("lock", lambda points: [points[0], *points][: len(points)], "its lock deck holds a card twice"),
        (
            "lock",
            lambda points: [lock(points[0], random_key()), *points[1:]],
            "its lock deck is not the deck it was handed, locked with the key it committed to",
        ),
        (
            "lock",  # one card for a card from outside the deck
            lambda points: [lock(card_point("AS", "table"), random_key()), *points[1:]],
            "its lock deck is not the deck it was handed, locked with the key it committed to",
        ),
        (
            "key",
            lambda points: [points[1], points[0], *points[2:]],
            "its key deck at position 0 is not the card it was handed, under the key it committed to",
        ),
    ],
    ids=["a card twice", "a point that is no card", "a card from outside", "two positions swapped"],
)
def test_a_shuffle_turn_that_is_not_what_its_keys_make_is_refused_at_its_turn_by_every_peer(
    step: str, tamper: Callable[[list[bytes]], list[bytes]], why: str
) -> None:
    """Issue 'A referee nobody can fool', item 3: a turn proves it used the deck it was handed and the
    keys it committed to (``kdm.fair.proofs``); every peer checks it when the log has it, before any card
    is dealt, refuses it for one reason and names its seat. The table waits on that seat's turn again
    (taken over once it withholds it past ``key_timeout_s``)."""
    table = DeckTable()
    table.tamper[(step, 1)] = tamper
    table.made(
        {"kind": "shuffled", "zone": "pile", "tokens": list(range(len(PILE))), "pool": PILE, "seed": b""}
    )
    table.settle()
    assert table.refused == [(1, f"seat 1's {step}: {why}")]
    for deck in table.decks:
        assert [(finding.seat, finding.reason) for finding in deck.findings] == [(1, f"in shuffle 0: {why}")]
        assert deck.shuffles[0].turn(4) == (step, 1) and deck.waiting_on(table.state, ()) == {1}


def test_a_false_key_handed_for_a_card_names_the_seat_that_handed_it() -> None:
    """A wrong key, and a lie about a passed card (the keys of another card, handed as this one's):
    the receiver checks each key against its owner's commitment, keeps none and names the sender."""
    table = DeckTable()
    dealt_pile(table)
    mine, other = table.state.hands[0]
    keys = table.decks[0].handing.keys_of(0, other)  # every key of a card seat 0 reads
    assert table.decks[1].received(ToSeat(0, 1, {mine: keys})) == []  # handed as another card's keys
    wrong = {3: bytes([5]) + bytes(31)}
    assert table.decks[1].received(ToSeat(3, 1, {mine: wrong})) == []
    assert [finding.seat for finding in table.decks[1].findings] == [0, 3]
    assert table.faces(1) == {}


def test_a_player_gone_mid_round_takes_its_keys_away_and_the_round_is_played_again() -> None:
    """Seat 2's process dies once round 2 is under way: the keys it held for the round's deal and for the
    pile are gone with it. The table takes the seat over (the rule for an absent player: a bot plays
    it), voids the round, deals the pile's hidden cards again by a fresh shuffle, and plays round 2
    again from its deal with the stand-in's new keys, to the end."""
    voided: list[str] = []

    def second_round(peers: list[Peer]) -> Peer | None:
        engine = peers[2].record.engine
        if engine is None or engine.state.round < 2 or engine.state.phase != "passing":
            return None
        peers[0].on_notice = lambda notice: (
            voided.append(notice.reason) if isinstance(notice, Voided) else None
        )
        return peers[2]

    log, survivors = run_virtual(fair_game(kill=second_round))
    assert len({peer.record.engine.digest() for peer in survivors}) == 1  # type: ignore[union-attr]
    engine = survivors[0].record.engine
    assert engine is not None and engine.over and engine.state.round == 2
    assert survivors[0].record.seats[2].node == "n0#2"
    assert voided and voided[0].startswith("seat 2 changed hands") and "played again" in voided[0]
    deck = survivors[0].deck
    assert isinstance(deck, FairDeck) and deck.findings == []
    replay = replayed_with_deck(log.entries)[0].engine
    assert replay is not None and replay.digest() == engine.digest()


def test_a_seat_that_withholds_its_turn_is_named_and_a_bot_plays_it_to_the_end() -> None:
    """Seat 3's process stays up but never takes its turn in round 2's shuffle. The leader, after the
    table has waited ``key_timeout_s`` on it, takes the seat over saying why; the round is played again
    with the stand-in, the player may not take the seat back, and the seat is charged (RULES 1.4)."""
    said: list[str] = []

    def withhold(peers: list[Peer]) -> None:
        for peer in peers:
            peer.key_timeout_s = 0.5
        peers[0].on_notice = lambda notice: (
            said.append(notice.reason) if isinstance(notice, TookOver) else None
        )
        deck = peers[3].driver and peers[3].deck
        assert isinstance(deck, FairDeck)
        honest = deck.turns.owed
        deck.turns.owed = lambda: [] if len(deck.shuffles) > 2 else honest()  # type: ignore[method-assign]

    log, peers = run_virtual(fair_game(before_start=withhold, takeover_after_s=60.0))
    assert said == ["withheld its keys for 0.5 s"]
    record = peers[0].record
    assert record.seats[3].node == "n0#3" and record.barred == {3}
    assert record.engine is not None and record.engine.over and record.engine.state.round == 2
    assert len({peer.record.engine.digest() for peer in peers}) == 1  # type: ignore[union-attr]
    # RULES 1.4: charged for it, on every peer and in a replay of the log.
    assert record.engine.state.rules["kilo"].charged == {3: 100}
    assert record.engine.state.scores[3] >= 100
    replay = replayed_with_deck(log.entries)[0].engine
    assert replay is not None and replay.digest() == record.engine.digest()


def test_at_a_signed_table_a_seat_that_withholds_its_turn_is_taken_with_the_voters_word() -> None:
    """The same at a table whose ids carry keys: the leader's takeover carries the word of a quorum of
    the other voters that the deck has waited on seat 3's keys as long, each from its own deck."""
    said: list[str] = []

    def withhold(peers: list[Peer]) -> None:
        for peer in peers:
            peer.key_timeout_s = 0.5
        peers[0].on_notice = lambda notice: (
            said.append(notice.reason) if isinstance(notice, TookOver) else None
        )
        deck = peers[3].deck
        assert isinstance(deck, FairDeck)
        honest = deck.turns.owed
        deck.turns.owed = lambda: [] if len(deck.shuffles) > 2 else honest()  # type: ignore[method-assign]

    log, peers = run_virtual(fair_game(before_start=withhold, takeover_after_s=60.0, log=SignedLog()))
    assert said == ["withheld its keys for 0.5 s"]
    record = peers[0].record
    assert record.signed and record.barred == {3} and record.seats[3].node == f"{peers[0].node.node_id}#3"
    (takeover,) = [entry for entry in map(entries.decode, log.entries) if isinstance(entry, Takeover)]
    voters = [peer.node.node_id for peer in peers[:3]]
    assert len(takeover.silence) >= 2 and set(takeover.silence) <= set(voters)
    assert record.engine is not None and record.engine.over
    assert len({peer.record.engine.digest() for peer in peers}) == 1  # type: ignore[union-attr]


class _Rules:
    """Rules that name no face and reveal what ``revealed`` says (for a deck's check of one event)."""

    def __init__(self, revealed: Event) -> None:
        self.revealed = revealed

    @property
    def hooks(self) -> Any:
        """The hooks a deck's check asks (``Rules.hooks``): nothing claimed or false, ``revealed`` shown."""
        return SimpleNamespace(
            claimed_faces=lambda **_: None, false_claim=lambda **_: None, reveal=lambda **_: self.revealed
        )


class _Engine:
    def __init__(self, duty: Duty, revealed: Event) -> None:
        self.rules, self.state, self.duty = _Rules(revealed), TableState(players=4, options={}), duty

    def awaiting(self) -> list[Duty]:
        return [self.duty]

    def snapshot(self) -> TableState:
        return self.state


@pytest.mark.parametrize("deck", [OpenDeck(), FairDeck("table", 4)], ids=["open", "fair"])
def test_a_seats_own_decision_is_not_held_against_what_the_table_would_have_chosen(deck: Any) -> None:
    """A seat's decision with a deadline (RULES 2.5: the 7 kept or not) is the seat's: a 'no' is no
    false claim because the table, answering for a silent seat, would have said 'yes'. A reveal the
    table answers from the faces alone is still checked."""
    from plugins.seven_in_reserve import KeepSeven

    asked = Duty("keep_seven", seat=1, tokens=(5,), after_ms=1000.0, ref=3)
    engine = _Engine(asked, revealed=KeepSeven(seat=1, keep=True))
    assert deck.false_claim(engine, KeepSeven(seat=1, keep=False)) is None
    if isinstance(deck, OpenDeck):
        shown = Duty("keep_seven", seat=1, tokens=(5,))  # the same, were it the table's to answer
        assert deck.false_claim(_Engine(shown, KeepSeven(1, True)), KeepSeven(1, False)) is not None


def test_turns_handed_straight_on_do_not_wait_for_the_log_and_may_reach_it_in_any_order() -> None:
    """Each seat hands its turn straight to the next (``ToNext``) and takes its own on it at once: the
    whole shuffle is taken before the log has any of it. The log then gets the turns latest first: it
    keeps each until the one before it is in, and takes them all, each checked against the deck it
    was taken on; the cards read as they do with a quick log."""
    table = DeckTable()
    table.held_back = []
    dealt_pile(table)
    shuffle = table.decks[0].shuffles[0]
    assert shuffle.turn(4) is None and not shuffle.waiting
    assert len(table.faces(0)) == 2 and set(table.faces(0).values()) <= set(PILE)
    top = table.state.zones["pile"][-1]
    table.draw(1, top)
    assert len({deck.public[top] for deck in table.decks}) == 1
    for deck in table.decks:
        deck.over = True
    table.settle()
    assert all(deck.findings == [] for deck in table.decks)


def test_a_turn_taken_on_a_deck_the_log_does_not_hold_is_refused() -> None:
    table = DeckTable()
    tokens = list(range(len(PILE)))
    table.made({"kind": "shuffled", "zone": "pile", "tokens": tokens, "pool": PILE, "seed": b""})
    deck = table.decks[0]
    (first,) = [item for item in deck.work(table.state, ()) if isinstance(item, ToLog)]
    table.commit(first)
    second = next(item for item in table.decks[1].work(table.state, ()) if isinstance(item, ToLog))
    forged = DeckPart(EntryId("n", 99), seat=1, **{**second.fields, "after": bytes(32)})
    assert deck.committed(forged, 1) == "seat 1's lock was taken on a deck the log does not hold"
    assert deck.committed(DeckPart(EntryId("n", 98), seat=1, **second.fields), 1) is None


@pytest.mark.parametrize(
    ("variants", "options"),
    [
        (("kems",), {"target": 2, "sweep_after_ms": 2000, "call_window_ms": 300}),
        (("spoons",), None),
        (("piles",), None),
        (("jokers",), None),
        (("seven_in_reserve",), None),
        (("all_at_once",), None),
        # A marathon round with these quick bots may pass for ever once two seats are barred (with the
        # open deck too): two windows are enough to see the round go on after one.
        (("marathon",), {"rounds": 2, "slap_timeout_ms": 200, "marathon_max_slaps": 2}),
        (("classic",), {"rounds": 2, "slap_timeout_ms": 200, "marathon_max_slaps": 2}),
        ((), {"rounds": 2, "slap_timeout_ms": 200, "direction": "left", "flush_to": "shuffle"}),
    ],
    ids=lambda value: (value[0] if value else "base") if isinstance(value, tuple) else "",
)
def test_every_game_and_variant_plays_to_its_end_with_the_fair_deck(
    variants: tuple[str, ...], options: dict[str, Any] | None
) -> None:
    _log, peers = run_virtual(fair_game(options=options, variants=variants))
    assert len({peer.record.engine.digest() for peer in peers}) == 1  # type: ignore[union-attr]
    assert all(peer.record.engine is not None and peer.record.engine.over for peer in peers)
    for peer in peers:
        assert isinstance(peer.deck, FairDeck) and peer.deck.findings == []
        assert all(shuffle.audited for shuffle in peer.deck.shuffles)


@pytest.mark.parametrize(
    ("hand", "shown", "false"),
    [
        (["9H", "9S", "9D", "9C"], ["9H", "9S"], "holds four of a kind"),
        (["KH", "KS", "QD", "JC"], ["KH", "KS"], "of different ranks"),
        (["KH", "KS", "QD", "JC"], ["KS", "QD"], None),
    ],
    ids=["four-answered-with-two", "two-of-one-rank", "honest"],
)
def test_a_kems_accuseds_two_cards_are_judged_by_a_fair_tables_audit(
    hand: list[str], shown: list[str], false: str | None
) -> None:
    """RULES 3.5 at a fair table: no face of the accused's hand is shown, so the two cards that answer a
    Contre are taken on its word when they come; the audit, which reads every face, asks the rules again
    (``kdm_false_claim``) and names a seat whose answer hid four of a kind or showed two of one rank,
    and nobody for an honest answer."""
    table = ScriptedTable(4, variants=["kems"], seed=b"a fair contre")
    deal(table, hands=[hand], turned=TURNED)
    table.act(Call(seat=1, call="contre", target=0, t_sync=1000.0))
    table.act(Close(), settle=False)
    by_face = {table.deck.faces[token]: token for token in table.state.hands[0]}
    answer = ShowTwo(seat=0, tokens=tuple(by_face[face] for face in shown))
    deck = FairDeck("table", 4)
    assert deck.false_claim(table.engine, answer) is None  # no face of that hand is public yet
    seq = table.state.seq
    table.engine.apply(answer)  # the rules take it: they read no face
    deck.applied(answer, seq)
    deck.shared.audited_faces.update(table.deck.faces)  # the round's audit read every face
    deck.audits.check_trusted()
    if false is None:
        assert deck.findings == []
    else:
        ((finding,),) = [deck.findings]
        assert finding.seat == 0 and "its show_two was false" in finding.reason and false in finding.reason


def test_a_queen_called_by_a_seat_that_does_not_hold_it_is_named_by_the_audit() -> None:
    """A reveal the table takes on a seat's word: who holds a queen shows no card, so nobody can check
    the call when it is made. Seat 0's process calls a queen it does not hold, once (the others, who
    would call it, let seat 0 speak first: both queens are called at this table, so seat 0 lacks one
    of them in some round); the round goes on, and when its cards are audited every process names
    seat 0, and nobody else."""
    lies: list[Announce] = []
    spoken: set[tuple[int, str]] = set()  # (round, queen) seat 0 has called, truly or not

    def lie_about_a_queen(peers: list[Peer]) -> None:
        for peer in peers:
            driver, engine = peer.driver, peer.record.engine
            assert driver is not None and engine is not None
            honest = driver.fulfil

            def calling(
                duty: Duty,
                honest: Callable[[Duty], Event | None] = honest,
                peer: Peer = peer,
                engine: Engine = engine,
            ) -> Event | None:
                event = honest(duty)
                if duty.kind != "announce":
                    return event
                called = (engine.state.round, duty.cards[0])
                if peer.seat != 0:
                    return event if called in spoken else None
                faces = peer.deck.knowledge(engine.state, 0).faces
                if len(faces) < len(engine.state.hands[0]):
                    return None  # its keys are on their way
                if event is None and not lies:
                    event = Announce(seat=0, card=duty.cards[0])
                    lies.append(event)
                spoken.add(called)
                if event is None:  # seat 0 lets it pass: the others may call it now
                    for other in peers[1:]:
                        asyncio.get_running_loop().call_soon(owe_now, other)
                return event

            driver.fulfil = calling  # type: ignore[method-assign]

    options = {"rounds": 3, "slap_timeout_ms": 200, "direction": "toward-queen-of-spades"}
    _log, peers = run_virtual(fair_game(options=options, before_start=lie_about_a_queen))
    assert lies
    for peer in peers:
        assert isinstance(peer.deck, FairDeck)
        assert [(f.seat, f.reason) for f in peer.deck.findings] == [
            (0, "its announce did not say what its cards were")
        ]


def test_keys_that_never_come_are_asked_for_in_the_log_and_given_there_sealed() -> None:
    """Seat 3's process does not send seat 1 its keys for seat 1's cards. After ``ASK_AFTER_MS`` seat 1
    asks in the log; the table waits on seat 3 (``waiting_on``) until it gives them there, sealed to
    seat 1; seat 1 reads its cards, and nobody else learns anything."""
    table = DeckTable()
    table.withheld.add((3, 1))
    dealt_pile(table)
    table.state.hands[1] = [table.state.zones["pile"].pop(), table.state.zones["pile"].pop()]
    table.settle(now_ms=0.0)
    assert table.faces(1) == {} and all(deck.waiting_on(table.state, ()) == set() for deck in table.decks)
    table.settle(now_ms=ASK_AFTER_MS - 1)
    assert not any(part.step == "missing" for part in table.log)
    table.withheld.clear()  # (the keys it sends from now on would come; these were lost)
    table.settle(now_ms=ASK_AFTER_MS)
    asked = [part for part in table.log if part.step == "missing"]
    sealed = [part for part in table.log if part.step == "sealed"]
    assert [(part.seat, len(part.tokens) // 8) for part in asked] == [(1, 2)]
    assert [(part.seat, len(part.tokens) // 8) for part in sealed] == [(3, 2)]
    assert len(table.faces(1)) == 2 and all(not deck.asked for deck in table.decks)


def test_a_seat_that_owes_a_key_asked_for_in_the_log_is_waited_on() -> None:
    table = DeckTable()
    table.withheld.add((3, 1))
    dealt_pile(table)
    table.state.hands[1] = [table.state.zones["pile"].pop()]
    table.decks[3].handing.answer = lambda: []  # type: ignore[method-assign]
    table.settle(now_ms=0.0)
    assert table.decks[1].next_ask_ms() == ASK_AFTER_MS  # (a quiet table's work is due then)
    table.settle(now_ms=ASK_AFTER_MS)
    assert all(deck.waiting_on(table.state, ()) == {3} for deck in table.decks)
    assert table.faces(1) == {}
    # Asked for: the answer is owed in the log, and no ask is due again (a time left in the past
    # would have the seat watcher work at every tick while the key stays missing).
    assert table.decks[1].next_ask_ms() == math.inf


def test_a_seat_that_never_gives_a_seat_its_keys_is_taken_over_and_the_round_dealt_again() -> None:
    """Seat 3's process never sends seat 1 its keys, and does not give them when seat 1 asks in the
    log. Seat 1's player waits for their cards (they have no bot). The leader takes seat 3 over once the
    table has waited on it ``key_timeout_s``, saying why; the round is dealt again, and seat 1 reads
    its new hand."""

    async def scene() -> tuple[list[str], list[Peer]]:
        log = FakeLog()
        peers = bot_peers(log, 4, b"fair-test", people=(1,))  # seat 1: a person, who waits
        said: list[str] = []
        peers[0].on_notice = lambda notice: (
            said.append(notice.reason) if isinstance(notice, TookOver) else None
        )
        for peer in peers:
            peer.key_timeout_s = 0.5
            peer.start(takeover_after_s=2.0)
        options = {"rounds": 2, "slap_timeout_ms": 200}
        peers[0].create_table("kitchen", 4, options, Rules.for_table(), deck="fair")
        await asyncio.sleep(0)
        for peer in peers[1:]:
            peer.join_table()
        await until(lambda: len(peers[0].record.seats) == 4, "four seats")
        deck = peers[3].driver and peers[3].deck
        assert isinstance(deck, FairDeck)
        serve = deck.handing.serve
        deck.handing.serve = lambda state: [m for m in serve(state) if m.to != 1]  # type: ignore[method-assign]
        deck.handing.answer = lambda: []  # type: ignore[method-assign]
        peers[0].start_game()
        await until(lambda: said != [], "a bot for seat 3", timeout_s=60.0)

        def reads_its_hand() -> bool:
            engine, seat_deck = peers[1].record.engine, peers[1].deck
            assert engine is not None and isinstance(seat_deck, FairDeck)
            hand = engine.state.hands[1]
            return bool(hand) and all(token in seat_deck.known.get(1, {}) for token in hand)

        await until(reads_its_hand, "seat 1 reading its new hand", timeout_s=60.0)
        for peer in peers:
            await peer.stop()
        return said, peers

    said, peers = run_virtual(scene())
    assert said == ["withheld its keys for 0.5 s"]
    assert peers[0].record.seats[3].node == "n0#3" and peers[0].record.barred == {3}
