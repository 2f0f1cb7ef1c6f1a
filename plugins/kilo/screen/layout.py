"""The base game's table screen's layout: the table screen's own (``kdm.tui.layout.table_layout``) with
the base game's panels (``panels``), so that the style, the log, the message line and the overlays are
every table's.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.layout import FloatContainer

from kdm.plugins.kilo.screen import panels
from kdm.plugins.kilo.screen.state import KiloPlay
from kdm.tui.layout import Panels, table_layout
from kdm.tui.panels import Fragments, players_title


def build_kilo(play: KiloPlay) -> FloatContainer:
    """The whole base game's table screen."""

    def of(render: Callable[[KiloPlay], Fragments]) -> Callable[[], Fragments]:
        return lambda: render(play)

    return table_layout(
        play.screen,
        Panels(
            of(panels.header_text),
            lambda: players_title(play.screen),
            of(panels.players_text),
            of(panels.table_text),
            of(panels.hand_text),
            of(panels.footer_text),
            of(panels.help_text),
            of(panels.scores_text),
            of(panels.ranking_text),
        ),
    )
