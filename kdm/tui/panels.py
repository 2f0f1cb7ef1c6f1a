"""What each panel of the table screen says: functions of the ``TableScreen``, read at every redraw.

Header (table, round, pile, direction); the players (turn, cards, kilos, who slapped, who is lost) or,
before the game, the waiting room; the table (the last slap or feint, big; the window's order with
effective times and who drew what; the queens' call); the hand; feedback; the footer; and the overlays'
texts (help, quit question, scoreboard with the cards in front of each player, final ranking). What the
house rules add to them is in ``plugin_panels``.
"""

from __future__ import annotations

import ipaddress
import textwrap

from prompt_toolkit.formatted_text import StyleAndTextTuples

from kdm.cards import JOKER, RED_SUITS, pretty, suit_of
from kdm.engine import SeatView
from kdm.kilo.rules import LEFT, is_combo
from kdm.net.keys import fingerprint
from kdm.net.node import host_of
from kdm.tui.extension import Fragments as PartFragments
from kdm.tui.plugin_panels import (
    ALL_HINTS,
    footer_hints,
    hand_status,
    help_lines,
    legend,
    rules_lines,
    seat_marks,
    status_lines,
)
from kdm.tui.state import TableScreen
from kdm.tui.text import as_argument, flowed, packed

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
    record, view = screen.peer.record, screen.view()
    parts = [" kdm ", screen.say("table", name=record.name or "…")]
    if view is not None:
        rounds = view.options.get("rounds")
        if isinstance(rounds, int):
            parts.append(screen.say("round", round=view.round, rounds=rounds))
        else:
            parts.append(screen.say("round_open", round=view.round))
        kilo = screen.kilo(view)
        if kilo is not None:
            parts.append(screen.say("pile", cards=kilo.pile))
            if view.phase in ("passing", "window"):
                parts.append(screen.say("left" if kilo.direction == LEFT else "right"))
        for part in screen.parts:
            if part.header is not None:
                parts[1:] = part.header(screen, view, parts[1:])
    return [("class:header.title", parts[0]), ("", " · ".join(parts[1:]))]


def players_title(screen: TableScreen) -> str:
    record = screen.peer.record
    if not record.started:
        return screen.say("waiting_room")
    return screen.say("players")


def players_text(screen: TableScreen) -> Fragments:
    view, me = screen.view(), screen.peer.seat
    if view is None:
        return _waiting_room(screen)
    kilo = screen.kilo(view)
    slapped = set(kilo.slapped) if kilo is not None and kilo.window_open else set()
    lines: Fragments = [("class:dim", screen.say("columns") + "\n")]
    for seat in range(view.players):
        turn = view.turn == seat and view.phase == "passing"
        name = screen.player_name(seat) + (f" ({screen.say('you')})" if seat == me else "")
        style = "class:turn" if turn else "class:me" if seat == me else ""
        row = f"{'▸' if turn else ' '}{seat:>2} {name[:PLAYER_NAME_WIDTH]:<{PLAYER_NAME_WIDTH}} "
        row += f"{view.hand_sizes[seat]:>5} {view.scores[seat]:>6}"
        lines.append((style, row))
        marks = seat_marks(screen, view, seat)
        if seat in slapped or marks:
            lines.append(("", " "))  # the marks are narrow: one space for them all, so they fit
        if seat in slapped:
            lines.append(("class:slap", "✋"))
        if marks:
            lines.append(("class:mark", marks))
        if screen.is_away(seat):
            lines.append(("class:lost", " " + screen.say("away")))
        elif screen.is_lost(seat):
            lines.append(("class:lost", " " + screen.say("lost")))
        if seat < view.players - 1:
            lines.append(("", "\n"))
    return lines


def _waiting_room(screen: TableScreen) -> Fragments:
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


def _waiting_table(screen: TableScreen) -> Fragments:
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
    view = screen.view()
    lines: Fragments = []
    if view is None:
        return _waiting_table(screen)
    kilo = screen.kilo(view)
    lines += status_lines(screen, view, PANEL_TEXT_WIDTH)
    status = len(lines)
    flash = screen.flash
    if flash is not None and (screen.result is None or flash.seq > screen.result.seq):
        if flash.kind != "feint":  # a slap, or what a plugin flashes like one
            banner = screen.say(f"{flash.kind}_banner", name=screen.name(flash.seat, flash.seq))
            if flash.opened:
                banner += " " + screen.say(f"{flash.kind}_opens")
            lines.append(("class:slap", f" {banner} \n"))
        else:
            feinter = screen.name(flash.seat, flash.seq)
            lines.append(("class:feint", screen.say("feint_banner", name=feinter) + "\n"))
    if kilo is not None and kilo.checkpoint:  # the only moment a slap can be valid
        lines.append(
            ("class:call", "\n".join(textwrap.wrap(screen.say("checkpoint"), PANEL_TEXT_WIDTH)) + "\n")
        )
    if kilo is not None and kilo.window_open:
        names = ", ".join(screen.name(seat) for seat in kilo.slapped)
        slapped = screen.say("slapped_so_far", names=names)  # "" where a plugin's lines say it (spoons)
        if slapped:
            lines.append(("", slapped + "\n"))
    if screen.result is not None:
        lines += _result_lines(screen)
    elif screen.call and len(lines) == status:
        lines.append(("class:call", "\n".join(textwrap.wrap(screen.call, PANEL_TEXT_WIDTH)) + "\n"))
    # Last, so that a short panel (ten players) loses it first: the help says it too.
    lines += [("class:dim", line + "\n") for line in legend(screen, view, PANEL_TEXT_WIDTH)]
    return flowed(lines, PANEL_TEXT_WIDTH)


def _result_lines(screen: TableScreen) -> Fragments:
    result = screen.result
    assert result is not None

    def name(seat: int) -> str:
        return screen.name(seat, result.seq)

    verdict = "valid_slap" if result.valid else "false_slap"
    lines: Fragments = [("class:result bold", screen.say(verdict, name=name(result.first)) + "\n")]
    if result.reason and result.reason != "combo":
        why = screen.say(f"why_{result.reason}", name=name(result.first))
        lines.append(("class:result", "\n".join(textwrap.wrap(why, PANEL_TEXT_WIDTH)) + "\n"))
    if result.shown is not None:
        lines.append(
            ("class:result", screen.say("showed", name=name(result.first), cards=" ".join(result.shown)))
        )
        lines.append(("", "\n"))
    start = result.order[0][1] if result.order else 0.0
    entries = [f"{i}. {name(seat)} +{eff - start:.0f}ms" for i, (seat, eff) in enumerate(result.order, 1)]
    lines.append(("", "\n".join(packed([screen.say("order"), *entries], PANEL_TEXT_WIDTH)) + "\n"))
    lines.append(
        ("class:result", screen.say("draws", names=", ".join(name(s) for s in result.losers)) + "\n")
    )
    for seat, card, flush in result.draws:
        lines.append(("class:result", screen.say("drew", name=name(seat), card=pretty(card, screen.lang))))
        if flush:
            lines.append(("class:call", "  " + screen.say("flushed", name=name(seat))))
        lines.append(("", "\n"))
    ended = [r for r in screen.rounds if r.round == result.round]
    if ended:
        before = next((r.scores for r in screen.rounds if r.round == result.round - 1), None)
        gains = [
            f"{name(seat)} {screen.say('kilos', kilos=f'{kilos - (before[seat] if before else 0):+d}')}"
            for seat, kilos in enumerate(ended[0].scores)
            if kilos != (before[seat] if before else 0)
        ]
        lines.append(("class:round", screen.say("round_over", round=result.round)))
        lines.append(("", screen.say("round_gains", gains=", ".join(gains)) if gains else ""))
    return lines


def hand_text(screen: TableScreen) -> Fragments:
    view, me = screen.view(), screen.peer.seat
    if screen.over:
        return [("class:round", " " + screen.say("game_over"))]
    if view is None or me is None:
        started = screen.peer.record.started
        key = "watching" if started else "joining" if me is None else "waiting_for_players"
        return [("class:dim", " " + screen.say(key))]
    asked = hand_status(screen, view)
    status: tuple[str, str] = asked if asked is not None else _base_hand_status(screen, view, me)
    lines: Fragments = [("bold", f" {screen.say('hand')}  "), status, ("", "\n ")]
    plugin_marks = {
        token: mark
        for part in screen.parts
        if part.card_marks is not None
        for token, mark in part.card_marks(screen, view).items()
    }
    marks = " "
    for index, (token, face) in enumerate(view.hand):
        label = f"{index + 1} "
        face_style, face_text = card_fragment(face, screen.lang)
        card = f" {face_text} "
        style = f"class:card {face_style}".rstrip()
        if index == screen.selected:
            style += " class:chosen"
        lines += [("class:label", label), (style, card), ("", "  ")]
        if index == screen.selected:
            mark = "▲"
        elif token in plugin_marks:
            mark = plugin_marks[token]
        else:
            mark = screen.say("new_card") if token in screen.fresh else ""
        marks += " " * len(label) + f"{mark:^{len(card)}}"[: max(len(card), len(mark))] + "  "
    lines.append(("class:turn", "\n" + marks.rstrip()))
    return lines


def _base_hand_status(screen: TableScreen, view: SeatView, me: int) -> tuple[str, str]:
    """What the hand line asks of this seat now: slap while a window is open (or with a combo at a
    checkpoint), pass on one's turn (once a held checkpoint is over), wait while the table deals."""
    kilo = screen.kilo(view)
    if kilo is not None and kilo.window_open:
        if me in kilo.slapped:
            return ("class:dim", screen.say("you_slapped"))
        return ("class:slap", screen.say("slap_now"))
    if view.phase == "resting":
        return ("class:dim", screen.say("next_round_soon"))
    if view.phase != "passing":
        return ("", "")
    faces = [face for _token, face in view.hand]
    if (
        kilo is not None
        and kilo.checkpoint
        and me not in kilo.barred
        and None not in faces
        and is_combo(
            [face for face in faces if face is not None], bool(view.options.get("suit_combos", True))
        )
    ):
        return ("class:slap", screen.say("combo_slap_now"))
    if view.turn == me:
        if kilo is not None and kilo.holding:
            return ("class:dim", screen.say("holding"))
        return ("class:turn", screen.say("your_turn"))
    if view.turn is not None:
        return ("class:dim", screen.say("turn_of", name=screen.name(view.turn)))
    return ("", "")


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


def footer_text(screen: TableScreen) -> Fragments:
    if screen.chat_draft is not None:
        return chat_line(screen)
    if screen.over:
        return [("", " " + screen.say("footer_over"))]
    if not screen.peer.record.started:
        return [("", " " + screen.say("footer_waiting"))]
    view = screen.view()
    return [("", " " + "  ".join(footer_hints(screen, view, hints_now(screen, view))))]


#: The keys that always do something at the table.
ALWAYS_HINTS = ("hint_scores", "hint_help", "hint_quit")


def hints_now(screen: TableScreen, view: SeatView | None) -> list[str]:
    """The base game's keys that do something now, in the footer's order (RULES 1.2): slap now while a
    window is open and at a checkpoint; choose and pass on one's turn (not while a checkpoint holds);
    only the table's keys while it deals, judges, draws or rests."""
    me = screen.peer.seat
    kilo = screen.kilo(view) if view is not None else None
    if view is None or me is None or kilo is None:
        return list(ALL_HINTS)
    if kilo.window_open:
        return list(ALWAYS_HINTS) if me in kilo.slapped else ["hint_slap_now", "hint_feint", *ALWAYS_HINTS]
    if view.phase != "passing":
        return list(ALWAYS_HINTS)
    passing = [] if kilo.holding or view.turn not in (None, me) else ["hint_choose", "hint_pass"]
    slap = "hint_slap_now" if kilo.checkpoint and me not in kilo.barred else "hint_slap"
    if slap == "hint_slap_now":
        return [slap, *passing, "hint_feint", *ALWAYS_HINTS]
    return [*passing, slap, "hint_feint", *ALWAYS_HINTS]


# --- overlays ---------------------------------------------------------------------------------------


def help_text(screen: TableScreen) -> Fragments:
    """The keys, the house rules' keys, then the rules of the game and of each house rule at the table."""
    return [("", screen.say("help") + help_lines(screen)), *rules_lines(screen, RULES_WIDTH)]


def quit_text(screen: TableScreen) -> Fragments:
    if screen.watch_offer:
        return [("", screen.watch_offer + "\n"), ("bold", screen.say("watch_ask"))]
    return [("bold", screen.say("quit_ask"))]


def scores_text(screen: TableScreen) -> Fragments:
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
    lines.append(("bold", f"{screen.say('scores_total'):>7} " + "".join(f"{kilos:>8}" for kilos in totals)))
    if view is not None:
        lines += _in_front(screen, view)
    return lines


def _plugins_in_front(screen: TableScreen, view: SeatView, seat: int) -> PartFragments | None:
    """What a plugin puts in front of ``seat`` instead of their kilos (``ScreenPart.in_front``), if any."""
    for part in screen.parts:
        found = part.in_front(screen, view, seat) if part.in_front is not None else None
        if found is not None:
            return found
    return None


def _in_front(screen: TableScreen, view: SeatView) -> Fragments:
    """The cards in front of each player (their kilos), the latest when they are too many for a line."""
    kilo = screen.kilo(view)
    if kilo is None:
        return []
    lines: Fragments = [("class:dim", "\n\n" + screen.say("in_front"))]
    for seat in range(view.players):
        lines.append(("", f"\n{screen.player_name(seat)[:PLAYER_NAME_WIDTH]:<{PLAYER_NAME_WIDTH}}"))
        instead = _plugins_in_front(screen, view, seat)
        if instead is not None:  # a plugin's card lies there (the 7 in reserve)
            lines += instead
            continue
        cards: Fragments = []
        width = 0
        for face in reversed(kilo.kilos[seat]):
            style, text = card_fragment(face, screen.lang)
            if width + 1 + len(text) > IN_FRONT_WIDTH:
                cards[:0] = [("", " …")]
                break
            cards[:0] = [("", " "), (style, text)]
            width += 1 + len(text)
        lines += cards
    return lines


def ranking_text(screen: TableScreen) -> Fragments:
    view = screen.view()
    winners = screen.winners or []
    if view is None:
        return []
    ranked = sorted(range(view.players), key=lambda seat: view.scores[seat])
    lines: Fragments = []
    for seat in ranked:
        place = 1 + sum(1 for other in range(view.players) if view.scores[other] < view.scores[seat])
        name = screen.player_name(seat) + (f" ({screen.say('you')})" if seat == screen.peer.seat else "")
        row = f"{place:>2}. {name[:20]:<20} {screen.say('kilos', kilos=view.scores[seat]):>8}"
        if seat in winners:
            lines += [("class:winner", row + "  " + screen.say("winner")), ("", "\n")]
        else:
            lines += [("", row), ("", "\n")]
    lines.append(("class:dim", "\n" + screen.say("any_key")))
    return lines
