"""Snap's bots, deciding from their seat's ``SnapView`` alone, with the human-like seeded timing of
``kdm.agents``: ``greedy`` slaps nearly every pair (it misses one in ten), after its reaction time and
the moment it takes to see the pair, and never slaps falsely; ``random`` sees a pair only now and then,
and sometimes slaps when there is none. Both turn their card
after thinking a moment when their turn comes, unless they are slapping.
"""

from __future__ import annotations

from kdm.agents import Bot, Decision
from kdm.engine import SeatView
from kdm.hookspecs import hookimpl
from kdm_snap.events import Flip, Slap
from kdm_snap.rules import NAME
from kdm_snap.view import SnapView

#: Seeing that two cards have one rank takes longer than seeing a hand move: added to a bot's reaction.
RECOGNISE_MS = 150.0
#: How often a greedy bot misses a pair (people do).
GREEDY_MISSES = 0.1
#: How often a random bot sees a pair, and how often it slaps a centre without one.
RANDOM_SEES_PAIR = 0.5
RANDOM_FALSE_SLAP = 0.04


@hookimpl
def kdm_bot_decide(view: SeatView, bot: Bot) -> Decision | None:
    part = view.rules.get(NAME)
    if not isinstance(part, SnapView):
        return None
    return decide(view, bot, part)


def decide(view: SeatView, bot: Bot, part: SnapView) -> Decision | None:
    """Slap the centre, or turn a card on this seat's turn, or wait."""
    seat = view.seat
    if seat in part.out or view.phase not in ("playing", "slapping"):
        return None
    if part.top_seq is not None and seat not in part.slapped and slaps(bot, part):
        # Triggered by the top card's turn: the driver measures the reaction from its showing.
        return Decision(Slap(seat=seat, trigger=part.top_seq), bot.reaction_ms() + RECOGNISE_MS)
    if view.phase == "playing" and view.turn == seat:
        return Decision(Flip(seat=seat), bot.think_ms())
    return None


def slaps(bot: Bot, part: SnapView) -> bool:
    """Whether this bot slaps the centre's top card: decided once per card turned up, so that the plan
    it makes when it sees the card stands while the window it opens or joins is open."""
    assert part.top_seq is not None
    decided = bot.memory.get("slaps")
    if decided is not None and decided[0] == part.top_seq:
        return bool(decided[1])
    if bot.strategy == "random":
        choice = bot.chance(RANDOM_SEES_PAIR) if part.pair else bot.chance(RANDOM_FALSE_SLAP)
    else:
        choice = part.pair and not bot.chance(max(GREEDY_MISSES, bot.timing.miss_chance))
    bot.memory["slaps"] = (part.top_seq, choice)
    return choice
