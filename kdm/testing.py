"""A table you can script, for rule tests: set the pile and the hands, apply events, read the outcome.

    table = ScriptedTable(players=4, options={"suit_combos": False})
    table.deal([["KH", "KS", "KD", "KC"], ...])        # faces per seat; the rest of the deal at random
    table.slap(0, at=100); table.slap(1, at=250) ...
    assert table.draws == [(3, "9H", False)]

The engine never knows faces, so scripting them is the deck's business: the table applies the real
``StartGame``/``Deal`` events and then tells its open deck which face each new token has. Everything else
goes through ``Engine.apply`` exactly as at a real table; duties the table owes (the queens' calls, a
shown hand, draws, reshuffles) are fulfilled by ``settle()``, which ``act`` calls after every event.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from kdm.cards import derive_seed, shuffled
from kdm.deck import OpenDeck
from kdm.engine import Effect, Engine
from kdm.events import Close, Deal, Event, Feint, Pass, Shuffle, Slap, StartGame
from kdm.kilo import PILE, KiloTable, kilos_zone, table
from kdm.manager import Rules


class ScriptedTable:
    """One engine with an open deck whose faces a test chooses."""

    def __init__(
        self,
        players: int = 4,
        options: dict[str, Any] | None = None,
        variants: Sequence[str] = (),
        seed: bytes = b"scripted",
    ) -> None:
        self.rules = Rules.for_table(variants)
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

    def start(self, pile_top: Sequence[str] = ()) -> None:
        """Form the pile; ``pile_top`` are its top faces, topmost first."""
        self.act(StartGame(seed=derive_seed(self.seed, "pile")), settle=False)
        pile = self.state.zones[PILE]
        wanted = list(pile_top)
        faces = [self.deck.faces[t] for t in pile]
        for face in wanted:
            if face not in faces:
                raise ValueError(f"{face} is not in the pile")
            faces.remove(face)
        # pile[-1] is the top: the wanted faces go on top in order, the others keep their order below.
        ordered = faces + wanted[::-1]
        self.deck.faces.update(zip(pile, ordered, strict=True))

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
        """Fulfil the duties the table owes now (reveals, draws, shuffles); timers are left alone."""
        effects: list[Effect] = []
        while True:
            duties = [d for d in self.engine.awaiting() if d.after_ms is None and d.kind != "deal"]
            if not duties:
                return effects
            duty = duties[0]
            event = self.deck.fulfil(duty, self.state)
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

    def feint(self, seat: int, at: float) -> list[Effect]:
        return self.act(Feint(seat=seat, t_sync=at))

    def close(self) -> list[Effect]:
        return self.act(Close())

    # --- reading the outcome --------------------------------------------------------------------

    def hand(self, seat: int) -> list[str]:
        return [self.deck.faces[t] for t in self.state.hands[seat]]

    def pile(self) -> list[str]:
        """The pile's faces, top first."""
        return [self.deck.faces[t] for t in reversed(self.state.zones[PILE])]

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
