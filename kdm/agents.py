"""The players that are not people: what every game's bots are, whatever game they play.

A ``Bot`` is data: its seat, its strategy's name, a seeded RNG, a timing ``Profile`` (how fast it
reacts, how long it thinks, how often it slips) and a little memory. What it does comes from the game's
``kdm_bot_decide`` hook, which answers with a ``Decision``: an event (or a private note) and how long
after seeing the view to act. A bot never sees the engine, only the ``SeatView`` it is given; the
driver (the peer, the simulation) stamps timed events when the action happens.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from typing import Any

from kdm.deck import PrivateNote
from kdm.events import Event

__all__ = ["STRATEGIES", "Bot", "Decision", "Profile"]

STRATEGIES = ("greedy", "random")

#: At a table where a person sits, bots keep people's pace (issue "A first evening that works"): a
#: visual reaction takes a person 200-350 ms, choosing a card to pass 0.8-2.5 s.
PEOPLE_REACTION_MS = (200.0, 350.0)
PEOPLE_THINK_MS = (800.0, 2500.0)


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
    #: The bounds of one reaction drawn around ``reaction_ms`` (no upper bound among bots).
    reaction_bounds: tuple[float, float] = (120.0, math.inf)

    def at_peoples_pace(self) -> Profile:
        """This profile at a table of people: reactions within ``PEOPLE_REACTION_MS`` and thinking within
        ``PEOPLE_THINK_MS``, the bot keeping its place among bots (quick stays quick, slow stays slow)."""
        low, high = PEOPLE_REACTION_MS
        # Where this bot stands among drawn bots (``drawn``: reactions 220-420 ms, thinking from
        # 200-400 ms to 700-1400 ms), carried over to people's ranges.
        standing = _clamped((self.reaction_ms - 220.0) / 200.0)
        spread = (high - low) / 8
        quickest = _clamped((self.think_ms[0] - 200.0) / 200.0)
        slowest = _clamped((self.think_ms[1] - 700.0) / 700.0)
        think_low, think_high = PEOPLE_THINK_MS
        middle = (think_low + think_high) / 2
        return replace(
            self,
            reaction_ms=low + 2 * spread + standing * (high - low - 4 * spread),
            reaction_spread_ms=spread,
            reaction_bounds=PEOPLE_REACTION_MS,
            think_ms=(
                think_low + quickest * (middle - think_low) / 2,
                middle + (0.5 + slowest / 2) * (think_high - middle),
            ),
        )

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


def _clamped(share: float) -> float:
    return max(0.0, min(1.0, share))


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
    #: Whether the bot plays at people's pace (``pace_for_people``).
    paced: bool = False

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

    def pace_for_people(self) -> None:
        """Play at people's pace from now on (a person sits at the table: ``Profile.at_peoples_pace``)."""
        if not self.paced:
            self.paced = True
            self.profile = self.timing.at_peoples_pace()

    def reaction_ms(self) -> float:
        profile = self.timing
        low, high = profile.reaction_bounds
        drawn = self.rng.gauss(profile.reaction_ms, profile.reaction_spread_ms)
        return max(low, drawn if drawn < high else high)

    def think_ms(self) -> float:
        low, high = self.timing.think_ms
        return low + (high - low) * self.rng.random()  # random.uniform's own formula, one call fewer

    def chance(self, probability: float) -> bool:
        return probability > 0 and self.rng.random() < probability
