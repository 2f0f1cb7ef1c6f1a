"""A third party's house rule at the terminal table: the example package ``aceback`` (``examples/aceback``,
installed by ``make test`` as a stranger's package would be) adds its key, its line on the table panel,
its mark, its footer hint and its help line through ``kdm_tui``, and a person plays it from the keyboard,
in the scenes of ``test_tui`` (four peers on a log that commits at once, seat 0 on screen).

The rule needs an ace in front of the player, which comes from shuffles no test chooses: the test puts
one there on every peer alike, then the key's event is committed and applied everywhere.
"""

from __future__ import annotations

from kdm.net.clock import monotonic_ms
from kdm.plugins.kilo import rules as kilo
from kdm.plugins.kilo.events import Feint
from tests.helpers.plugins import require_example
from tests.helpers.tui import Table, run, table


def put_an_ace_in_front_of(t: Table, seat: int) -> int:
    """The pile's top card becomes the ace of spades in front of ``seat``, at every peer alike."""
    token = -1
    for peer in t.peers:
        engine = peer.record.engine
        assert engine is not None
        state = engine.state
        token = state.zones["pile"].pop()
        state.faces[token] = "AS"
        state.zones[kilo.kilos_zone(seat)].append(token)
        kilo.record_kilos(engine, seat, kilo.kilos_of(engine, seat))
    return token


def test_a_person_sends_an_ace_back_with_the_plugin_s_key() -> None:
    require_example("aceback")

    async def scene() -> None:
        async with table(variants=["aceback"]) as t:
            assert "a ace back" not in t.text()
            await t.press("a", lambda: "no ace of yours to send back" in t.text(), "told why not")
            ace = put_an_ace_in_front_of(t, 0)
            await t.act(3, Feint(seat=3, t_sync=monotonic_ms()))  # an event: the screen looks again
            await t.shows("a: send A♠ back under the pile")
            assert t.text().splitlines()[-1].rstrip().endswith("a ace back")  # the footer's hint
            await t.press("a", lambda: bool(t.log.events("return_ace")), "the ace sent back")
            assert t.log.events("return_ace") == [{"kind": "return_ace", "seat": 0, "token": ace}]
            await t.shows("↩ sent an ace back")
            assert "a: send" not in t.text() and t.state.scores[0] == 0
            await t.press("a", lambda: "your ace went back already" in t.text(), "once a game")
            await t.press("?", lambda: t.screen.help_open, "help open")
            await t.shows("send an ace in front of you back under the pile (once a game)")

    run(scene)
