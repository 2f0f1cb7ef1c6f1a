"""Snap's table screen's layout: the table screen's own (``kdm.tui.layout.table_layout``) with Snap's
panels (``panels``), so that the style, the log, the message line and the overlays are every table's.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.layout import FloatContainer

from kdm.tui.layout import Panels, table_layout
from kdm.tui.panels import Fragments
from kdm_snap.screen import panels
from kdm_snap.screen.state import SnapPlay


def build_snap(play: SnapPlay) -> FloatContainer:
    """The whole Snap table screen."""

    def of(render: Callable[[SnapPlay], Fragments]) -> Callable[[], Fragments]:
        return lambda: render(play)

    return table_layout(
        play.screen,
        Panels(
            of(panels.header_text),
            lambda: panels.players_title(play),
            of(panels.players_text),
            of(panels.table_text),
            of(panels.hand_text),
            of(panels.footer_text),
            of(panels.help_text),
            of(panels.scores_text),
            of(panels.ranking_text),
        ),
    )
