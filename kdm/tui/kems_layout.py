"""The Kem's table screen's layout, and the switch that shows it instead of Kilo de merde's.

A header line; on the left the players (team, points, marks) and the table (its four cards and the
hunt's state); on the right everyone's gestures above the event log; then the hand, one line of
feedback and the key footer; overlays for the gesture menu, the Contre's opponent, the sign chooser,
help, scores, the final ranking and the quit question. Fits 80×24 with eight players; the style, the
log panel and the overlays' frames are the table screen's (``layout``), so ``NO_COLOR`` works the same.
``with_kems`` wraps the Kilo layout: the screen shows the Kem's one while the seat's view has a Kem's
part (before the game, the waiting room is the same for every game).
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.application import get_app
from prompt_toolkit.layout import DynamicContainer, FloatContainer, HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension

from kdm.tui import kems_panels as panels
from kdm.tui.kems_state import KemsPlay
from kdm.tui.layout import LogPanel, _overlay, _rows, _titled, log_width
from kdm.tui.panels import LEFT_COLUMN, Fragments, message_text, quit_text
from kdm.tui.state import TableScreen
from kdm.tui.text import say as client_say


def with_kems(kilo: Layout, play: KemsPlay) -> Layout:
    """``kilo``'s screen, or the Kem's screen while ``play`` is active."""
    kems = build_kems(play)
    return Layout(DynamicContainer(lambda: kems if play.active else kilo.container))


def build_kems(play: KemsPlay) -> FloatContainer:
    """The whole Kem's table screen."""
    screen = play.screen

    def text(render: Callable[[KemsPlay], Fragments]) -> FormattedTextControl:
        return FormattedTextControl(lambda: render(play))

    players_rows = Window(
        text(panels.players_text), height=lambda: Dimension.exact(_rows(panels.players_text(play)))
    )
    players = _titled(lambda: panels.players_title(play), players_rows)
    table = _titled(lambda: play.say("table_panel"), Window(text(panels.table_text)))
    feed = _titled(lambda: play.say("feed"), Window(text(panels.feed_text), height=panels.FEED_ROWS))
    log_panel = LogPanel(screen)
    log = _titled(
        lambda: client_say(screen.lang, "log"),
        Window(
            FormattedTextControl(log_panel.fragments, get_cursor_position=log_panel.cursor),
            wrap_lines=True,
        ),
    )
    body = HSplit(
        [
            Window(text(panels.header_text), height=1, style="class:header"),
            VSplit(
                [
                    HSplit([players, table], width=Dimension.exact(LEFT_COLUMN)),
                    Window(width=1, char="│", style="class:rule"),
                    HSplit([feed, log], width=lambda: Dimension.exact(log_width(_columns()))),
                ],
                width=lambda: Dimension.exact(_columns()),
            ),
            Window(text(panels.hand_text), height=3),
            Window(FormattedTextControl(lambda: message_text(screen)), height=1),
            Window(text(panels.footer_text), height=1, style="class:footer"),
        ]
    )

    def shown(render: Callable[[KemsPlay], Fragments]) -> Callable[[TableScreen], Fragments]:
        return lambda _screen: render(play)

    def title(key: str) -> Callable[[TableScreen], str]:
        return lambda _screen: play.say(key)

    floats = [
        _overlay(screen, title("menu_title"), shown(panels.menu_text), lambda _s: play.menu_open),
        _overlay(screen, title("contre_title"), shown(panels.contre_text), lambda _s: play.choosing_target),
        _overlay(screen, title("signs_title"), shown(panels.signs_text), lambda _s: play.signs_open),
        _overlay(screen, title("help_title"), shown(panels.help_text), lambda s: s.help_open),
        _overlay(screen, title("scores_title"), shown(panels.scores_text), lambda s: s.scores_open),
        _overlay(
            screen, title("ranking"), shown(panels.ranking_text), lambda s: s.over and not s.scores_open
        ),
        _overlay(screen, lambda s: s.say("quit_title"), quit_text, lambda s: s.confirm_quit),
    ]
    return FloatContainer(body, floats=floats)


def _columns() -> int:
    return get_app().output.get_size().columns
