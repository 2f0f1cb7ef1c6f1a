"""The table screen's state for every game: what the player sees around the game, and what the keys
every table has do.

Pure logic, no prompt_toolkit: the layout reads this object at every redraw and the key bindings call
its methods. It follows the peer's notices (``on_notice``) to keep the event log, who plays each seat,
round results and the final ranking, chat, who is lost, the questions a table asks (leave? watch
instead? go on without them? let them in?) and the help and score windows. It marks an event shown
only once a redraw has painted it (``mark_painted``, DESIGN 5.6), and gives a game's screen what it
needs to time a press as the slap timing contract says: ``on_agreed_clock`` for ``t_sync`` and
``reaction_ms`` from the moment the trigger was painted on this screen. The game itself is on the
game's own screen (``ScreenPart.screen``, a ``GameScreen``: the base game's and Kem's come from their
plugins); what its plugins add (words, log styles, what an event the screen sends becomes at their
table) comes from their ``ScreenPart`` (``kdm.tui.extension``): ``parts``, ``say`` and ``act`` weave
it in.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from kdm.engine import Effect, Owed, SeatView
from kdm.entries import MAX_CHAT
from kdm.events import Event
from kdm.names import SeatNames, stand_in_name
from kdm.net.admission import FREE_WRONG_PINS
from kdm.net.node import host_of
from kdm.notices import (
    Applied,
    Cheat,
    NoteArrived,
    Notice,
    Rejected,
    Returned,
    Returning,
    Said,
    Seated,
    Started,
    TookOver,
    Voided,
)
from kdm.peer import Peer
from kdm.record import FULL, PLAYING, REPLAYED
from kdm.tui.extension import ScreenPart
from kdm.tui.text import CATALOGUE, say, say_from

LOG_LINES = 300
#: A seated process not heard from for this long is shown as lost (the peer hands its seat to a bot at 3 s).
LOST_AFTER_MS = 1500.0
#: While a seated process is lost, how often to look whether it answers again.
BACK_LOOK_S = 0.5


@dataclass(frozen=True)
class LogLine:
    style: str
    text: str


@dataclass(frozen=True)
class RoundResult:
    round: int
    scores: tuple[int, ...]


class TableScreen:
    """One player's table screen over a peer (``peer.seat`` is the seat played from the keyboard)."""

    def __init__(
        self,
        peer: Peer,
        lang: str = "en",
        on_change: Callable[[], None] | None = None,
        add_bot: Callable[[], bool] | None = None,
    ) -> None:
        self.peer = peer
        self.lang = lang
        #: Rings the terminal's bell when someone else opens a window (an effect a plugin flashes) or a
        #: call is made (None: silent, ``--no-bell``): a slap comes while one looks at one's hand.
        self.bell: Callable[[], None] | None = None
        self.on_change = on_change or (lambda: None)
        self._add_bot = add_bot
        self.log: deque[LogLine] = deque(maxlen=LOG_LINES)
        #: How many of the newest log lines are scrolled out of view (PgUp / PgDn); 0: the newest shows.
        self.log_back = 0
        self.logged = 0  # lines ever added: tells a changed log from an unchanged one
        self.rounds: list[RoundResult] = []
        self.winners: list[int] | None = None
        self.message = ""
        self.help_open = False
        #: How far the open help or scores window is scrolled down, in lines (clamped as it is drawn).
        self.overlay_down = 0
        self.scores_open = False
        self.confirm_quit = False
        #: The chat line being typed (None: the chat is closed), said to the table with Enter.
        self.chat_draft: str | None = None
        #: Why this player's join was refused, while the screen asks whether to watch instead.
        self.watch_offer = ""
        #: Watching the table without a seat (a spectator).
        self.watching = False
        #: The names of the bots this screen started (``b``): the screen says when one sits.
        self.own_bots: set[str] = set()
        self.left = False
        self.unpainted: list[int] = []
        self.painted: set[int] = set()
        self.lost: set[str] = set()
        #: While the table cannot commit: the names of the seats on the laptops not heard from
        #: (``TableSession.missing_laptops``, told through ``show_stranded``).
        self.stranded: list[str] = []
        #: Goes on without them, as this player decides (``TableSession.go_on_without_them``); None
        #: where nobody may (a screen over a test's fake table).
        self.go_on: Callable[[], bool] | None = None
        #: The player decided to go on without ``stranded``: the table is electing among the others.
        self.going_on = False
        #: Who waits at the door for the leader's PIN check, oldest first: joiner's node id → (the name
        #: it gives, the wrong PINs from its host lately), told through ``show_door``.
        self.door: dict[str, tuple[str, int]] = {}
        #: Lets a joiner in without the PIN check, as this seated player decides
        #: (``TableSession.let_in``); None where nobody may (a spectator, a test's fake table).
        self.let_in: Callable[[str], bool] | None = None
        #: Who acted for each seat from which event on: ``seat -> [(seq, name), ...]``.
        self._acting: dict[int, list[tuple[int, str]]] = {}
        #: ``HOST:PORT`` others join this table at, for the waiting room; and whether it is found by name.
        self.invitation: list[str] = []
        self.advertised = False
        #: The PIN joiners must type, shown in the founder's waiting room ("": the table has none).
        self.pin = ""
        self._view: SeatView | None = None
        self._view_key: tuple[int, int, int | None, bool] | None = None
        self._parts: tuple[object, list[ScreenPart]] | None = None
        self._catch_up()

    def _catch_up(self) -> None:
        """What the record holds already when the screen opens (the seats taken before it followed)."""
        record = self.peer.record
        for seat in range(len(record.seats)):
            self._acting[seat] = [(0, self._acting_now(seat))]
            self._add("info", self.say("seated", name=self.player_name(seat), seat=seat))
        if record.started:
            self._add("info", self.say("started"))

    # --- what the layout reads --------------------------------------------------------------------

    def say(self, key: str, **fields: object) -> str:
        """The words for ``key``: the screen's own, else those of a plugin's screen part; a plugin may
        rename the screen's own (``ScreenPart.renames``: "" when it says them otherwise)."""
        for part in self.parts:
            if key in part.renames:
                renamed = part.renames[key]
                if renamed is None:
                    return ""
                key = renamed
                break
        if key not in CATALOGUE:
            words = next((part.words for part in self.parts if key in part.words), None)
            if words is not None:
                return say_from(words, self.lang, key, **fields)
        return say(self.lang, key, **fields)

    @property
    def parts(self) -> list[ScreenPart]:
        """What the table's plugins add to this screen (``kdm_tui``), once the table is known."""
        engine = self.peer.record.engine
        if engine is None:
            return []
        if self._parts is None or self._parts[0] is not engine:
            found = [part for part in engine.rules.screen_parts() if isinstance(part, ScreenPart)]
            self._parts = (engine, found)
        return self._parts[1]

    @property
    def seat(self) -> int | None:
        return self.peer.seat

    def due_in_ms(self, kind: str) -> float | None:
        """How long until the table's own timer ``kind`` fires: the driver notes when each timer was
        first awaited here, as the leader's does when it starts the timer."""
        engine, driver = self.peer.record.engine, self.peer.driver
        if engine is None or driver is None or engine.over:
            return None
        duty = next((d for d in engine.awaiting() if d.kind == kind and d.owed_as is Owed.TIMER), None)
        if duty is None:
            return None
        return max(0.0, driver.timer_due(duty) - self.peer.clock.local_ms())

    def act(self, event: Event) -> bool:
        """Send ``event`` for this seat: True, as a key handler that sent returns. (What a house rule
        makes of an event its game's screen sends, ``ScreenPart.sends``, the game's screen asks.)"""
        self.peer.act(event)
        return True

    def view(self) -> SeatView | None:
        """This seat's view, built once per applied event or private note (a redraw asks for it from
        every panel)."""
        record = self.peer.record
        engine = record.engine
        key = (id(engine), engine.state.seq if engine is not None else -1, self.peer.seat, record.started)
        if key != self._view_key:
            spectator = self.peer.seat is None and self.watching
            self._view, self._view_key = self.peer.public_view() if spectator else self.peer.view(), key
        return self._view

    @property
    def over(self) -> bool:
        return self.winners is not None

    def player_name(self, seat: int) -> str:
        """Whose seat it is, as the log says it (``kdm.names.SeatNames``: a name two seats share is told
        apart by the seat number). A player away (a bot stands in) keeps their name here."""
        names = [seat.name for seat in self.peer.record.seats]
        return SeatNames.of(names, self.lang)[seat]

    def name(self, seat: int, seq: int | None = None) -> str:
        """Who acts for ``seat`` now, or who did when event ``seq`` was applied: the player, or the bot
        that stood in for them. What someone did stays under their name when the seat changes hands."""
        names = self._acting.get(seat)
        if not names:
            return self._acting_now(seat)
        if seq is not None:
            for since, name in reversed(names):
                if since <= seq:
                    return name
        return names[-1][1]

    def _acting_now(self, seat: int) -> str:
        seats = self.peer.record.seats
        if 0 <= seat < len(seats) and seats[seat].away:
            return stand_in_name(seat, [taken.name for taken in seats], self.lang)
        return self.player_name(seat)

    def _note_acting(self, seat: int) -> None:
        """The seat changed hands: events from the next one on are this actor's."""
        engine = self.peer.record.engine
        since = engine.state.seq if engine is not None and self.peer.record.started else 0
        self._acting.setdefault(seat, []).append((since, self._acting_now(seat)))

    def is_away(self, seat: int) -> bool:
        """Whether a bot stands in for the seat's player (their process is gone or cut off)."""
        seats = self.peer.record.seats
        return 0 <= seat < len(seats) and seats[seat].away

    def is_lost(self, seat: int) -> bool:
        seats = self.peer.record.seats
        return 0 <= seat < len(seats) and seats[seat].process in self.lost

    # --- following the table ----------------------------------------------------------------------

    def on_notice(self, notice: Notice) -> None:
        """One notice from the peer, in log order."""
        mine = notice.node == self.peer.me.identity
        if isinstance(notice, Seated) and notice.seat is not None:
            self._note_acting(notice.seat)
            self._add("info", self.say("seated", name=self.player_name(notice.seat), seat=notice.seat))
            if self.peer.record.seats[notice.seat].name in self.own_bots:
                self.message = self.say("bot_seated", seat=notice.seat)
        elif isinstance(notice, Started):
            self._add("info", self.say("started"))
        elif isinstance(notice, Said):
            self._add("call", self.say("said", name=self.player_name(notice.seat), text=notice.text))
        elif isinstance(notice, TookOver) and notice.seat is not None:
            self._note_acting(notice.seat)
            name, stand_in = self.player_name(notice.seat), self.name(notice.seat)
            self._add(
                "error", self.say("withheld" if notice.reason else "took_over", name=name, bot=stand_in)
            )
        elif isinstance(notice, Voided) and notice.seat is not None and notice.code == REPLAYED:
            # Said once per change of hands, and only when the round is dealt again: a seat that
            # changed hands between rounds deals nothing again. Back, the player brings keys of
            # their own; away, the keys left with their laptop.
            key = "voided" if self.is_away(notice.seat) else "voided_back"
            self._add("error", self.say(key, name=self.player_name(notice.seat)))
        elif isinstance(notice, Cheat):
            name = self.player_name(notice.seat) if notice.seat is not None and notice.seat >= 0 else "?"
            self._add("error", self.say("cheat", name=name, reason=notice.reason))
        elif isinstance(notice, Returning) and notice.seat is not None:
            self._add("info", self.say("returning", name=self.player_name(notice.seat)))
        elif isinstance(notice, Returned) and notice.seat is not None:
            self._note_acting(notice.seat)
            self.lost.discard(notice.previous.split("#", 1)[0])
            key = "you_are_back" if mine else "player_returned"
            self._add("info", self.say(key, name=self.player_name(notice.seat)))
        elif isinstance(notice, NoteArrived):
            self._view_key = None  # a note is no event, but the view holds what it says (a team's sign)
        elif (
            isinstance(notice, Rejected)
            and mine
            and notice.code in (PLAYING, FULL)
            and self.peer.seat is None
        ):
            self.watch_offer = notice.reason  # the game started, or the table is full: watch instead?
            self._add("error", self.say("refused", reason=notice.reason))
        elif isinstance(notice, Rejected) and mine:
            self._add("error", self.say("refused", reason=notice.reason))
            if notice.entry == "chat":  # said where the line was typed, whatever the game's layout
                self.message = self.say("refused", reason=notice.reason)
        elif isinstance(notice, Applied):
            self.unpainted.append(notice.seq)
            for effect in notice.effects:
                self._follow(effect)
        self.on_change()

    def _by_kind(self, of_part: Callable[[ScreenPart], Mapping[str, str]], kind: str) -> str | None:
        """What the first of the table's screen parts that says anything of effect ``kind`` says."""
        return next((of_part(part)[kind] for part in self.parts if kind in of_part(part)), None)

    def _follow(self, effect: Effect) -> None:
        """An effect's line in the log, styled as the plugin of its kind says; the bell; and what every
        game's screen shows of a round's or the game's end (the core's ``round_over`` and
        ``game_over``)."""
        kind = effect["kind"]
        line = self.peer.record.describe(effect, self.lang)
        style = self._by_kind(lambda part: part.log_styles, kind) or "info"
        if line:
            self._add(style, line)
        me = self.peer.seat
        flash = self._by_kind(lambda part: part.flashes, kind)
        if (
            self.bell is not None
            and not self.peer.behind()
            and (style == "call" or (flash is not None and effect["opened"] and effect["seat"] != me))
        ):
            self.bell()
        if kind == "round_over":
            self.rounds.append(RoundResult(effect["round"], tuple(effect["scores"])))
        elif kind == "game_over":
            self.winners = list(effect["winners"])

    def _add(self, style: str, text: str) -> None:
        self.log.append(LogLine(style, text))
        self.logged += 1

    def mark_painted(self, now_ms: float) -> None:
        """A redraw has just finished: every event applied before it is on screen since ``now_ms``."""
        driver = self.peer.driver
        for seq in self.unpainted:
            if driver is not None:
                driver.show(seq, now_ms)  # the one stamp where a screen paints: rt counts from here
            self.painted.add(seq)
        self.unpainted.clear()

    def _watched(self) -> list[tuple[int, str]]:
        """The seats (and their processes) whose silence this process can tell: heartbeats reach the
        leader from everyone, and a follower from its leader only."""
        node, record = self.peer.node, self.peer.record
        leader = node.leader
        return [
            (seat, owner.process)
            for seat, owner in enumerate(record.seats)
            if owner.process != node.node_id and (node.is_leader or owner.process == leader)
        ]

    def check_liveness(self) -> None:
        """Note seated processes that went silent or came back."""
        node = self.peer.node
        changed = False
        for seat, process in self._watched():
            silent = node.silent_ms(process) > LOST_AFTER_MS
            if silent and process not in self.lost:
                self.lost.add(process)
                self._add("error", self.say("peer_lost", name=self.player_name(seat)))
                changed = True
            elif not silent and process in self.lost:
                self.lost.discard(process)
                self._add("info", self.say("peer_back", name=self.player_name(seat)))
                changed = True
        if changed:
            self.on_change()

    def next_liveness_look_s(self) -> float:
        """When ``check_liveness`` could next find a change: the moment the process heard longest ago
        passes ``LOST_AFTER_MS`` (a table at rest hears everyone within a heartbeat, so this sleeps
        more than a second), or soon (``BACK_LOOK_S``) while one is lost, to say it is back; with
        nobody to watch, ``LOST_AFTER_MS``. Nothing nudges the look when whom it watches changes: a
        process is followed as leader, or seated, when it was just heard, so it cannot be lost before
        the wait computed earlier ends; and this process leads after an election, where every voter
        that voted was just heard, and the one that stopped, lost or not yet, set the wait."""
        node, watched = self.peer.node, self._watched()
        if any(process in self.lost for _seat, process in watched):
            return BACK_LOOK_S
        silent_ms = max((node.silent_ms(process) for _seat, process in watched), default=0.0)
        return max(BACK_LOOK_S / 10, (LOST_AFTER_MS - silent_ms) / 1000.0 + 0.001)

    def show_pin_guesses(self, host: str, tried: int, interval_s: float) -> None:
        """Someone at ``host`` guesses the table's PIN: the table slowed its checks down."""
        self._add("error", self.say("pin_guesses", host=host, count=tried, seconds=f"{interval_s:.0f}"))
        self.on_change()

    def show_stranded(self, missing: list[str]) -> None:
        """The table cannot commit without the laptops of ``missing`` (names), or can again ([])."""
        was, self.stranded = self.stranded, list(missing)
        self.going_on = self.going_on and bool(missing) and set(missing) <= set(was)
        if missing and not was:
            self._add("error", self.say("stranded", names=", ".join(missing)))
        elif was and not missing:
            self._add("info", self.say("unstranded"))
        self.on_change()

    def show_fork(self, names: str) -> None:
        """The process of ``names`` led the table and sent two logs: the table goes on without it."""
        self._add("error", self.say("fork_proven", names=names))
        self.on_change()

    def show_convicted(self, names: str) -> None:
        """The process of ``names`` led the table and changed who votes without the voters' approval:
        the table goes on without it."""
        self._add("error", self.say("convicted", names=names))
        self.on_change()

    def show_distrust(self, names: str) -> None:
        """The process of ``names`` leads the table and took none of the moves given it for a while:
        this process asks the others for another leader."""
        self._add("error", self.say("distrust", names=names))
        self.on_change()

    def show_door(self, joiner: str, name: str, tried: int, gone: bool) -> None:
        """``joiner`` waits at the door for the table's PIN check (a stranger slows it down), or no longer."""
        self.door.pop(joiner, None)
        if not gone:
            self.door[joiner] = (name, tried)
        self.on_change()

    @property
    def at_the_door(self) -> tuple[str, str] | None:
        """(node id, name) of the joiner ``L`` lets in: the latest whose host is not the one guessing
        (fewer wrong PINs than slow the table down), so the screen never offers the guesser a way in."""
        if self.let_in is None or self.watching:
            return None
        friends = [(joiner, name) for joiner, (name, tried) in self.door.items() if tried < FREE_WRONG_PINS]
        return friends[-1] if friends else None

    def let_in_at_the_door(self) -> bool:
        """This seated player lets in the joiner the screen names at the door (``L``)."""
        waiting = self.at_the_door
        if waiting is None or self.let_in is None:
            return False
        joiner, name = waiting
        who = name or host_of(joiner)
        if self.let_in(joiner):
            self.door.pop(joiner, None)
            self._add("info", self.say("let_in", name=who))
        else:
            self._add("error", self.say("let_in_refused", name=who))
        self.on_change()
        return True

    def go_on_without_them(self) -> bool:
        """The player decides that the table goes on without the laptops not heard from (``G``)."""
        if not self.stranded or self.go_on is None:
            return False
        self.going_on = self.go_on() or self.going_on
        self.on_change()
        return True

    # --- the player's keys ------------------------------------------------------------------------

    def reaction_ms(self, trigger: int, pressed_ms: float) -> float | None:
        """The time from the paint of event ``trigger`` to a press at ``pressed_ms`` (the driver's)."""
        driver = self.peer.driver
        return None if driver is None else driver.reaction_ms(trigger, pressed_ms)

    def clock_ready(self) -> bool:
        """Whether a press made now can be timed on the table's agreed clock; else the player is told to
        press again in a moment. A process started again, or under a new leader, knows the leader's
        clock only after its first sample: a press timed on its own clock before that would be refused
        by the leader (too far off) or, worse, placed wrongly in the window."""
        if self.peer.clock_agreed():
            return True
        return self.tell("clock_settling")

    def on_agreed_clock(self, pressed_ms: float) -> float:
        """``pressed_ms`` (on the peer's clock, ``Clock.local_ms``) on the table's agreed clock, as a
        slap's ``t_sync``."""
        driver = self.peer.driver
        return pressed_ms if driver is None else driver.agreed_at(pressed_ms)

    def tell(self, key: str, **fields: object) -> bool:
        """Tell the player why a key did nothing; False, for a key handler to return."""
        self.message = self.say(key, **fields)
        self.on_change()
        return False

    def add_bot(self) -> None:
        record = self.peer.record
        if self._add_bot is None or record.started:
            return
        if len(record.seats) >= record.players:
            self.tell("no_bot_room")
        elif self._add_bot():
            self.tell("bot_added")

    def toggle_help(self) -> None:
        self.help_open, self.scores_open, self.overlay_down = not self.help_open, False, 0
        self.on_change()

    def toggle_scores(self) -> None:
        # The scores open at their end (the totals, the latest rounds); scrolled up for earlier ones.
        self.scores_open, self.help_open, self.overlay_down = not self.scores_open, False, sys.maxsize
        self.on_change()

    def close_overlays(self) -> None:
        self.help_open = self.scores_open = self.confirm_quit = False
        self.overlay_down = 0
        self.on_change()

    def scroll_overlay(self, lines: int) -> None:
        """Scroll the open help or scores window ``lines`` down (positive) or up."""
        self.overlay_down = max(0, self.overlay_down + lines)
        self.on_change()

    def scroll_log(self, lines: int) -> None:
        """Scroll the log ``lines`` back (positive) or forward, within what it keeps."""
        self.log_back = max(0, min(len(self.log) - 1, self.log_back + lines))
        self.on_change()

    def open_chat(self) -> bool:
        """Start typing a line for the table (a seated player, once the game is on)."""
        if self.peer.seat is None or not self.peer.record.started or self.over:
            return False
        self.chat_draft = ""
        self.on_change()
        return True

    def type_chat(self, key: str, data: str) -> None:
        """One key while the chat line is open: Enter says it, Esc drops it, Backspace rubs out."""
        draft = self.chat_draft
        if draft is None:
            return
        if key in ("c-m", "enter"):
            self.chat_draft = None
            if draft.strip():
                self.peer.say(draft.strip())
        elif key in ("escape", "c-c"):
            self.chat_draft = None
        elif key in ("backspace", "c-h"):
            self.chat_draft = draft[:-1]
        elif data.isprintable() and len(draft) + len(data) <= MAX_CHAT:
            self.chat_draft = draft + data
        self.on_change()

    def ask_quit(self) -> bool:
        """Whether to leave at once (the game is over), else ask first."""
        if self.over or not self.peer.record.started or self.peer.seat is None:
            self.left = True
            return True
        self.confirm_quit = True
        self.on_change()
        return False

    @property
    def asking(self) -> bool:
        """A question is on screen (leave? watch instead?): every key answers it."""
        return self.confirm_quit or bool(self.watch_offer) or self.chat_draft is not None

    def answer_watch(self, yes: bool) -> bool:
        """The answer to "watch instead?": True when the player leaves (no)."""
        self.watch_offer = ""
        self.watching, self.left = yes, not yes
        self._view_key = None
        if yes:
            self._add("info", self.say("watching"))
        self.on_change()
        return not yes

    def answer_quit(self, yes: bool) -> bool:
        self.confirm_quit = False
        self.left = yes
        self.on_change()
        return yes
