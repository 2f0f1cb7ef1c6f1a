"""The plugin kit: a table you can script, for rule tests, and bots-only games with any plugins.

    table = ScriptedTable(players=4, options={"suit_combos": False})
    table.deal([["KH", "KS", "KD", "KC"], ...])        # faces per seat; the rest of the deal at random
    table.slap(0, at=100); table.slap(1, at=250) ...
    assert table.draws == [(3, "9H", False)]

The engine never knows faces, so scripting them is the deck's business: the table applies the real
``StartGame``/``Deal`` events and then tells its open deck which face each new token has. Everything else
goes through ``Engine.apply`` exactly as at a real table; duties the table owes (the queens' calls, a
shown hand, draws, reshuffles, and whatever a game mode reveals through ``kdm_reveal``) are fulfilled by
``settle()``, which ``act`` calls after every event. Timers are never fired behind a test's back:
``close()`` and ``fire(kind)`` do it when the test says. Another game mode (Kem's) deals with its own
events; ``arrange`` then gives its hidden cards the faces a scenario needs.

For plugin authors (``docs/plugins.md``): ``pytest_plugins = ["kdm.testing"]`` in a ``conftest.py``
gives the ``kdm_table`` fixture (a ``ScriptedTable`` factory); ``play`` runs a bots-only game and
``check_cards`` checks that no card was lost or duplicated. Plugins that no distribution installs (a
module or class with ``@hookimpl`` functions written in the test) go in ``plugins=[...]``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import pytest

from kdm.cards import derive_seed, shuffled
from kdm.deck import OpenDeck
from kdm.engine import Effect, Engine
from kdm.events import Deal, Event, Shuffle, StartGame
from kdm.kilo.events import Close, Feint, Pass, Slap
from kdm.kilo.rules import KiloTable, kilos_zone, table
from kdm.manager import Rules, plugin_from
from kdm.sim import SimResult, Simulation


class ScriptedTable:
    """One engine with an open deck whose faces a test chooses."""

    def __init__(
        self,
        players: int = 4,
        options: dict[str, Any] | None = None,
        variants: Sequence[str] = (),
        seed: bytes = b"scripted",
        plugins: Sequence[object] = (),
    ) -> None:
        self.rules = Rules.for_table(variants, [plugin_from(plugin) for plugin in plugins])
        self.engine = Engine(self.rules, players, options)
        self.deck = OpenDeck()
        self.seed = seed
        self.log: list[Event] = []
        self.effects: list[Effect] = []

    @property
    def state(self) -> Any:
        return self.engine.state

    @property
    def kilo(self) -> KiloTable:
        return table(self.state)

    # --- setting the cards ----------------------------------------------------------------------

    def start(self, pile_top: Sequence[str] = (), piles: Sequence[Sequence[str]] = ()) -> None:
        """Form the pile; ``pile_top`` are its top faces, topmost first. When the pile is cut in
        several (``piles`` variant), ``piles[i]`` are the top faces of pile ``i`` (``pile_top``: pile 0).
        """
        self.act(StartGame(seed=derive_seed(self.seed, "pile")), settle=False)
        zones = [self.state.zones[name] for name in self.kilo.piles]
        tops = [list(top) for top in piles] or [list(pile_top)]
        faces = [self.deck.faces[t] for zone in zones for t in zone]
        for face in (face for top in tops for face in top):
            if face not in faces:
                raise ValueError(f"{face} is not in the pile (or asked twice)")
            faces.remove(face)
        for index, zone in enumerate(zones):
            # zone[-1] is the top: the wanted faces go on top in order, other faces fill in below.
            wanted = tops[index] if index < len(tops) else []
            if len(wanted) > len(zone):
                raise ValueError(f"pile {index} holds only {len(zone)} cards")
            below, faces = faces[: len(zone) - len(wanted)], faces[len(zone) - len(wanted) :]
            self.deck.faces.update(zip(zone, below + wanted[::-1], strict=True))

    def deal(self, hands: Sequence[Sequence[str]] = ()) -> None:
        """Deal a round; ``hands[seat]`` are faces for that seat (missing ones come from the rest)."""
        if self.state.phase == "setup":
            self.start()
        self.act(Deal(seed=derive_seed(self.seed, "deal", self.state.round)), settle=False)
        pool = Counter(self.kilo.dealt)
        for hand in hands:
            for face in hand:
                if pool[face] <= 0:
                    raise ValueError(f"{face} is not dealt with {self.state.players} players (or twice)")
                pool[face] -= 1
        chosen = self._fill(hands, sorted(pool.elements()))
        for tokens, faces in zip(self.state.hands, chosen, strict=True):
            self.deck.faces.update(zip(tokens, faces, strict=True))
        self.settle()

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
                self.deck.faces[holder], self.deck.faces[token] = self.deck.faces[token], face
            fixed.add(token)

    def _fill(self, hands: Sequence[Sequence[str]], rest: list[str]) -> list[list[str]]:
        """The given hands completed from ``rest`` so that no hand the test left open is a combo:
        a scenario gets exactly the combos it wrote down."""
        sizes = [len(tokens) for tokens in self.state.hands]
        for attempt in range(1000):
            deck = shuffled(rest, derive_seed(self.seed, "fill", attempt))
            chosen = []
            for seat, size in enumerate(sizes):
                given = list(hands[seat]) if seat < len(hands) else []
                chosen.append(given + [deck.pop() for _ in range(size - len(given))])
            open_hands = [
                hand for seat, hand in enumerate(chosen) if seat >= len(hands) or len(hands[seat]) < size
            ]
            if not any(self.rules.is_combo(hand, self.state.options) for hand in open_hands):
                return chosen
        raise ValueError("cannot complete these hands without dealing a combo")

    # --- acting ---------------------------------------------------------------------------------

    def act(self, event: Event, settle: bool = True) -> list[Effect]:
        """Apply one event (and, by default, every duty the table owes afterwards)."""
        effects = self.engine.apply(event)
        self.log.append(event)
        self.effects.extend(effects)
        self.deck.observe(effects)
        if settle:
            effects = effects + self.settle()
        return effects

    def settle(self) -> list[Effect]:
        """Fulfil the duties the table owes now (reveals, draws, shuffles), truthfully, as the drivers
        do; timers are left alone. A test that wants a seat to choose otherwise acts with ``settle=False``
        and applies the seat's own event."""
        effects: list[Effect] = []
        while True:
            duties = [d for d in self.engine.awaiting() if d.after_ms is None and d.kind != "deal"]
            if not duties:
                return effects
            duty = duties[0]
            event = self.deck.fulfil(duty, self.state, self.rules.hook.kdm_reveal)
            if event is None and duty.kind == "shuffle":
                event = Shuffle(seed=derive_seed(self.seed, "shuffle", self.state.seq))
            if event is None:
                return effects
            effects += self.act(event, settle=False)

    def pass_card(self, seat: int, card: str) -> list[Effect]:
        """``seat`` passes the card with face ``card``."""
        token = next((t for t in self.state.hands[seat] if self.deck.faces[t] == card), None)
        if token is None:
            raise ValueError(f"seat {seat} does not hold {card}")
        return self.act(Pass(seat=seat, token=token))

    def pass_any(self, seat: int) -> list[Effect]:
        """``seat`` passes its first card."""
        return self.act(Pass(seat=seat, token=self.state.hands[seat][0]))

    def lap(self) -> None:
        """Everyone passes once, from the player to move, back to the checkpoint."""
        for _ in range(self.state.players):
            assert self.state.turn is not None
            self.pass_any(self.state.turn)

    def slap(self, seat: int, at: float, trigger: int | None = None, rt: float | None = None) -> list[Effect]:
        return self.act(Slap(seat=seat, t_sync=at, trigger=trigger, rt=rt))

    def grab(self, seat: int, at: float, trigger: int | None = None, rt: float | None = None) -> list[Effect]:
        """``seat`` grabs an object (``spoons``): timed like a slap."""
        return self.event("grab", seat=seat, t_sync=at, trigger=trigger, rt=rt)

    def everyone_slaps(self, first: int, reactions: dict[int, float], kind: str = "slap") -> list[Effect]:
        """``first`` slaps (or grabs: ``kind="grab"``) at 1000 ms; each other seat in ``reactions``
        follows, reacting to it after the given time. Returns the effects of the last one."""
        opened = self.event(kind, seat=first, t_sync=1000.0)
        trigger = opened[0]["seq"]
        effects = opened
        for seat, rt in reactions.items():
            effects = self.event(kind, seat=seat, t_sync=0.0, trigger=trigger, rt=rt)
        return effects

    def feint(self, seat: int, at: float) -> list[Effect]:
        return self.act(Feint(seat=seat, t_sync=at))

    def close(self) -> list[Effect]:
        return self.act(Close())

    def fire(self, kind: str) -> list[Effect]:
        """The table's timer ``kind`` is up (a variant's ``go``, the ``close`` of a window): apply it.
        The timer must be awaited now, as a driver would only fire a timer the table asks for."""
        if not any(d.kind == kind and d.after_ms is not None for d in self.engine.awaiting()):
            raise AssertionError(f"the table awaits no {kind!r} timer: {self.engine.awaiting()}")
        return self.act(self.rules.codec.decode({"kind": kind}))

    def event(self, kind: str, **fields: Any) -> list[Effect]:
        """Apply a plugin's event by kind and fields (``table.event("grab", seat=1, t_sync=5.0)``)."""
        return self.act(self.rules.codec.decode({"kind": kind, **fields}))

    # --- reading the outcome --------------------------------------------------------------------

    def hand(self, seat: int) -> list[str]:
        return [self.deck.faces[t] for t in self.state.hands[seat]]

    def pile(self, index: int = 0) -> list[str]:
        """The faces of the pile (of pile ``index`` when it is cut in several), top first."""
        return [self.deck.faces[t] for t in reversed(self.state.zones[self.kilo.piles[index]])]

    def kilos(self, seat: int) -> list[str]:
        return [self.state.faces[t] for t in self.state.zones[kilos_zone(seat)]]

    @property
    def draws(self) -> list[tuple[int, str, bool]]:
        """Every draw so far: ``(seat, card, flushed)``."""
        return [(e["seat"], e["card"], e["flush"]) for e in self.effects if e["kind"] == "drew"]

    def last(self, kind: str) -> Effect:
        """The latest effect of ``kind``."""
        return next(e for e in reversed(self.effects) if e["kind"] == kind)

    def seq_of(self, kind: str, seat: int) -> int:
        """The sequence number of ``seat``'s latest slap or feint."""
        return int(next(e["seq"] for e in reversed(self.effects) if e["kind"] == kind and e["seat"] == seat))


# --- the kit for plugin authors -------------------------------------------------------------------------


def check_cards(table: ScriptedTable) -> None:
    """Assert that every card of the table lies in exactly one place and that public faces are true.

    During a round the hands and zones hold the whole deck (the dealt faces and the pile's, as the
    table's ``kdm_deck`` made them); between rounds, the pile's faces only. A game mode without
    ``kdm_deck`` (Kem's) checks its own deck.
    """
    state = table.state
    live = [t for hand in state.hands for t in hand] + [t for zone in state.zones.values() for t in zone]
    assert len(live) == len(set(live)), "a card lies in two places"
    if state.phase == "setup":
        assert not live, "cards before the game started"
        return
    deck = table.rules.hook.kdm_deck(players=state.players, options=state.options)
    if deck is not None:  # a game mode that does not declare its deck is checked for places and faces
        dealt, pile = deck
        expected = Counter(pile) + (Counter(dealt) if any(state.hands) else Counter())
        assert Counter(table.deck.faces[t] for t in live) == expected, "cards were lost or made"
    for token, face in state.faces.items():
        assert table.deck.faces.get(token) == face, f"card {token} shows {face}, it is not"


def play(
    players: int = 4,
    variants: Sequence[str] = (),
    options: dict[str, Any] | None = None,
    seed: int = 0,
    plugins: Sequence[object] = (),
    bots: str | Sequence[str] = "greedy",
    listener: Callable[[float, Event, list[Effect]], None] | None = None,
) -> SimResult:
    """A whole bots-only game at a table with these plugins, as ``kdm sim`` plays it."""
    rules = Rules.for_table(variants, [plugin_from(plugin) for plugin in plugins])
    return Simulation(players, seed, bots, options, rules=rules).run(listener)


TableFactory = Callable[..., ScriptedTable]


@pytest.fixture
def kdm_table() -> Iterator[TableFactory]:
    """A factory of scripted tables: ``kdm_table(players=4, options={...}, variants=[...], plugins=[...])``.

    Each table it made is checked with ``check_cards`` when the test ends, so a plugin that loses or
    duplicates a card fails even a test that did not look.
    """
    made: list[ScriptedTable] = []

    def make(players: int = 4, options: dict[str, Any] | None = None, **kwargs: Any) -> ScriptedTable:
        made.append(ScriptedTable(players, options, **kwargs))
        return made[-1]

    yield make
    for scripted in made:
        check_cards(scripted)
