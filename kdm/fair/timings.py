"""What one process measures of its fair deck (``Timings``): how long its seats wait for the deck, and
what its own computing costs, on its clock, for the figures of docs/benchmarks.md."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kdm.state import TableState

if TYPE_CHECKING:
    from kdm.fair.table import FairDeck

__all__ = ["Timings"]


class Timings:
    """What one process measures of its fair deck, in ms on its clock, for its figures (docs/benchmarks.md)
    (``benchmarks/fair_table.py``): from a shuffle's start to its seat's hand read (``shuffle_deal_ms``),
    from a card passed into a seat's hand to its face read there (``private_pass_ms``), from a card
    awaited face up to its face shown (``public_draw_ms``), each audit's computing (``audit_ms``), and
    each turn in a shuffle (``turn_ms``: the computing alone; the rest of a deal is waiting)."""

    def __init__(self, clock: Callable[[], float] | None) -> None:
        self.clock = clock
        self.measured: dict[str, list[float]] = {}
        self._since: dict[tuple[str, int], float] = {}
        #: Each seat's hand as last looked at, and the shuffles whose deal it read.
        self._hands: dict[int, set[int]] = {}
        self._dealt: set[int] = set()

    def start(self, what: tuple[str, int]) -> None:
        if self.clock is not None:
            self._since.setdefault(what, self.clock())

    def stop(self, what: tuple[str, int], figure: str) -> None:
        since = self._since.pop(what, None)
        if since is not None and self.clock is not None:
            self.measured.setdefault(figure, []).append(self.clock() - since)

    def watch(self, deck: FairDeck, state: TableState) -> None:
        """Note the cards that came into the hands of seats played here since the last look (passed:
        timed until read), and the deals whose hand is now read whole (timed from their shuffle's
        start)."""
        if self.clock is None:
            return
        for seat in deck.here:
            hand, before = set(state.hands[seat]), self._hands.get(seat)
            known = deck.known.get(seat, {})
            for token in hand - (before or set()):
                if (
                    before is not None
                    and deck.dealt(token)
                    and token not in known
                    and token not in deck.public
                ):
                    self.start(("private_pass", token))
            self._hands[seat] = hand
            shuffles = {deck.where[token][0] for token in hand if token in deck.where}
            if len(shuffles) == 1 and all(token in known for token in hand):
                (index,) = shuffles
                if index not in self._dealt and deck.shuffles[index].faces:
                    self._dealt.add(index)
                    self.stop(("shuffle", index), "shuffle_deal_ms")
