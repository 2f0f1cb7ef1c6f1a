"""The players that are not people: what every game's bots are, whatever game they play.

A ``Bot`` is data: its seat, its strategy's name, a seeded RNG, a timing ``Profile`` (how fast it
reacts, how long it thinks, how often it slips) and a little memory. What it does comes from the game's
``kdm_bot_decide`` hook, which answers with a ``Decision``: an event (or a private note) and how long
after seeing the view to act. A bot never sees the engine, only the ``SeatView`` it is given; the
driver (the peer, the simulation) stamps timed events when the action happens.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from kdm.deck import PrivateNote
from kdm.events import Event

__all__ = ["STRATEGIES", "Bot", "Decision", "Profile"]

STRATEGIES = ("greedy", "random")


@dataclass(frozen=True)
class Profile:
    """How a bot plays in time: reaction to a slap, thinking before a pass, tells and slips."""

    reaction_ms: float = 300.0
    reaction_spread_ms: float = 60.0
    think_ms: tuple[float, float] = (250.0, 1200.0)
    feint_chance: float = 0.02
    fooled_chance: float = 0.2
    miss_chance: float = 0.0
    #: How often a gesture that is not the partner's sign is read as the sign (a call made wrongly),
    #: and how often a suspicion not yet backed by evidence is acted on (a bluff): people err.
    misread_chance: float = 0.0
    bluff_chance: float = 0.0

    @classmethod
    def drawn(cls, rng: random.Random, slips: random.Random | None = None) -> Profile:
        """A plausible person: quick or slow, bold or careful; ``slips`` draws how often they misread
        a gesture or bluff (kept apart so that games without reading gestures play as they did)."""
        slips = slips or rng
        return cls(
            reaction_ms=rng.uniform(220.0, 420.0),
            reaction_spread_ms=rng.uniform(30.0, 80.0),
            think_ms=(rng.uniform(200.0, 400.0), rng.uniform(700.0, 1400.0)),
            feint_chance=rng.uniform(0.0, 0.04),
            fooled_chance=rng.uniform(0.05, 0.3),
            misread_chance=slips.uniform(0.0, 0.08),
            bluff_chance=slips.uniform(0.0, 0.04),
        )


@dataclass(frozen=True)
class Decision:
    """What a bot wants to do and how long after seeing the view it does it.

    Timed events (slaps, feints) leave ``t_sync`` and ``rt`` to the driver, which stamps them when the
    action actually happens. A ``PrivateNote`` goes straight to its seat instead of to the table.
    """

    event: Event | PrivateNote
    delay_ms: float


@dataclass
class Bot:
    """A bot player at one seat."""

    seat: int
    strategy: str = "greedy"
    seed: bytes = b""
    profile: Profile | None = None
    memory: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(f"unknown bot {self.strategy!r}; bots: {', '.join(STRATEGIES)}")
        self.rng = random.Random(self.seed + bytes([self.seat]))
        if self.profile is None:
            self.profile = Profile.drawn(self.rng, random.Random(self.seed + bytes([self.seat]) + b" slips"))

    @property
    def timing(self) -> Profile:
        assert self.profile is not None
        return self.profile

    def reaction_ms(self) -> float:
        return max(120.0, self.rng.gauss(self.timing.reaction_ms, self.timing.reaction_spread_ms))

    def think_ms(self) -> float:
        return self.rng.uniform(*self.timing.think_ms)

    def chance(self, probability: float) -> bool:
        return probability > 0 and self.rng.random() < probability
