"""The base game's bots: they decide from their seat view only, with human-like seeded timing.

What a bot is (``kdm.agents``) is every game's; what it does in a game comes from the game's
``kdm_bot_decide`` hook, so a game mode brings its own bots. This module holds the base game's:
``random`` passes any card, ``greedy`` keeps the rank or suit it is closest to completing. Both slap a
combo at a checkpoint, react to slaps, feint now and then, and are sometimes fooled by a feint. A bot
never sees the engine: only the ``SeatView`` it is given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kdm.agents import Bot, Decision
from kdm.cards import full_deck, rank_of, suit_of
from kdm.engine import SeatView
from kdm.hookspecs import hookimpl
from kdm.plugins.kilo.events import Feint, Pass, Slap
from kdm.plugins.kilo.rules import HAND, KiloView, is_combo
from kdm.plugins.kilo.rules import NAME as KILO

#: A greedy bot that passes this many times without getting closer to a combo changes its target.
STUCK_PASSES = 3


@hookimpl
def kdm_bot_decide(view: SeatView, bot: Bot) -> Decision | None:
    return decide(view, bot)


def decide(view: SeatView, bot: Bot) -> Decision | None:
    """The base game's bot: slap, react, feint or pass, from ``view`` alone."""
    table: KiloView = view.rules[KILO]
    seat = view.seat
    if view.phase == "window":
        return react(view, bot, table)
    if view.phase != "passing":
        return None
    slap = slap_now(view, bot, table)
    if slap is not None:
        return slap
    if view.turn != seat or table.holding:  # a held checkpoint: the pass waits for its end
        return None
    feint = maybe_feint(view, bot, (view.round, table.passes))
    if feint is not None:
        return feint
    token = _PASSERS[bot.strategy](view, bot)
    return Decision(Pass(seat=seat, token=token), bot.think_ms())


def react(view: SeatView, bot: Bot, table: KiloView) -> Decision | None:
    """In an open window: slap, triggered by its opener, unless already in or missing it this time."""
    seat = view.seat
    if seat in table.slapped or not table.window_open:
        return None
    opener = table.window_opened_by
    if bot.memory.get("missed") == opener:
        return None
    if bot.chance(bot.timing.miss_chance):
        bot.memory["missed"] = opener
        return None
    return Decision(Slap(seat=seat, trigger=opener), bot.reaction_ms())


def slap_now(view: SeatView, bot: Bot, table: KiloView) -> Decision | None:
    """While passing: open a window with a combo at a checkpoint, or be fooled by a new feint.

    A seat the table bars from opening a window (``KiloView.barred``) does neither.
    """
    seat = view.seat
    barred = seat in table.barred
    if not barred and table.checkpoint and is_combo(view.cards, view.options["suit_combos"]):
        return Decision(Slap(seat=seat), bot.reaction_ms())
    feint = table.last_feint
    if feint is not None and bot.memory.get("seen_feint") != feint:
        bot.memory["seen_feint"] = feint
        if not barred and table.last_feint_seat != seat and bot.chance(bot.timing.fooled_chance):
            return Decision(Slap(seat=seat, trigger=feint), bot.reaction_ms())
    return None


def maybe_feint(view: SeatView, bot: Bot, moment: Any) -> Decision | None:
    """Now and then, once per ``moment`` (a turn to pass), a feint instead of the move."""
    if bot.memory.get("feinted_on") != moment and bot.chance(bot.timing.feint_chance):
        bot.memory["feinted_on"] = moment
        return Decision(Feint(seat=view.seat), bot.think_ms() / 2)
    return None


def choose_card(view: SeatView, bot: Bot) -> int:
    """The card this bot's strategy would give away from ``view``'s hand."""
    return _PASSERS[bot.strategy](view, bot)


def random_pass(view: SeatView, bot: Bot) -> int:
    """Any card of the hand."""
    return bot.rng.choice([token for token, _card in view.hand])


def greedy_pass(view: SeatView, bot: Bot) -> int:
    """Keep the rank or suit closest to four; pass the card that helps least."""
    hand = view.hand
    counts: dict[str, int] = {}
    for _token, card in hand:
        if card is None:  # a card this seat cannot see: pass it first
            return next(token for token, face in hand if face is None)
        rank_key, suit_key = _GROUPS[card]
        counts[rank_key] = counts.get(rank_key, 0) + 1
        counts[suit_key] = counts.get(suit_key, 0) + 1
    if not view.options["suit_combos"]:
        counts = {key: n for key, n in counts.items() if key[0] == "r"}
    best = max(counts.values())
    memory = bot.memory
    kept: str | None = memory.get("target")
    if memory.get("round") != view.round:
        memory["round"], memory["best"], memory["stale"], kept = view.round, 0, 0, None
    if best > memory["best"]:
        memory["best"], memory["stale"] = best, 0
    else:
        memory["stale"] += 1
    stuck = kept is not None and memory["stale"] >= STUCK_PASSES and best < HAND
    others = sorted([k for k in counts if k != kept]) if stuck else []  # sorted only when wanted
    if others:
        # Everyone may be holding the card the next player waits for: give up this group for another.
        # A complete group is never given up (a marathon instigator keeps its combo while passing).
        target = bot.rng.choice(others)
        memory["stale"] = 0
    elif kept is not None and counts.get(kept, 0) >= best - 1:
        target = kept  # stay the course while it is still (nearly) the best
    else:
        target = min([k for k, n in counts.items() if n == best])
    memory["target"] = target
    # The card that helps least (its groups' counts, then its token), among those outside the target
    # if there are any. Loops, not comprehensions: a bot passes at most events.
    least: tuple[int, int] | None = None
    least_outside: tuple[int, int] | None = None
    for token, card in hand:
        group = _GROUPS[card]  # type: ignore[index]
        usefulness = (counts.get(group[0], 0) + counts.get(group[1], 0), token)
        if least is None or usefulness < least:
            least = usefulness
        if target not in group and (least_outside is None or usefulness < least_outside):
            least_outside = usefulness
    assert least is not None
    return (least_outside or least)[1]


#: Each face's two groups, as short keys: "r:K" for its rank, "s:H" for its suit.
_GROUPS: dict[str, tuple[str, str]] = {
    card: ("r:" + rank_of(card), "s:" + str(suit_of(card))) for card in full_deck(joker_count=1)
}


_PASSERS: dict[str, Callable[[SeatView, Bot], int]] = {"greedy": greedy_pass, "random": random_pass}
