"""What each panel of the table screen says: functions of the ``TableScreen``, read at every redraw.

Header (table, round, pile, direction); the players (turn, cards, kilos, who slapped, who is lost) or,
before the game, the waiting room; the table (the last slap or feint, big; the window's order with
effective times and who drew what; the queens' call); the hand; feedback; the footer; and the overlays'
texts (help, quit question, scoreboard, final ranking).
"""

from __future__ import annotations

import textwrap

from prompt_toolkit.formatted_text import StyleAndTextTuples

from kdm.cards import RED_SUITS, pretty, suit_of
from kdm.kilo import LEFT
from kdm.tui.state import TableScreen

Fragments = StyleAndTextTuples
PLAYER_NAME_WIDTH = 14
#: The left column's width (players and table); the log has the rest.
LEFT_COLUMN = 37
#: The table panel's width for text (its column, less a margin).
PANEL_TEXT_WIDTH = LEFT_COLUMN - 1


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
        name = screen.name(seat) + (f" ({screen.say('you')})" if seat == me else "")
        style = "class:turn" if turn else "class:me" if seat == me else ""
        row = f"{'▸' if turn else ' '}{seat:>2} {name[:PLAYER_NAME_WIDTH]:<{PLAYER_NAME_WIDTH}} "
        row += f"{view.hand_sizes[seat]:>5} {view.scores[seat]:>6}"
        lines.append((style, row))
        if seat in slapped:
            lines.append(("class:slap", " ✋"))
        if screen.is_lost(seat):
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
            name = screen.name(seat) + (f" ({screen.say('you')})" if seat == me else "")
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
    if record.host:
        address = record.host.rsplit("~", 1)[0]
        lines.append(("class:call", "\n" + screen.say("join_with", address=address)))
    return lines


def table_text(screen: TableScreen) -> Fragments:
    view = screen.view()
    lines: Fragments = []
    if view is None:
        return _waiting_table(screen)
    kilo = screen.kilo(view)
    flash = screen.flash
    if flash is not None and (screen.result is None or flash.seq > screen.result.seq):
        if flash.kind == "slap":
            banner = screen.say("slap_banner", name=screen.name(flash.seat))
            if flash.opened:
                banner += " " + screen.say("slap_opens")
            lines.append(("class:slap", f" {banner} \n"))
        else:
            lines.append(("class:feint", screen.say("feint_banner", name=screen.name(flash.seat)) + "\n"))
    if kilo is not None and kilo.window_open:
        names = ", ".join(screen.name(seat) for seat in kilo.slapped)
        lines.append(("", screen.say("slapped_so_far", names=names) + "\n"))
    if screen.result is not None:
        lines += _result_lines(screen)
    elif screen.call and not lines:
        lines.append(("class:call", "\n".join(textwrap.wrap(screen.call, PANEL_TEXT_WIDTH)) + "\n"))
    return lines


def _result_lines(screen: TableScreen) -> Fragments:
    result = screen.result
    assert result is not None
    name = screen.name
    verdict = "valid_slap" if result.valid else "false_slap"
    lines: Fragments = [("class:result bold", screen.say(verdict, name=name(result.first)) + "\n")]
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
        lines.append(("class:result", screen.say("drew", name=name(seat), card=pretty(card))))
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
        lines.append(("", (": " + ", ".join(gains)) if gains else ""))
    return lines


def packed(words: list[str], width: int) -> list[str]:
    """``words`` on lines of at most ``width`` (a longer word alone on its line), never split."""
    lines: list[str] = []
    for word in words:
        if lines and len(lines[-1]) + 2 + len(word) <= width:
            lines[-1] += "  " + word
        else:
            lines.append(word)
    return lines


def hand_text(screen: TableScreen) -> Fragments:
    view, me = screen.view(), screen.peer.seat
    if screen.over:
        return [("class:round", " " + screen.say("game_over"))]
    if view is None or me is None:
        started = screen.peer.record.started
        key = "watching" if started else "joining" if me is None else "waiting_for_players"
        return [("class:dim", " " + screen.say(key))]
    if view.phase == "passing" and view.turn == me:
        status: tuple[str, str] = ("class:turn", screen.say("your_turn"))
    elif view.phase == "passing" and view.turn is not None:
        status = ("class:dim", screen.say("turn_of", name=screen.name(view.turn)))
    else:
        status = ("", "")
    lines: Fragments = [("bold", f" {screen.say('hand')}  "), status, ("", "\n ")]
    marks = " "
    for index, (token, face) in enumerate(view.hand):
        label = f"{index + 1} "
        card = f" {pretty(face) if face else '??'} "
        style = "class:card"
        if face is not None and suit_of(face) in RED_SUITS:
            style += " class:card.red"
        if index == screen.selected:
            style += " class:chosen"
        lines += [("class:label", label), (style, card), ("", "  ")]
        mark = "▲" if index == screen.selected else screen.say("new_card") if token in screen.fresh else ""
        marks += " " * len(label) + f"{mark:^{len(card)}}"[: max(len(card), len(mark))] + "  "
    lines.append(("class:turn", "\n" + marks.rstrip()))
    return lines


def message_text(screen: TableScreen) -> Fragments:
    return [("class:message", " " + screen.message)] if screen.message else []


def footer_text(screen: TableScreen) -> Fragments:
    if screen.over:
        key = "footer_over"
    elif not screen.peer.record.started:
        key = "footer_waiting"
    else:
        key = "footer"
    return [("", " " + screen.say(key))]


# --- overlays ---------------------------------------------------------------------------------------


def help_text(screen: TableScreen) -> Fragments:
    return [("", screen.say("help"))]


def quit_text(screen: TableScreen) -> Fragments:
    return [("bold", screen.say("quit_ask"))]


def scores_text(screen: TableScreen) -> Fragments:
    players = screen.peer.record.players
    head = f"{screen.say('scores_round'):>7} " + "".join(f"{screen.name(s)[:7]:>8}" for s in range(players))
    lines: Fragments = [("class:dim", head + "\n")]
    previous = (0,) * players
    for result in screen.rounds[-15:]:
        gained = "".join(
            f"{b - a:>+8}" if b != a else f"{'·':>8}" for a, b in zip(previous, result.scores, strict=True)
        )
        lines.append(("", f"{result.round:>7} {gained}\n"))
        previous = result.scores
    view = screen.view()
    totals = view.scores if view is not None else previous
    lines.append(("bold", f"{screen.say('scores_total'):>7} " + "".join(f"{kilos:>8}" for kilos in totals)))
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
        name = screen.name(seat) + (f" ({screen.say('you')})" if seat == screen.peer.seat else "")
        row = f"{place:>2}. {name[:20]:<20} {screen.say('kilos', kilos=view.scores[seat]):>8}"
        if seat in winners:
            lines += [("class:winner", row + "  " + screen.say("winner")), ("", "\n")]
        else:
            lines += [("", row), ("", "\n")]
    lines.append(("class:dim", "\n" + screen.say("any_key")))
    return lines
