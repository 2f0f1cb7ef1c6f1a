"""What each panel of the table screen every game shares says: functions of the ``TableScreen``, read
at every redraw.

Before the game, the waiting room: the header (the table's name), the seats taken and free, how the game
starts and the address friends join with, the log, the message line and the footer. Once it is on, a
game's own screen shows the game (``ScreenPart.screen``: the base game's and Kem's come from their
plugins) and uses what is here that every table has: the message line (with the questions a table
asks), the chat line, the quit question, a card as text, the panels' widths. A game that brings no
screen of its own is followed in the log, its seats listed by name.
"""

from __future__ import annotations

import ipaddress

from prompt_toolkit.formatted_text import StyleAndTextTuples

from kdm.cards import JOKER, RED_SUITS, pretty, suit_of
from kdm.net.keys import fingerprint
from kdm.net.node import host_of
from kdm.tui.plugin_panels import rules_lines
from kdm.tui.state import TableScreen
from kdm.tui.text import as_argument, flowed

Fragments = StyleAndTextTuples
PLAYER_NAME_WIDTH = 14
#: The left column's width (players and table); the log has the rest.
LEFT_COLUMN = 37
#: The table panel's width for text (its column, less a margin).
PANEL_TEXT_WIDTH = LEFT_COLUMN - 1
#: The rules' paragraphs are flowed to this width: the help's, inside an 80-column screen's frame.
RULES_WIDTH = 74
#: Columns for the cards in front of a player on the scoreboard (after their name).
IN_FRONT_WIDTH = 56


def header_text(screen: TableScreen) -> Fragments:
    record = screen.peer.record
    return [("class:header.title", " kdm "), ("", screen.say("table", name=record.name or "…"))]


def players_title(screen: TableScreen) -> str:
    record = screen.peer.record
    if not record.started:
        return screen.say("waiting_room")
    return screen.say("players")


def players_text(screen: TableScreen) -> Fragments:
    """The waiting room's seats; once a game without a screen of its own is on, who plays each seat."""
    view, me = screen.view(), screen.peer.seat
    if view is None:
        return waiting_room_text(screen)
    lines: Fragments = []
    for seat in range(view.players):
        name = screen.player_name(seat) + (f" ({screen.say('you')})" if seat == me else "")
        lines.append(("class:me" if seat == me else "", f" {seat:>2} {name[:PLAYER_NAME_WIDTH]}"))
        lines += absence(screen, seat)
        if seat < view.players - 1:
            lines.append(("", "\n"))
    return lines


def absence(screen: TableScreen, seat: int) -> Fragments:
    """The mark after a player's row when they are not there: away (a bot stands in) or lost (not
    heard from lately); nothing when they are. Every game's players panel ends a row with it."""
    if screen.is_away(seat):
        return [("class:lost", " " + screen.say("away"))]
    if screen.is_lost(seat):
        return [("class:lost", " " + screen.say("lost"))]
    return []


def waiting_room_text(screen: TableScreen) -> Fragments:
    """Before the game: the seats, taken and free, the host marked."""
    record, me = screen.peer.record, screen.peer.seat
    total = record.players or len(record.seats)
    lines: Fragments = [("class:dim", screen.say("seats_taken", taken=len(record.seats), total=total) + "\n")]
    for seat in range(total):
        if seat < len(record.seats):
            name = screen.player_name(seat) + (f" ({screen.say('you')})" if seat == me else "")
            if record.seats[seat].node == record.host:
                name += f" · {screen.say('host')}"
            lines.append(("class:me" if seat == me else "", f" {seat:>2} {name}"))
        else:
            lines.append(("class:dim", f" {seat:>2} {screen.say('free_seat')}"))
        if seat < total - 1:
            lines.append(("", "\n"))
    return lines


def waiting_table_text(screen: TableScreen) -> Fragments:
    """Before the game: how it starts, and the address friends join with."""
    record = screen.peer.record
    if screen.peer.seat is None:
        return [("class:dim", screen.say("joining"))]
    lines: Fragments = [("", screen.say("starts_when_full") + "\n")]
    addresses = [address for address in screen.invitation if not on_this_machine_only(address)]
    if screen.invitation and not addresses:
        # A table bound to loopback (``kdm play --bots 3``): no one on another laptop can reach it.
        lines.append(("class:dim", "\n" + screen.say("local_only")))
    elif record.name and screen.advertised:
        lines.append(("class:call", "\n" + screen.say("join_with", address=as_argument(record.name))))
        if addresses:
            lines.append(("class:dim", "\n" + screen.say("join_by_address", addresses=", ".join(addresses))))
    elif addresses:
        lines.append(("class:call", "\n" + screen.say("join_with", address=" | ".join(addresses))))
    if screen.pin and record.host == screen.peer.node.node_id:
        # Only the founder knows the PIN to tell (a joiner typed it; a watcher need not see it).
        lines.append(("class:call", "\n" + screen.say("pin_to_tell", pin=screen.pin)))
    table_key = fingerprint(record.host)
    if table_key:
        lines.append(("class:dim", "\n" + screen.say("table_key", fingerprint=table_key)))
    lines.append(("class:dim", "\n" + screen.say("fair_deck" if record.deck == "fair" else "open_deck")))
    return flowed(lines, PANEL_TEXT_WIDTH)


def on_this_machine_only(address: str) -> bool:
    """Whether ``HOST:PORT`` is a loopback address (127.0.0.1, and 127.0.1.1 of a Debian host name)."""
    host = address.rpartition(":")[0] or address
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name: whoever can resolve it can try it


def table_text(screen: TableScreen) -> Fragments:
    """Before the game, how it starts and how friends join; after, a game without a screen of its own
    says so (its log says what happens)."""
    if screen.view() is None:
        return waiting_table_text(screen)
    return flowed([("class:dim", screen.say("no_game_screen"))], PANEL_TEXT_WIDTH)


def hand_text(screen: TableScreen) -> Fragments:
    """What this process waits for (a seat, the other players, a game to watch), or the game's end."""
    if screen.over:
        return [("class:round", " " + screen.say("game_over"))]
    me, started = screen.peer.seat, screen.peer.record.started
    key = "watching" if started else "joining" if me is None else "waiting_for_players"
    return [("class:dim", " " + screen.say(key))]


def footer_text(screen: TableScreen) -> Fragments:
    if screen.chat_draft is not None:
        return chat_line(screen)
    if screen.over:
        return [("", " " + screen.say("footer_over"))]
    if not screen.peer.record.started:
        return [("", " " + screen.say("footer_waiting"))]
    return [("", " " + "  ".join(screen.say(hint) for hint in ("hint_scores", "hint_help", "hint_quit")))]


def card_fragment(face: str | None, lang: str = "en") -> tuple[str, str]:
    """A card as people reading ``lang`` read it, with its colour class (red suits; a joker has its own)."""
    if face is None:
        return "", "??"
    if face == JOKER:
        return "class:card.joker", pretty(face, lang)
    return ("class:card.red" if suit_of(face) in RED_SUITS else ""), pretty(face, lang)


def message_text(screen: TableScreen) -> Fragments:
    if screen.stranded:  # stays until the table commits again: the player has a question to answer
        names = ", ".join(screen.stranded)
        return [
            ("class:error", " " + screen.say("going_on" if screen.going_on else "stranded_ask", names=names))
        ]
    waiting = screen.at_the_door
    if waiting is not None:  # a question too, while the friend waits
        joiner, name = waiting
        host = host_of(joiner)
        return [("class:call", " " + screen.say("at_the_door", name=name or host, host=host))]
    return [("class:message", " " + screen.message)] if screen.message else []


def chat_line(screen: TableScreen) -> Fragments:
    """The chat line being typed, in place of the key footer (any game's)."""
    return [("class:call", " " + screen.say("chat_prompt", draft=screen.chat_draft or ""))]


# --- overlays ---------------------------------------------------------------------------------------


def help_text(screen: TableScreen) -> Fragments:
    """The keys every table has, then the rules of the game and of each house rule at the table."""
    return [("", screen.say("help_table")), *rules_lines(screen, RULES_WIDTH)]


def quit_text(screen: TableScreen) -> Fragments:
    if screen.watch_offer:
        return [("", screen.watch_offer + "\n"), ("bold", screen.say("watch_ask"))]
    return [("bold", screen.say("quit_ask"))]


def scores_text(screen: TableScreen) -> Fragments:
    """Each round's gains and the totals, as every game's ``round_over`` says them."""
    players = screen.peer.record.players
    names = (screen.player_name(seat)[:7] for seat in range(players))
    head = f"{screen.say('scores_round'):>7} " + "".join(f"{name:>8}" for name in names)
    lines: Fragments = [("class:dim", head + "\n")]
    previous: tuple[int, ...] = (0,) * players
    for result in screen.rounds:  # every round: a long game's window scrolls (it opens at the end)
        gained = "".join(
            f"{b - a:>+8}" if b != a else f"{'·':>8}" for a, b in zip(previous, result.scores, strict=True)
        )
        lines.append(("", f"{result.round:>7} {gained}\n"))
        previous = result.scores
    view = screen.view()
    totals = view.scores if view is not None else previous
    lines.append(("bold", f"{screen.say('scores_total'):>7} " + "".join(f"{score:>8}" for score in totals)))
    return lines


def ranking_text(screen: TableScreen) -> Fragments:
    """The final ranking of a game without a screen of its own: the winners, then the others."""
    view = screen.view()
    if view is None:
        return []
    winners = screen.winners or []
    ranked = sorted(range(view.players), key=lambda seat: (seat not in winners, seat))
    lines: Fragments = []
    for seat in ranked:
        name = screen.player_name(seat) + (f" ({screen.say('you')})" if seat == screen.peer.seat else "")
        row = f"{name[:20]:<20} {view.scores[seat]:>8}"
        lines += [
            ("class:winner", row + "  " + screen.say("winner")) if seat in winners else ("", row),
            ("", "\n"),
        ]
    lines.append(("class:dim", "\n" + screen.say("any_key")))
    return lines
