"""The test kit every game shares: a table you can script, bots-only games with any plugins, and a fake
consensus for peers and screens.

    table = ScriptedTable(players=4, variants=["kems"])
    table.act(Deal(seed=...), settle=False); table.arrange({token: "KH", ...}); table.settle()
    assert table.last("dealt") ...

The engine never knows faces, so scripting them is the deck's business: the table applies real events
and its open deck knows every face, which ``arrange`` lets a test choose for cards no event revealed.
Everything goes through ``Engine.apply`` exactly as at a real table; duties the table owes (whatever a
game reveals through ``kdm_reveal``, seeds for shuffles) are fulfilled by ``settle()``, which ``act``
calls after every event. Timers are never fired behind a test's back: ``fire(kind)`` does it when the
test says.

A game brings its own helpers on top: the base game's (deal these hands, slap at this time, the
``kdm_table`` fixture for house rules) are in ``kdm.plugins.kilo.testing``. ``play`` runs a bots-only game and
``check_places`` checks that no card lies in two places and that every public face is true. Plugins that
no distribution installs (a module or class with ``@hookimpl`` functions written in the test) go in
``plugins=[...]``.

Peers and screens run on asyncio: ``run_virtual(main())`` runs a test's coroutine on a loop whose clock
jumps to the next timer whenever nothing is ready, instead of waiting for it. Every clock of a peer
reads the running loop's (``kdm.net.clock.monotonic_ms``), so a game whose bots think for seconds plays
in milliseconds, and the same way every time; I/O that is ready is still read at once.

A peer talks to the table through its consensus node (``kdm.peer.Consensus``). ``FakeLog`` is that
consensus without a network, as httpx's ``MockTransport`` is a transport without one: ``log.node("n1")``
gives a ``FakeNode`` for a ``Peer``; what a node proposes is committed at once, in one order for every
peer on the log, and a test shapes the membership by hand (who leads, who is cut off, who is silent).
``memory_table`` starts real consensus nodes over the in-memory network instead, for a test of the
consensus itself.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from contextvars import Context
from typing import TYPE_CHECKING, Any, TypeVar

import msgpack

from kdm.cards import derive_seed
from kdm.deck import OpenDeck
from kdm.driver import SteppedClock, TableDriver
from kdm.effects import HINTS
from kdm.engine import Effect, Engine, IllegalAction, Owed
from kdm.events import Deal, Event, Shuffle, StartGame
from kdm.manager import Rules, plugin_from
from kdm.net.clock import monotonic_ms
from kdm.sim import SimResult, Simulation

if TYPE_CHECKING:
    from kdm.net.node import Node
    from kdm.net.transport import MemoryNetwork
    from kdm.peer import Peer


class FakeClock(SteppedClock):
    """A clock a test moves by hand: ``advance(ms)``. Local and agreed time are the same."""

    def advance(self, ms: float) -> None:
        self.set(self.now_ms + ms)


Result = TypeVar("Result")


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """An asyncio loop on virtual time: when nothing is ready to run, its clock jumps to the next
    timer instead of sleeping. I/O that is ready is read as on any loop; with nothing scheduled at all
    it waits for I/O for real."""

    def __init__(self, timers_late_s: float = 0.0) -> None:
        self.now_s = 0.0
        #: How long after its time each timer goes off: a real loop's never go off exactly on time, and
        #: code that reads a timer's lateness (a stall) can be tested with a little.
        self.timers_late_s = timers_late_s
        super().__init__(selector=_JumpingSelector(self))

    def time(self) -> float:
        return self.now_s

    def call_at(  # type: ignore[override]  # (typeshed types the arguments with a TypeVarTuple)
        self, when: float, callback: Callable[..., object], *args: Any, context: Context | None = None
    ) -> asyncio.TimerHandle:
        return super().call_at(when + self.timers_late_s, callback, *args, context=context)


class _JumpingSelector(selectors.SelectSelector):
    def __init__(self, loop: VirtualTimeLoop) -> None:
        super().__init__()
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = super().select(0)
        if ready or timeout == 0:
            return ready
        if timeout is None:
            return super().select(None)
        self._loop.now_s += timeout  # nothing to do until the next timer: be there at once
        return []


def run_virtual(main: Coroutine[Any, Any, Result], timers_late_s: float = 0.0) -> Result:
    """``asyncio.run(main)`` on a ``VirtualTimeLoop`` (whose timers go off ``timers_late_s`` late)."""
    loop = VirtualTimeLoop(timers_late_s)
    try:
        return loop.run_until_complete(main)
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


async def memory_table(network: MemoryNetwork, names: Sequence[str]) -> list[Node]:
    """Consensus nodes named ``names`` (``HOST:PORT``) over ``network``, every one a voter of a table no
    game plays at (logs in memory), started, once they all follow one leader (the caller stops them)."""
    from kdm.net.node import Node
    from kdm.net.raft_log import MemoryStorage

    nodes = [
        Node(
            network.transport(name),
            "t1",
            MemoryStorage(),
            voters=tuple(names),
            address_of=lambda n: f"memory://{n}",
        )
        for name in names
    ]
    for node in nodes:
        await node.transport.start()
    for node in nodes:
        await node.start()
    while len({node.raft.leader for node in nodes}) != 1 or nodes[0].raft.leader is None:
        await asyncio.sleep(0.05)
    return nodes


class ScriptedTable:
    """One engine with an open deck whose faces a test chooses, driven by a ``TableDriver`` on a
    ``FakeClock`` (``clock``) that moves only when the test says."""

    def __init__(
        self,
        players: int = 4,
        options: dict[str, Any] | None = None,
        variants: Sequence[str] = (),
        seed: bytes = b"scripted",
        plugins: Sequence[object] = (),
        people: Sequence[int] = (),
    ) -> None:
        self.rules = Rules.for_table(variants, [plugin_from(plugin) for plugin in plugins])
        self.engine = Engine(self.rules, players, options)
        #: The seats people play (``TableState.people``, which the record sets when a game starts).
        self.engine.state.people = tuple(people)
        self.deck = OpenDeck()
        self.clock = FakeClock()
        self.driver = TableDriver(self.engine, self.deck, self.clock)
        self.seed = seed
        self.log: list[Event] = []
        self.effects: list[Effect] = []

    @property
    def state(self) -> Any:
        return self.engine.state

    # --- setting the cards ----------------------------------------------------------------------

    def start(self) -> None:
        """Start the game with a seed derived from the table's."""
        self.act(StartGame(seed=derive_seed(self.seed, "pile")))

    def deal(self) -> None:
        """Deal a round with a seed derived from the table's (a game's kit chooses the faces)."""
        if self.state.phase == "setup":
            self.start()
        self.act(Deal(seed=derive_seed(self.seed, "deal", self.state.round)))

    def arrange(self, faces: Mapping[int, str]) -> None:
        """Give hidden cards the faces a scenario needs: token ``t`` gets ``faces[t]``, and the hidden
        card that had that face takes ``t``'s old one, so the table still holds the same cards.
        Only cards whose faces no event has revealed can change (the log does not know them)."""
        state = self.state
        live = [t for hand in state.hands for t in hand] + [t for zone in state.zones.values() for t in zone]
        hidden = [t for t in live if t not in state.faces]
        fixed: set[int] = set()
        for token, face in faces.items():
            if token not in hidden or token in fixed:
                raise ValueError(f"card {token} is not a hidden card of this table (or asked twice)")
            if self.deck.faces[token] != face:
                holder = next((t for t in hidden if t not in fixed and self.deck.faces[t] == face), None)
                if holder is None:
                    raise ValueError(f"{face} is not among the hidden cards (or asked twice)")
                self.deck.rig({holder: self.deck.faces[token], token: face})
            fixed.add(token)

    # --- acting ---------------------------------------------------------------------------------

    def act(self, event: Event, settle: bool = True) -> list[Effect]:
        """Apply one event (and, by default, every duty the table owes afterwards). An event that says
        something false of the cards is refused as a table's record refuses it (``IllegalAction``
        with the deck's reason)."""
        false = self.deck.false_claim(self.engine, event)
        if false:
            raise IllegalAction(false)
        seq = self.state.seq
        effects = list(self.engine.apply(event))
        self.log.append(event)
        self.effects.extend(effects)
        self.driver.applied(seq, effects)
        if settle:
            effects = effects + self.settle()
        return effects

    def settle(self) -> list[Effect]:
        """Fulfil the duties the table owes now (reveals, draws, shuffles), truthfully, as the drivers
        do; timers are left alone, and so are a seat's decisions with a deadline (a choice the rules give
        a seat time for): ``fire`` answers one as its seat's process does when time is up. A test that wants a
        seat to choose otherwise acts with ``settle=False`` and applies the seat's own event."""
        effects: list[Effect] = []
        while True:
            duties = [
                d
                for d in self.engine.awaiting()
                if d.owed_as in (Owed.SEED, Owed.REVEAL) and d.kind != "deal"
            ]
            if not duties:
                return effects
            duty = duties[0]
            event = self.driver.fulfil(duty)
            if event is None and duty.kind == "shuffle":
                event = Shuffle(seed=derive_seed(self.seed, "shuffle", self.state.seq))
            if event is None:
                return effects
            effects += self.act(event, settle=False)

    def fire(self, kind: str) -> list[Effect]:
        """The table's timer ``kind`` is up (a variant's ``go``, the ``close`` of a window): apply it.
        The timer must be awaited now, as a driver would only fire a timer the table asks for."""
        timer = next(
            (
                d
                for d in self.engine.awaiting()
                if d.kind == kind and d.owed_as in (Owed.TIMER, Owed.DECISION)
            ),
            None,
        )
        if timer is None:
            raise AssertionError(f"the table awaits no {kind!r} timer: {self.engine.awaiting()}")
        event = self.driver.fulfil(timer)  # a table timer's event, or the seat's answer when time is up
        assert event is not None
        return self.act(event)

    def event(self, kind: str, **fields: Any) -> list[Effect]:
        """Apply a plugin's event by kind and fields (``table.event("grab", seat=1, t_sync=5.0)``)."""
        return self.act(self.rules.codec.decode({"kind": kind, **fields}))

    # --- reading the outcome --------------------------------------------------------------------

    def hand(self, seat: int) -> list[str]:
        return [self.deck.faces[t] for t in self.state.hands[seat]]

    def last(self, kind: str) -> Effect:
        """The latest effect of ``kind``."""
        return next(e for e in reversed(self.effects) if e["kind"] == kind)

    def describe_last(self, kind: str, lang: str = "en", names: Sequence[str] = ()) -> str:
        """What the table says (``kdm_describe``) for the latest effect of ``kind``, in ``lang``, the
        seats called by ``names`` (by default "seat N", as a table before anyone named them)."""
        named = list(names) or [""] * self.state.players
        return str(self.rules.describe(self.last(kind), lang, named))

    def seq_of(self, kind: str, seat: int) -> int:
        """The sequence number of ``seat``'s latest event of ``kind`` (a slap, a call)."""
        return int(next(e["seq"] for e in reversed(self.effects) if e["kind"] == kind and e["seat"] == seat))


# --- the kit for plugin authors -------------------------------------------------------------------------


def live_cards(table: ScriptedTable) -> list[int]:
    """Every card token in a hand or a zone."""
    state = table.state
    return [t for hand in state.hands for t in hand] + [t for zone in state.zones.values() for t in zone]


def without_hints(effects: Iterable[Effect]) -> list[Effect]:
    """What effects tell the table, without the hints that tell bots whether to look again (``wake``,
    ``replan``): for tests of a rule, which should not change when a game hints its bots better."""
    return [{key: value for key, value in effect.items() if key not in HINTS} for effect in effects]


def check_places(table: ScriptedTable) -> None:
    """Assert that every card of the table lies in exactly one place and that public faces are true."""
    state = table.state
    live = live_cards(table)
    assert len(live) == len(set(live)), "a card lies in two places"
    if state.phase == "setup":
        assert not live, "cards before the game started"
    for token, face in state.faces.items():
        assert table.deck.faces.get(token) == face, f"card {token} shows {face}, it is not"


def play(
    players: int = 4,
    variants: Sequence[str] = (),
    options: dict[str, Any] | None = None,
    seed: int = 0,
    plugins: Sequence[object] = (),
    bots: str | Sequence[str] = "greedy",
    listener: Callable[[float, Event, Sequence[Effect]], None] | None = None,
) -> SimResult:
    """A whole bots-only game at a table with these plugins, as ``kdm sim`` plays it."""
    rules = Rules.for_table(variants, [plugin_from(plugin) for plugin in plugins])
    return Simulation(players, seed, bots, options, rules=rules).run(listener)


# --- a fake consensus for peers --------------------------------------------------------------------------

#: How long a node that no peer on the log runs (or one cut off) has been silent: for ever.
NEVER_HEARD_MS = 1e9


class FakeLog:
    """A fake of the consensus as a peer uses it (``kdm.peer.Consensus``, which ``kdm.net.node.Node``
    implements): its nodes' proposals, commits, direct messages and membership. What Raft gives, minus
    the network: every proposal is committed at once, in one order, and handed to every peer on the log
    (``peers``) on the next turn of the loop; a direct message goes to the peer it is for.

    The membership is the test's to set: ``leader`` (``n0`` unless told; ``followed`` is the one before,
    which every node followed but the dead), ``gone`` (nodes cut off: they get no commits, kept for them
    until ``come_back``, and no direct messages, nor are theirs delivered), ``unheard`` (nodes whose
    proposals are lost on the way to the leader, as Raft may lose them), and how long a node is silent:
    since a time (``silent_since``, local ms), for a set length (``silent_for``), else not at all if a
    peer on the log runs it and it is not gone, for ever otherwise. ``agreed_offset_ms`` puts the agreed
    clock that far from the local one, so that a test can tell the two apart.

    Everything committed is kept in ``entries`` (``decoded()`` and ``events()`` read it), every direct
    message sent in ``direct``. A test that needs a node to behave otherwise (hold its proposals, lead
    when the log says it does not) subclasses ``FakeNode``."""

    def __init__(self, agreed_offset_ms: float = 0.0) -> None:
        self.peers: list[Peer] = []
        self.agreed_offset_ms = agreed_offset_ms
        self.gone: set[str] = set()
        self.missed: dict[str, list[bytes]] = {}
        self.unheard: set[str] = set()
        self.silent_since: dict[str, float] = {}
        self.silent_for: dict[str, float] = {}
        self.entries: list[bytes] = []
        #: Direct messages as sent: (sender, addressee, data), those to or from a gone node too.
        self.direct: list[tuple[str, str, bytes]] = []
        self.followed: str | None = None
        self._leader = "n0"
        self._decoded: list[dict[str, Any]] = []

    @property
    def leader(self) -> str:
        return self._leader

    @leader.setter
    def leader(self, node_id: str) -> None:
        # A leader that no peer ran (the default before the test names its own) was followed by nobody.
        if node_id != self._leader and self._leader in {peer.node.node_id for peer in self.peers}:
            self.followed = self._leader
        changed, self._leader = node_id != self._leader, node_id
        for peer in self.peers if changed else ():
            peer.leader_changed(node_id)  # as ``Node.on_leader`` tells it

    def node(self, node_id: str) -> FakeNode:
        return FakeNode(self, node_id)

    def commit(self, data: bytes) -> None:
        """``data`` is committed: every peer on the log gets it, but the gone, who get it on their return."""
        self.entries.append(data)
        loop = asyncio.get_running_loop()
        for peer in self.peers:
            if peer.node.node_id in self.gone:
                self.missed.setdefault(peer.node.node_id, []).append(data)
            else:
                loop.call_soon(peer.committed, data)

    def come_back(self, node_id: str) -> None:
        """``node_id`` hears the table again: it gets what it missed, in order, as Raft would send it."""
        self.gone.discard(node_id)
        peer = next(peer for peer in self.peers if peer.node.node_id == node_id)
        loop = asyncio.get_running_loop()
        for data in self.missed.pop(node_id, []):
            loop.call_soon(peer.committed, data)

    def send_direct(self, sender: str, to: str, data: bytes) -> None:
        """A direct message from ``sender`` to the peer that runs ``to`` (none to or from the gone)."""
        self.direct.append((sender, to, data))
        if {sender, to} & self.gone:
            return
        loop = asyncio.get_running_loop()
        for peer in self.peers:
            if peer.node.node_id == to:
                loop.call_soon(peer.received_direct, sender, data)

    def decoded(self) -> list[dict[str, Any]]:
        """The entries committed so far, as plain dicts (each decoded once: tests poll this)."""
        for data in self.entries[len(self._decoded) :]:
            self._decoded.append(msgpack.unpackb(data, raw=False))
        return list(self._decoded)

    def events(self, kind: str, seat: int | None = None) -> list[dict[str, Any]]:
        """The events of ``kind`` (by ``seat``) committed so far, as plain dicts."""
        found = [e["event"] for e in self.decoded() if e["t"] == "event" and e["event"]["kind"] == kind]
        return [event for event in found if seat is None or event.get("seat") == seat]


class FakeNode:
    """One node of a ``FakeLog``: what a ``Peer`` is given instead of a ``kdm.net.node.Node``."""

    def __init__(self, log: FakeLog, node_id: str) -> None:
        self.log, self.node_id = log, node_id

    @property
    def is_leader(self) -> bool:
        return self.log.leader == self.node_id

    @property
    def leader(self) -> str | None:
        return self.log.leader

    @property
    def followed(self) -> str | None:
        return self.log.followed

    def propose(self, data: bytes) -> bool:
        if self.node_id not in self.log.unheard:
            self.log.commit(data)
        return True

    def agreed_time_ms(self) -> float:
        return monotonic_ms() + self.log.agreed_offset_ms

    def silent_ms(self, node_id: str) -> float:
        log = self.log
        if node_id in log.silent_for:
            return log.silent_for[node_id]
        if node_id in log.silent_since:
            return monotonic_ms() - log.silent_since[node_id]
        live = {peer.node.node_id for peer in log.peers} - log.gone
        return 0.0 if node_id in live else NEVER_HEARD_MS

    def send_direct(self, to: str, data: bytes) -> None:
        self.log.send_direct(self.node_id, to, data)
