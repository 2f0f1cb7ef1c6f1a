"""Peers over the fake consensus (``kdm.testing.FakeLog``), each with a bot quick enough for a whole game
in virtual milliseconds: the tables of the peer, fair-deck and Kem's network tests.
"""

from __future__ import annotations

from kdm.agents import Bot, Profile
from kdm.manager import installed_plugins
from kdm.peer import Peer
from kdm.testing import FakeLog


def quick_bot(seat: int, seed: bytes) -> Bot:
    """A greedy bot quick enough for a whole game on real asyncio timers, its slaps still quicker than
    its passes, as with people (or a combo is never slapped in time)."""
    bot = Bot(seat, "greedy", seed=seed)
    bot.profile = Profile(reaction_ms=2, reaction_spread_ms=0.5, think_ms=(4, 8))
    return bot


def bot_peers(log: FakeLog, players: int, seed: bytes, people: tuple[int, ...] = ()) -> list[Peer]:
    """A peer per seat on ``log``, each with a quick bot but at the seats of ``people``; ``n0`` leads."""
    installed = installed_plugins()
    peers = [
        Peer(log.node(f"n{i}"), installed, bot=None if i in people else quick_bot(i, seed))
        for i in range(players)
    ]
    log.peers, log.leader = peers, "n0"
    return peers
