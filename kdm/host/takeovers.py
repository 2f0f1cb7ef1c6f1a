"""Seats whose process is gone, and who may say so: the leader's stand-ins and the voters' word.

When a player's process dies mid-game, the leader's process takes the seat over with a bot: a second
agent, with an identity of its own (``node#seat``) so the record can tell who acts for which seat.

No one takes a seat alone: at a signed table the leader's takeover carries the signed word of a quorum
of the other voters that the seat's process is silent (``kdm.record.TableRecord.silence_problem``). The
leader asks the others (``ASK_WORD``) at each look once the seat has missed answering one of its
heartbeats, and a Wi-Fi stall more (``ASK_AFTER_MS``); a follower hears only its leader, so each voter
asked asks the seat's process itself whether it is there (``PROBE``, answered with ``ALIVE``), and
answers (``WORD``) only once that process has left its questions unanswered until the silence limit
runs out (``probe_wait_ms``).
Nothing is said while every seat is heard: a table at rest sends no word (issue 'Light on the CPU'; a
word that each process was alive went from every follower to every other three times a second). A
fair table's seat that withholds its keys past ``key_timeout_s`` is taken over the same way, and so is
a silent seat while a round is in play there (a stand-in would void the round: waiting less would let a
player dodge a card).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgpack

from kdm import entries
from kdm.agents import Bot, Profile
from kdm.entries import SILENT, WITHHELD, Takeover
from kdm.host.io import Send

if TYPE_CHECKING:
    from kdm.host.table import TableHost

log = logging.getLogger("kdm.peer")
#: A seated player's process silent this long is gone: the leader's process plays the seat instead.
#: Short, so that a seat that must act stands still at most 2 s (checked every quarter of it, plus the
#: stand-in's quick think): a player whose Wi-Fi only hiccuped gets the seat back as soon as heard.
TAKEOVER_AFTER_S = 1.2
#: How long a fair table waits for a seat's turn in a shuffle or its key for a card shown before it
#: takes the seat as withheld: a laptop's turn takes a few tens of ms, a slow Wi-Fi's a second.
KEY_TIMEOUT_S = 10.0
#: A stand-in takes a seat that is already late: it thinks briefly, and reacts like a quick person.
STAND_IN = Profile(reaction_ms=250.0, reaction_spread_ms=40.0, think_ms=(100.0, 300.0))
#: Direct messages of the takeovers' word: a would-be taker asks whether a seat is silent, a voter asks
#: that seat's process whether it is there, which answers that it is alive, and a voter says the seat is
#: silent (signed).
ASK_WORD, PROBE, ALIVE, WORD = "silent?", "alive?", "alive", "silent"
#: How long a seat's process is silent to the leader before it asks the voters whether it is: its answer
#: to one of ``kdm.net.node.HEARTBEAT_MS``'s heartbeats missed, and a Wi-Fi stall (100-250 ms) more, so a
#: late answer sets off no questions at rest (a test holds it). The voters then question that process
#: until the silence limit runs out, 0.6 s at the shortest: a live process answers within a round trip,
#: and a Wi-Fi stall each way still comes within it.
ASK_AFTER_MS = 600.0
#: A gap this long between two questions to a process starts its unanswered questions anew: longer than
#: the leader's wait between two asks (a look: 0.3 s). So a question left unanswered long ago (to a
#: process that died, and came back since without a word to this voter) counts nothing when the next
#: ask comes: two Wi-Fi hiccups of a live process a while apart are not one silence.
QUESTIONS_LAPSE_MS = 1000.0
#: The same while the silence limit is long (``LONG_LIMIT_LOOKS``): twice the leader's longest wait
#: between two asks then (a look every 0.6 s, up to ``LONG_LOOK_SLACK_MS`` late), so that neither a
#: late look nor a Wi-Fi stall on the way reads as a lapse.
LONG_QUESTIONS_LAPSE_MS = 2000.0
#: How long a follower's seat watcher (and a leader's look, for the deck) lets a quiet table's deck go
#: without its work when no key is due to be asked for (``kdm.fair.FairDeck.next_ask_ms``): what the
#: work does follows what came in (an entry, keys, a turn) and is done then, so this is only a net
#: under that. A follower takes no seat: it looks only then (issue 'Light on the CPU': every follower
#: looked every 0.3 s, a quarter of a table at rest's wake-ups).
QUIET_WORK_EVERY_MS = 2000.0
#: How much later than due a follower's look may come when its deck's quiet work is all it would do
#: (``Takeovers.slack_ms``): a heartbeat (``kdm.net.node.HEARTBEAT_MS``, 400 ms) and a Wi-Fi stall
#: more, so that at rest the work waits for the leader's next heartbeat to have the process awake
#: (``kdm.peer.Peer.heard``) rather than wake it for itself, a sixth of a follower's wake-ups.
QUIET_WORK_SLACK_MS = 600.0
#: How much later than due a leader's look may come while the silence limit is long
#: (``LONG_LIMIT_LOOKS``; ``Takeovers.slack_ms``): a heartbeat (``kdm.net.node.HEARTBEAT_MS``), so that
#: at rest the look comes with the answers to the leader's next heartbeat (``kdm.peer.Peer.heard``)
#: instead of waking the process for itself (a fair table's leader at rest: 8.9 -> 7.6 wake-ups a
#: second). Against a limit of ``KEY_TIMEOUT_S`` a silent seat is taken twice that later at most (the
#: first ask and the look that takes it may each be late), a seat withholding its keys once.
LONG_LOOK_SLACK_MS = 400.0
#: A look at the seats this late means this process itself was stopped (a sleeping laptop): what it
#: last heard is stale, so it takes no seat over before hearing the table again.
STALL_FACTOR = 2.0
#: A silence limit of at least this many quarters of ``TAKEOVER_AFTER_S`` is long (mid-round at a fair
#: table, where a seat waits ``KEY_TIMEOUT_S``): the seat watcher then looks half as often.
LONG_LIMIT_LOOKS = 8


@dataclass
class Word:
    """The voters' word gathered here for a takeover of one seat: its process, why, and each signer's
    [position, signature] (``kdm.entries.silence_statement``)."""

    node: str
    why: str
    name: str
    silence: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return WITHHELD if self.why else SILENT


class Takeovers:
    """One host's watch on the seats: while it leads, it takes the silent ones over on the voters' word;
    as a voter, it says whether it heard a seat's process."""

    def __init__(self, host: TableHost) -> None:
        self.host = host
        #: How long a seat's process must be silent before it is taken over (None: never, from here).
        self.after_s: float | None = None
        #: How long the leader lets the fair deck wait on a seat's part before a bot takes the seat.
        self.key_timeout_s = KEY_TIMEOUT_S
        self.withheld_since: dict[int, float] = {}
        #: The word gathered for each seat this process would take over, while it leads.
        self.words: dict[int, Word] = {}
        #: Since when this process has led, as its seat watcher saw (None: it does not lead), and since
        #: when it has led without being stopped or starved (``STALL_FACTOR``).
        self.led_since: float | None = None
        self.leading_since: float | None = None
        #: The last time this process found it had been stopped while leading: when it woke, and how
        #: long it had been stopped (ms).
        self.stalled: tuple[float, float] = (-math.inf, 0.0)
        #: When the watcher looked last, when it looks next, and how long it meant to wait in between.
        self.looked_ms = 0.0
        self.next_look_ms = math.inf
        self.look_every_ms = math.inf
        #: How much later than ``next_look_ms`` a leader's next look may come (``LONG_LOOK_SLACK_MS``).
        self.look_slack_ms = 0.0
        #: When a look last had the deck do its work (``QUIET_WORK_EVERY_MS``), or the watch began.
        self.worked_ms = 0.0
        #: Whether no other process sat at the table at the last look: nothing to watch until one does.
        self.alone = False
        #: Since when (local clock) each process asked whether it is there (``PROBE``) has left every
        #: question unanswered (the first question asked after it was last heard, with no lapse in
        #: the questions since: ``QUESTIONS_LAPSE_MS``), and when it was last asked.
        self.probed_ms: dict[str, tuple[float, float]] = {}

    @property
    def limit_s(self) -> float:
        """How long a seat's process must be silent for this process to say so, and for the leader to
        take it over. At a fair table, mid-round, a stand-in would void the round (the seat's keys left
        with its process): a player could dodge the card it read it must draw by freezing. So the table
        waits for the player as long as for its keys, and one back within that plays on in the same
        round; a leader that would take the seat sooner gets no voter's word for it."""
        limit = self.after_s or TAKEOVER_AFTER_S
        return max(limit, self.key_timeout_s) if self.host.record.round_in_play() else limit

    @staticmethod
    def asks_after_ms(after_s: float) -> float:
        """How long a seat's process is silent to the leader before it asks the voters whether it is
        (``take_over_with_word``): ``ASK_AFTER_MS``, or half the takeover limit if that is shorter. So
        their questions to that process have waited long enough as the limit runs out: the seat stands
        still no longer for their asking."""
        return min(ASK_AFTER_MS, after_s * 500)

    def probe_wait_ms(self) -> float:
        """How long a seat's process must leave this voter's questions unanswered for it to say that
        process is silent: from when the leader asks (``asks_after_ms``) to the silence limit (0.6 s;
        mid-round at a fair table, 9.4 s: a player frozen that long is taken over, not one whose Wi-Fi
        hiccuped when a leader that would not wait asked)."""
        return self.limit_s * 1000 - self.asks_after_ms(self.after_s or TAKEOVER_AFTER_S)

    def probe(self, node: str) -> None:
        """Ask process ``node`` whether it is there (it answers ``ALIVE``; any message from it counts),
        noting since when its questions are unanswered."""
        host = self.host
        now = host.clock.local_ms()
        # (none unanswered: heard since the first question, or not asked for a while: questions anew)
        self.probed_ms[node] = (now - self.unanswered_ms(node), now)
        for gone in [other for other in self.probed_ms if not host.record.sits(other)]:
            del self.probed_ms[gone]
        host.out.append(Send(node, msgpack.packb({"t": PROBE})))

    def question(self, seat: int, node: str, kind: str) -> None:
        """Asked (or asking) whether ``seat``'s process ``node`` is silent: ask that process whether it
        is there (``probe``), when it plays that seat and is not this one."""
        seats = self.host.record.seats
        if (
            kind == SILENT
            and 0 <= seat < len(seats)
            and seats[seat].process == node != self.host.node.node_id
        ):
            self.probe(node)

    def unanswered_ms(self, node: str) -> float:
        """How long process ``node`` has left this voter's questions unanswered (0: none, or answered)."""
        host = self.host
        now = host.clock.local_ms()
        since, last = self.probed_ms.get(node, (now, -math.inf))
        waited = now - since
        if now - last > self.questions_lapse_ms() or host.node.silent_ms(node) < waited:
            return 0.0
        return waited

    def questions_lapse_ms(self) -> float:
        """``QUESTIONS_LAPSE_MS``, or ``LONG_QUESTIONS_LAPSE_MS`` while the silence limit is long."""
        return LONG_QUESTIONS_LAPSE_MS if self.limit_is_long() else QUESTIONS_LAPSE_MS

    def limit_is_long(self) -> bool:
        """Whether the silence limit is long (``LONG_LIMIT_LOOKS``): the looks then come half as often."""
        after_s = self.after_s or TAKEOVER_AFTER_S
        return self.look_period_ms(after_s, self.limit_s) > after_s * 250

    def look_period_ms(self, after_s: float, limit_s: float) -> float:
        """How long from one look at the seats to the next: a quarter of ``after_s``, twice that while
        the silence limit is long (``LONG_LIMIT_LOOKS``), when no seat is taken sooner than ``limit_s``,
        nor asked for keys sooner than ``kdm.fair.ASK_AFTER_MS``."""
        quarter = after_s * 250
        return 2 * quarter if limit_s * 1000 >= LONG_LIMIT_LOOKS * quarter else quarter

    def watch(self, after_s: float | None, now: float) -> None:
        """Look at the seats every quarter of ``after_s`` from now on (or never, with None)."""
        self.after_s = after_s
        self.looked_ms = self.worked_ms = now
        self.look_every_ms = after_s * 250 if after_s is not None else math.inf
        self.next_look_ms = now + self.look_every_ms
        self.look_slack_ms = 0.0

    def due_ms(self) -> float:
        """When the next look is due (local clock): while leading, every quarter of ``after_s``
        (``look_period_ms``) while another process sits at the table; none while this one sits alone
        (a waiting room), until another takes a seat (a committed entry, after which the host asks
        again). A follower looks only when its deck has work due (``work_due_ms``), and once more
        when it stops leading (``leader_changed``)."""
        if self.after_s is None or (self.alone and not self.others_seated()):
            return math.inf
        if self.host.node.is_leader or self.led_since is not None:
            return self.next_look_ms
        return self.work_due_ms()

    def slack_ms(self) -> float:
        """How much later than ``due_ms`` the next look may come, done at the next wake-up the process
        has anyway (``kdm.peer.Peer.heard``): ``QUIET_WORK_SLACK_MS`` for a follower (its deck's quiet
        work is a net under the work done as things come in), ``LONG_LOOK_SLACK_MS`` for a leader
        while the silence limit is long, else none (a leader's look takes seats over in 1.2 s). Never
        past a key due to be asked for: that ask is no later than without the slack."""
        leads = self.host.node.is_leader or self.led_since is not None
        allowed = self.look_slack_ms if leads else QUIET_WORK_SLACK_MS
        ask = self.host.fair.next_ask_ms()
        if allowed and self.worked_ms < ask < math.inf:  # (an ask the last work left due waits for the net)
            return max(0.0, min(allowed, ask - self.due_ms()))
        return allowed

    def work_due_ms(self) -> float:
        """When the deck's work is next due at a look: a key to ask for (``next_ask_ms``), else
        ``QUIET_WORK_EVERY_MS`` after the last. An ask the last work left due (this process was
        catching up: the work waited) waits for that net too, or every tick would work again."""
        ask = self.host.fair.next_ask_ms()
        return min(ask if ask > self.worked_ms else math.inf, self.worked_ms + QUIET_WORK_EVERY_MS)

    def leader_changed(self) -> None:
        """The node leads now, or no longer (``LeaderChanged``): a new leader looks at once (the seat
        of the leader it followed waits no longer than any other); a former one looks at its next
        tick, which gives up the takeovers it asked for (``forget``). Neither with any slack."""
        if self.host.node.is_leader or self.led_since is not None:
            self.next_look_ms = min(self.next_look_ms, self.host.clock.local_ms())
            self.look_slack_ms = 0.0

    def others_seated(self) -> bool:
        me = self.host.node.node_id
        return any(seat.process != me for seat in self.host.record.seats)

    def tick(self, now: float) -> None:
        """The seat watcher's look, when it is due. A long time since the last look is a stall of this
        process, unless it sat alone meanwhile."""
        if self.after_s is None or now < self.due_ms():
            return
        slept_ms, self.looked_ms = now - self.looked_ms, now
        # the wait this look was due after, and its slack: much longer is a stall here
        meant_ms = self.look_every_ms + self.look_slack_ms
        self.look_every_ms = self.look_period_ms(self.after_s, self.limit_s)
        self.next_look_ms = now + self.look_every_ms
        long = self.limit_is_long()
        self.look_slack_ms = LONG_LOOK_SLACK_MS if long and self.host.node.is_leader else 0.0
        was_alone, self.alone = self.alone, not self.others_seated()
        # (a follower's looks are far apart: the first as leader tells nothing of a stall)
        late = not was_alone and self.led_since is not None and slept_ms > STALL_FACTOR * meant_ms
        self.look_at_seats(self.after_s, late, slept_ms)

    def look_at_seats(self, after_s: float, late: bool, slept_ms: float = 0.0) -> None:
        """While leading, a bot takes every seat whose process has been silent past ``after_s`` (not
        when this process itself was ``late``, ``slept_ms`` since the last look: stopped or starved,
        it cannot tell who was silent; nor before it has led for ``after_s``: as a follower it heard
        only its leader, so every other process looks silent to it until they answer its first
        heartbeats; the seat of the leader it followed, which it heard to the end, is taken as soon as
        that one is silent past ``after_s``, so that a dead leader's seat waits no longer than any
        other)."""
        host = self.host
        looked = host.clock.local_ms()
        if looked >= self.work_due_ms():
            self.worked_ms = looked
            host.fair.work()  # keys that never came are asked for after a while, the table quiet or not
        # every voter may be asked whether a seat withheld its keys
        self.track_withheld(looked)
        node = host.node
        if not node.is_leader:
            self.leading_since = self.led_since = None
            self.forget()
            return
        now = host.clock.local_ms()
        if self.led_since is None:
            self.led_since = now
        if self.leading_since is None or late:
            self.leading_since = now
        if late:
            self.stalled = (now, slept_ms)
        record, engine = host.record, host.record.engine
        if late or not (record.started and engine is not None):
            return
        settling = now - self.leading_since < after_s * 1000
        silence_s = max(after_s, self.limit_s)  # (longer mid-round at a fair table: ``limit_s``)
        for seat, owner in enumerate(record.seats):
            process = owner.process
            if settling and process != getattr(node, "followed", None):
                continue  # but the leader it followed: it heard that one, and knows how long it is silent
            if engine.over and owner.node in record.done:
                continue  # after the game, a seat is taken over only to say it is done
            if process == node.node_id:
                continue
            silent_ms = node.silent_ms(process)
            if silent_ms > silence_s * 1000 or (
                silent_ms > self.asks_after_ms(after_s) and self.asks_first()
            ):
                # (the voters are asked before the limit: they question the seat meanwhile)
                self.take_over_with_word(seat, owner.name)
        self.look_for_withheld_keys(now)

    def asks_first(self) -> bool:
        """Whether a takeover waits for the voters' word (at a table of fakes, which signs nothing, the
        leader takes the seat at once): they may be asked before the seat is taken."""
        return self.host.sign is not None and self.host.record.signed

    def track_withheld(self, now: float) -> None:
        """Since when a fair deck has waited on each seat's part (a turn in a shuffle, a key for a card
        shown), as seen here: the leader takes a seat that withholds its keys, and a voter asked says
        whether it has waited as long."""
        host = self.host
        engine, deck = host.record.engine, host.deck
        if engine is None or engine.over or not host.record.started:
            self.withheld_since.clear()
            return
        waiting = deck.waiting_on(engine.state, engine.awaiting()) - host.seats_here()
        self.withheld_since = {seat: self.withheld_since.get(seat, now) for seat in waiting}

    def look_for_withheld_keys(self, now: float) -> None:
        """While leading a fair table: a seat the deck has waited on for ``key_timeout_s`` withholds its
        keys, and a bot plays it from here (the round it held up is played again: ``kdm.record``)."""
        host = self.host
        for seat, since in self.withheld_since.items():
            owner = host.record.seats[seat]
            if now - since > self.key_timeout_s * 1000 and owner.process != host.node.node_id:
                self.take_over_with_word(
                    seat, owner.name, why=f"withheld its keys for {self.key_timeout_s:g} s"
                )

    def forget(self) -> None:
        """A takeover asked for while leading is not retried once another process leads: this one may
        have judged the others silent only because it was itself cut off or stopped."""
        host = self.host
        self.words.clear()
        for agent in host.agents[1:]:
            if agent.asking and agent.seat is None:
                agent.asking = False
                host.proposals.forget(agent.identity)

    def take_over(
        self, seat: int, bot: Bot, name: str = "", why: str = "", silence: dict[str, Any] | None = None
    ) -> None:
        """Play ``seat`` from here with ``bot``: its player's process is gone (or, ``why``, it withheld
        its keys from the fair deck), as ``silence`` says, the voters' word a signed table asks for
        (``take_over_with_word`` gathers it)."""
        host = self.host
        identity = f"{host.node.node_id}#{seat}"
        agent = host.agent(identity)
        if agent is not None and (agent.seat is not None or agent.asking):
            return
        log.warning("seat %d (%s) %s: a bot plays it from here", seat, name or "?", why or "is silent")
        if agent is None:
            # Kept after the player comes back: its entry counter must go on if it stands in again.
            agent = host.new_agent(identity, f"bot for seat {seat}", bot)
        agent.bot, agent.asking = bot, True
        host.proposals.propose(
            Takeover,
            agent,
            seat=seat,
            commit=agent.fresh_commitment(),
            box_key=bytes(agent.box.public_key),
            why=why,
            silence=silence or {},
        )

    def take_over_with_word(self, seat: int, name: str, why: str = "") -> None:
        """Take ``seat`` over once a quorum of the other voters has said its process is silent (or, with
        ``why``, withheld its keys): this process's own word if it votes, and the others' asked for
        again at each look until enough came (``heard_word``). At a table of fakes, which signs
        nothing, at once."""
        host = self.host
        if not self.asks_first():
            self.take_over(seat, self.stand_in(seat), name, why)
            return
        agent = host.agent(f"{host.node.node_id}#{seat}")
        if agent is not None and (agent.seat is not None or agent.asking):
            return
        record, me = host.record, host.node.node_id
        node = record.seats[seat].process
        word = self.words.get(seat)
        if word is None or (word.node, word.why) != (node, why):
            word = self.words[seat] = Word(node, why, name)
        self.question(seat, node, word.kind)
        mine = self.my_word(seat, node, word.kind)
        if mine is not None and me in record.silence_voters(seat):
            word.silence[me] = mine
        if not self._enough_word(seat, word):
            asking = msgpack.packb({"t": ASK_WORD, "seat": seat, "node": node, "why": word.kind})
            for voter in record.silence_voters(seat):
                if voter != me:
                    host.out.append(Send(voter, asking))

    def _enough_word(self, seat: int, word: Word) -> bool:
        """Take the seat over if ``word`` is enough for the record; whether it was."""
        if self.host.record.silence_problem(seat, word.why, word.silence) is not None:
            return False
        del self.words[seat]
        self.take_over(seat, self.stand_in(seat), word.name, word.why, dict(word.silence))
        return True

    def stand_in(self, seat: int) -> Bot:
        return Bot(seat, "greedy", seed=self.host.node.node_id.encode(), profile=STAND_IN)

    def my_word(self, seat: int, node: str, kind: str) -> list[Any] | None:
        """This process's signed word that ``seat``'s process ``node`` is ``kind`` ([position,
        signature]), or None when it cannot say so: it heard that process within the silence limit, or
        that process has not left its questions unanswered that long (``probe_wait_ms``; or its deck
        has not waited on that seat's keys so long), or it was itself stopped or is catching up, when
        everyone looks silent to it."""
        host = self.host
        seats, limit_ms = host.record.seats, self.limit_s * 1000
        if host.sign is None or host.behind() or not 0 <= seat < len(seats) or seats[seat].process != node:
            return None
        if node == host.node.node_id:
            return None
        awake_ms: Callable[[], float] | None = getattr(host.node, "awake_ms", None)
        if kind == SILENT:
            # A follower hears only its leader: what tells it a process is gone is that process's
            # silence to its own questions (``probe``), asked since at least the wait.
            wait_ms = self.probe_wait_ms()
            said = (
                host.node.silent_ms(node) > limit_ms
                and self.unanswered_ms(node) >= wait_ms
                and (awake_ms is None or awake_ms() > limit_ms)  # (past a stall it could not see)
            )
        else:
            since = self.withheld_since.get(seat)
            waited_ms = host.clock.local_ms() - since if since is not None else 0.0
            said = kind == WITHHELD and since is not None and waited_ms > self.key_timeout_s * 1000
        if not said:
            return None
        position, hand = host.record.position, seats[seat].commitment
        return [position, host.sign(entries.silence_statement(host.table, seat, node, hand, position, kind))]

    def answer_word(self, sender: str, body: dict[str, Any]) -> None:
        """``sender`` asks whether a seat's process is silent: the signed word if it is here, else
        nothing (a leader that takes a live seat over gets no word from an honest voter). Asked whether
        it is silent, the seat's process is asked whether it is there (``probe``): the leader asks
        again at its next look."""
        seat, node, kind = body["seat"], body["node"], body["why"]
        if not (isinstance(seat, int) and isinstance(node, str) and kind in (SILENT, WITHHELD)):
            raise ValueError("an ask for word of the wrong types")
        self.question(seat, node, kind)
        mine = self.my_word(seat, node, kind)
        if mine is None:
            log.info("%s asked whether seat %s (%s) is %s: not as heard from here", sender, seat, node, kind)
            return
        said = {"t": WORD, "seat": seat, "node": node, "why": kind, "word": mine}
        self.host.out.append(Send(sender, msgpack.packb(said, use_bin_type=True)))

    def heard_word(self, sender: str, body: dict[str, Any]) -> None:
        """A voter's word on a seat this process asked about: kept if it is the word asked for and
        signed by its sender, and the seat taken over once there is enough."""
        host = self.host
        seat, node, kind, said = body["seat"], body["node"], body["why"], body["word"]
        word = self.words.get(seat) if isinstance(seat, int) else None
        if word is None or (word.node, word.kind) != (node, kind) or not host.node.is_leader:
            return  # asked about long ago, or no longer wanted: the seat is taken, or its process heard
        if not (isinstance(said, list) and len(said) == 2 and isinstance(said[0], int)):
            raise ValueError("a word that is not [position, signature]")
        hand = host.record.seats[seat].commitment
        if not entries.silence_signed_by(sender, said[1], host.table, seat, node, hand, said[0], kind):
            raise ValueError(f"a word on seat {seat} not signed by its sender for the seat as it stands here")
        word.silence[sender] = said
        self._enough_word(seat, word)

    def changed_hands(self, seat: int) -> None:
        """The word gathered on ``seat`` was on the process that played it."""
        self.words.pop(seat, None)
