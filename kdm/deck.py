"""The open deck: who knows which face, from the agreed seeds.

The engine emits a ``shuffled`` effect whenever it makes tokens from a pool of faces (a deal, the pile)
or reshuffles tokens; the deck turns the effect's seed into faces. ``OpenDeck`` knows every face, which
is what ``kdm sim`` and bot-only tables need; each seat's ``Knowledge`` holds only the faces that seat
may know. Fair dealing (DESIGN 7) replaces ``OpenDeck`` without touching the engine.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kdm.cards import shuffled
from kdm.engine import Duty, Effect
from kdm.events import Announce, Draw, Event, ShowHand
from kdm.state import TableState


@dataclass
class Knowledge:
    """The faces one seat privately knows, by token."""

    faces: dict[int, str] = field(default_factory=dict)


class OpenDeck:
    """Every face at the table, derived from the seeds in the log."""

    def __init__(self) -> None:
        self.faces: dict[int, str] = {}

    def observe(self, effects: Iterable[Effect]) -> None:
        """Learn the faces of tokens made or reshuffled by these effects."""
        for effect in effects:
            if effect["kind"] != "shuffled":
                continue
            tokens = effect["tokens"]
            if "pool" in effect:
                pool = sorted(effect["pool"])
            else:
                pool = sorted(self.faces.pop(t) for t in effect["from_tokens"])
            self.faces.update(zip(tokens, shuffled(pool, effect["seed"]), strict=True))

    def knowledge(self, state: TableState, seat: int) -> Knowledge:
        """What ``seat`` knows: the faces of its own hand."""
        return Knowledge({t: self.faces[t] for t in state.hands[seat]})

    def fulfil(self, duty: Duty, state: TableState) -> Event | None:
        """The event that fulfils a reveal duty (announce, show a hand, draw), or None for others."""
        if duty.kind == "announce":
            wanted = duty.cards[0]
            for seat, hand in enumerate(state.hands):
                if any(self.faces[t] == wanted for t in hand):
                    return Announce(seat=seat, card=wanted)
            raise LookupError(f"nobody holds {wanted}")
        if duty.kind == "show_hand":
            assert duty.seat is not None
            tokens = tuple(state.hands[duty.seat])
            return ShowHand(seat=duty.seat, tokens=tokens, cards=tuple(self.faces[t] for t in tokens))
        if duty.kind == "draw":
            assert duty.seat is not None
            token = duty.tokens[0]
            return Draw(seat=duty.seat, token=token, card=self.faces[token])
        return None
