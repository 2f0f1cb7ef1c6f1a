"""The Kem's table screen's layout.

A header line; on the left the players (team, points, marks) and the table (its four cards and the
hunt's state); on the right everyone's gestures above the event log; then the hand, one line of
feedback and the key footer; overlays for the gesture menu, the Contre's opponent, the sign chooser,
help, scores, the final ranking and the quit question. Fits 80×24 with eight players; the style, the
log panel and the overlays' frames are the table screen's (``kdm.tui.layout``), so ``NO_COLOR`` works
the same.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.layout import Float, FloatContainer, HSplit, VSplit, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension

from kdm.plugins.kems.screen import panels
from kdm.plugins.kems.screen.state import KemsPlay
from kdm.tui.layout import columns, log_panel, log_width, overlay, quit_overlay, rows_of, titled
from kdm.tui.panels import LEFT_COLUMN, Fragments, message_text


def build_kems(play: KemsPlay) -> FloatContainer:
    """The whole Kem's table screen."""
    screen = play.screen

    def text(render: Callable[[KemsPlay], Fragments]) -> FormattedTextControl:
        return FormattedTextControl(lambda: render(play))

    players_rows = Window(
        text(panels.players_text), height=lambda: Dimension.exact(rows_of(panels.players_text(play)))
    )
    players = titled(lambda: panels.players_title(play), players_rows)
    table = titled(lambda: play.say("table_panel"), Window(text(panels.table_text)))
    feed = titled(lambda: play.say("feed"), Window(text(panels.feed_text), height=panels.FEED_ROWS))
    body = HSplit(
        [
            Window(text(panels.header_text), height=1, style="class:header"),
            VSplit(
                [
                    HSplit([players, table], width=Dimension.exact(LEFT_COLUMN)),
                    Window(width=1, char="│", style="class:rule"),
                    HSplit([feed, log_panel(screen)], width=lambda: Dimension.exact(log_width(columns()))),
                ],
                width=lambda: Dimension.exact(columns()),
            ),
            Window(text(panels.hand_text), height=3),
            Window(FormattedTextControl(lambda: message_text(screen)), height=1),
            Window(text(panels.footer_text), height=1, style="class:footer"),
        ]
    )

    def shown(
        key: str, render: Callable[[KemsPlay], Fragments], visible: Callable[[], bool], scrolled: bool = False
    ) -> Float:
        return overlay(lambda: play.say(key), lambda: render(play), visible, screen if scrolled else None)

    floats = [
        shown("menu_title", panels.menu_text, lambda: play.menu_open),
        shown("contre_title", panels.contre_text, lambda: play.choosing_target),
        shown("signs_title", panels.signs_text, lambda: play.signs_open),
        shown("help_title", panels.help_text, lambda: screen.help_open, scrolled=True),
        shown("scores", panels.scores_text, lambda: screen.scores_open, scrolled=True),
        shown("ranking", panels.ranking_text, lambda: screen.over and not screen.scores_open),
        quit_overlay(screen),
    ]
    return FloatContainer(body, floats=floats)
