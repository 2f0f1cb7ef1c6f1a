"""The table screen as a prompt_toolkit application on the session's asyncio loop.

``TableApp`` joins the three parts (state, layout, keys), follows the peer's notices, and stamps the
moment each redraw ends (``after_render``) as the moment the events it painted were shown (DESIGN 5.6).
Redraws are not postponed (``max_render_postpone_time=None``): a slap must reach the screen as soon as
it is applied; a plugin's countdown (all_at_once's GO) is redrawn each time it shows one second less.
``TableUI`` is the ``ui`` a session runs: it keeps the screen after the session ends, so
the final ranking can stay up. Input and output are injectable, for tests and benchmarks.
"""

from __future__ import annotations

import asyncio
import math
import tempfile
from collections.abc import Callable

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import DynamicKeyBindings, KeyBindingsBase
from prompt_toolkit.layout import AnyContainer, DynamicContainer, Layout
from prompt_toolkit.output import ColorDepth, Output

from kdm.net.loops import every
from kdm.notices import Notice
from kdm.peer import Peer
from kdm.session import BotProcess, TableSession, spawn_bot, stop_process
from kdm.tui.extension import GameScreen
from kdm.tui.keys import answer_escape_at_once, table_bindings
from kdm.tui.layout import build_layout, size_polling_interval, table_style
from kdm.tui.state import TableScreen

#: The shortest wait between two redraws of a countdown (a plugin that asks for 0 would spin), and how
#: early a countdown's timer may go off and still redraw (a timer may fire a rounding error early; far
#: less than the shortest wait, or a paint right after the wait was set would count as due, and each
#: redraw's paint would redraw again).
MIN_REDRAW_S = 0.01
EARLY_S = MIN_REDRAW_S / 10


class TableApp:
    """The table screen for ``peer``, while ``run`` runs."""

    def __init__(
        self,
        peer: Peer,
        lang: str = "en",
        input: Input | None = None,
        output: Output | None = None,
        add_bot: Callable[[], bool] | None = None,
        screen: TableScreen | None = None,
    ) -> None:
        self.peer = peer
        self.screen = screen or TableScreen(peer, lang, add_bot=add_bot)
        peer.screen_attached()  # what this process shows is what its screen paints
        self.screen.on_change = self.invalidate
        #: The table's game modes' own screens (``ScreenPart.screen``), made once the table is known.
        self._games: tuple[object, list[GameScreen]] = (None, [])
        #: Called after every redraw (benchmarks and tests watch the screen through it).
        self.painted_listeners: list[Callable[[], None]] = []
        #: Set at each paint, for the countdown's loop; when it redraws next (loop time).
        self._drawn = asyncio.Event()
        self._redraw_at = math.inf
        base_layout, base_keys = build_layout(self.screen).container, table_bindings(self.screen)

        def container() -> AnyContainer:
            game = self.game_screen()
            return base_layout if game is None else game.container

        def bindings() -> KeyBindingsBase:
            game = self.game_screen()
            return base_keys if game is None else game.bindings

        self.application: Application[None] = Application(
            layout=Layout(DynamicContainer(container)),
            key_bindings=DynamicKeyBindings(bindings),
            style=table_style(),
            color_depth=ColorDepth.from_env,
            full_screen=True,
            mouse_support=False,
            input=input,
            output=output,
            after_render=self._painted,
            max_render_postpone_time=None,
            terminal_size_polling_interval=size_polling_interval(),
        )
        answer_escape_at_once(self.application)

    def invalidate(self) -> None:
        self.application.invalidate()

    def game_screens(self) -> list[GameScreen]:
        """The screens the table's game modes bring, made again only when the table's parts change."""
        parts = self.screen.parts
        if self._games[0] is not parts:
            self._games = (parts, [part.screen(self.screen) for part in parts if part.screen is not None])
        return self._games[1]

    def game_screen(self) -> GameScreen | None:
        """The game's screen shown now instead of the waiting room, if any."""
        return next((game for game in self.game_screens() if game.active()), None)

    def _painted(self, _application: Application[None]) -> None:
        self.screen.mark_painted(self.peer.clock.local_ms())
        self._drawn.set()
        for listener in self.painted_listeners:
            listener()

    def _notice(self, notice: Notice) -> None:
        self.screen.on_notice(notice)
        for game in self.game_screens():
            game.on_notice(notice)

    async def run(self, errors_on_screen: bool = True) -> None:
        """Show the table until the player leaves (or the task is cancelled). An exception nothing
        handled is shown on the terminal, which waits for Enter (prompt_toolkit's way), unless
        ``errors_on_screen`` is false: then it goes to the event loop's own handler (a test's, which fails
        the test at once instead of waiting for a key that never comes)."""
        previous = self.peer.on_notice

        def both(notice: Notice) -> None:
            # The session keeps its own listener (it starts the game, re-advertises); the screen follows.
            if previous is not None:
                previous(notice)
            self._notice(notice)

        self.peer.on_notice = both
        loop = asyncio.get_running_loop()
        watchers = [
            loop.create_task(
                every(
                    self.screen.next_liveness_look_s, self.screen.check_liveness, "looking for silent peers"
                )
            ),
            loop.create_task(
                every(self._next_redraw_s, self._redraw_if_due, "a countdown", nudge=self._drawn)
            ),
        ]
        try:
            await self.application.run_async(set_exception_handler=errors_on_screen)
        finally:
            for watcher in watchers:
                watcher.cancel()
            self.peer.on_notice = previous

    def _next_redraw_s(self) -> float:
        """Seconds until a plugin's countdown shows one second less (``ScreenPart.redraw_in``); while
        none counts, until the next redraw (each paint nudges the loop: a countdown starts with
        something shown)."""
        game = self.game_screen()
        given = game.given if game is not None else None
        waits = (
            [part.redraw_in(given) for part in self.screen.parts if part.redraw_in is not None]
            if given is not None
            else []
        )
        wait = min((w for w in waits if w is not None), default=None)
        now = asyncio.get_running_loop().time()
        self._redraw_at = math.inf if wait is None else now + max(wait, MIN_REDRAW_S)
        return self._redraw_at - now

    def _redraw_if_due(self) -> None:
        if asyncio.get_running_loop().time() >= self._redraw_at - EARLY_S:
            self.invalidate()


class TableUI:
    """The ``ui`` of a session (``kdm.session.host`` / ``join``): the table screen while the session runs.

    It outlives the session's run so that ``show_final`` can keep the ranking on screen after the game's
    end has ended the session, and it owns the bot processes the player adds from the waiting room.
    """

    def __init__(
        self, lang: str = "en", input: Input | None = None, output: Output | None = None, bell: bool = True
    ) -> None:
        self.lang = lang
        self.ring_bell = bell
        self.input, self.output = input, output
        self.app: TableApp | None = None
        self.bots: list[BotProcess] = []
        self._watching: list[asyncio.Task[None]] = []

    async def __call__(self, session: TableSession) -> None:
        self.app = TableApp(
            session.peer, self.lang, self.input, self.output, add_bot=lambda: self._add_bot(session)
        )
        if self.ring_bell:
            self.app.screen.bell = self.app.application.output.bell
        self.app.screen.invitation = session.invitation()
        self.app.screen.advertised = session.config.advertise
        self.app.screen.pin = session.config.pin or ""
        self.app.screen.watching = session.config.watch
        self.app.screen.go_on = session.go_on_without_them
        session.on_stranded = self.app.screen.show_stranded
        session.on_fork = self.app.screen.show_fork
        session.on_convicted = self.app.screen.show_convicted
        session.on_distrust = self.app.screen.show_distrust
        session.on_pin_guesses = self.app.screen.show_pin_guesses
        session.on_door = self.app.screen.show_door
        self.app.screen.let_in = session.let_in
        for bot in session.bots:
            self._watch(bot)
        try:
            await self.app.run()
        finally:
            for watching in self._watching:
                watching.cancel()

    @property
    def screen(self) -> TableScreen | None:
        return self.app.screen if self.app is not None else None

    def _add_bot(self, session: TableSession) -> bool:
        """Start a bot on this machine (whoever presses the key: the table's founder or not), where this
        process reaches the table; the screen says when it sits, or why it could not."""
        if not session.contact or self.app is None:
            return False
        seed = session.config.seed * 100 + 50 + len(self.bots)
        name = f"bot {len(self.bots) + 1} of {session.config.name or 'kdm'}"
        errors = tempfile.TemporaryFile()  # noqa: SIM115 (kept open for the bot's life; closed in stop_bots)
        process = spawn_bot(
            session.contact, session.config, seed=seed, name=name, errors=errors, laptop=session.node.node_id
        )
        bot = BotProcess(process, name, errors)
        self.bots.append(bot)
        self._watch(bot)
        self.app.screen.own_bots.add(name)
        return True

    def _watch(self, bot: BotProcess) -> None:
        """Tell the player if ``bot`` stops without playing: one added here, or one that ``--bots N``
        started (``TableSession.bots``), else the table would wait for it for ever."""

        async def watch() -> None:
            reason = await bot.failed()
            if reason and self.app is not None:
                self.app.screen.tell("bot_failed", reason=reason)

        self._watching.append(asyncio.get_running_loop().create_task(watch()))

    async def show_final(self) -> None:
        """Keep the final ranking on screen until the player leaves, if the game ended under them."""
        screen = self.screen
        if self.app is None or screen is None or not screen.over or screen.left:
            return
        screen.close_overlays()  # a question or help left open when the game ended would hide the ranking
        final = TableApp(self.app.peer, screen=screen, input=self.input, output=self.output)
        await final.application.run_async()

    async def stop_bots(self) -> None:
        """Stop the bots added here: at once if the game goes on without us, else let them finish."""
        screen = self.screen
        over = screen is not None and screen.over
        await asyncio.gather(
            *(asyncio.to_thread(stop_process, bot.process, 3.0 if over else 0.5) for bot in self.bots)
        )
        for bot in self.bots:
            bot.errors.close()
        self.bots.clear()
