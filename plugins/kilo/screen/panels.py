"""What each panel of the base game's table screen says: functions of its ``KiloPlay``, read at every redraw.

Header (table, round, pile, direction); the players (turn, cards, kilos, who slapped, who is lost); the
table (the last slap or feint, big; the window's order with effective times and who drew what; the
queens' call); the hand; the footer; and the overlays' texts (help, scoreboard with the cards in front of
each player, final ranking). What its variants add to them is woven in by ``kdm.tui.plugin_panels``;
the panels every table has (the waiting room, the message line, the quit question) are the table
screen's own (``kdm.tui.panels``).
"""

from __future__ import annotations

import textwrap

from kdm.cards import pretty
from kdm.engine import SeatView
from kdm.plugins.kilo.rules import LEFT, is_combo
from kdm.plugins.kilo.screen.state import KiloPlay, kilo_part
from kdm.tui.extension import Fragments as PartFragments
from kdm.tui.panels import (
    IN_FRONT_WIDTH,
    PANEL_TEXT_WIDTH,
    PLAYER_NAME_WIDTH,
    RULES_WIDTH,
    Fragments,
    absence,
    card_fragment,
    chat_line,
    waiting_room_text,
    waiting_table_text,
)
from kdm.tui.panels import (
    scores_text as every_tables_scores,
)
from kdm.tui.plugin_panels import (
    footer_hints,
    hand_status,
    help_lines,
    legend,
    rules_lines,
    seat_marks,
    status_lines,
)
from kdm.tui.text import flowed, packed

#: Every key hint of the base game's table, in the footer's order.
ALL_HINTS = ("hint_choose", "hint_pass", "hint_slap", "hint_feint", "hint_scores", "hint_help", "hint_quit")
#: The keys that always do something at the table.
ALWAYS_HINTS = ("hint_scores", "hint_help", "hint_quit")
#: The hints left out first when the footer is too narrow for all (each is in the help).
OPTIONAL_HINTS = ("hint_scores", "hint_feint", "hint_choose")


def header_text(play: KiloPlay) -> Fragments:
    screen = play.screen
    record, view = screen.peer.record, screen.view()
    parts = [" kdm ", screen.say("table", name=record.name or "…")]
    if view is not None:
        rounds = view.options.get("rounds")
        if isinstance(rounds, int):
            parts.append(screen.say("round", round=view.round, rounds=rounds))
        else:
            parts.append(screen.say("round_open", round=view.round))
        kilo = kilo_part(view)
        if kilo is not None:
            parts.append(screen.say("pile", cards=kilo.pile))
            if view.phase in ("passing", "window"):
                parts.append(screen.say("left" if kilo.direction == LEFT else "right"))
        for part in screen.parts:
            if part.header is not None:
                parts[1:] = part.header(play, view, parts[1:])
    return [("class:header.title", parts[0]), ("", " · ".join(parts[1:]))]


def players_text(play: KiloPlay) -> Fragments:
    screen = play.screen
    view, me = screen.view(), screen.peer.seat
    if view is None:
        return waiting_room_text(screen)
    kilo = kilo_part(view)
    slapped = set(kilo.slapped) if kilo is not None and kilo.window_open else set()
    lines: Fragments = [("class:dim", screen.say("columns") + "\n")]
    for seat in range(view.players):
        turn = view.turn == seat and view.phase == "passing"
        name = screen.player_name(seat) + (f" ({screen.say('you')})" if seat == me else "")
        style = "class:turn" if turn else "class:me" if seat == me else ""
        row = f"{'▸' if turn else ' '}{seat:>2} {name[:PLAYER_NAME_WIDTH]:<{PLAYER_NAME_WIDTH}} "
        row += f"{view.hand_sizes[seat]:>5} {view.scores[seat]:>6}"
        lines.append((style, row))
        marks = seat_marks(play, view, seat)
        if seat in slapped or marks:
            lines.append(("", " "))  # the marks are narrow: one space for them all, so they fit
        if seat in slapped:
            lines.append(("class:slap", "✋"))
        if marks:
            lines.append(("class:mark", marks))
        lines += absence(screen, seat)
        if seat < view.players - 1:
            lines.append(("", "\n"))
    return lines


def table_text(play: KiloPlay) -> Fragments:
    screen = play.screen
    view = screen.view()
    lines: Fragments = []
    if view is None:
        return waiting_table_text(screen)
    kilo = kilo_part(view)
    lines += status_lines(play, view, PANEL_TEXT_WIDTH)
    status = len(lines)
    flash = play.flash
    if flash is not None and (play.result is None or flash.seq > play.result.seq):
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
    if play.result is not None:
        lines += _result_lines(play)
    elif play.call and len(lines) == status:
        lines.append(("class:call", "\n".join(textwrap.wrap(play.call, PANEL_TEXT_WIDTH)) + "\n"))
    # Last, so that a short panel (ten players) loses it first: the help says it too.
    lines += [("class:dim", line + "\n") for line in legend(play, view, PANEL_TEXT_WIDTH)]
    return flowed(lines, PANEL_TEXT_WIDTH)


def _result_lines(play: KiloPlay) -> Fragments:
    screen = play.screen
    result = play.result
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


def hand_text(play: KiloPlay) -> Fragments:
    screen = play.screen
    view, me = screen.view(), screen.peer.seat
    if screen.over:
        return [("class:round", " " + screen.say("game_over"))]
    if view is None or me is None:
        started = screen.peer.record.started
        key = "watching" if started else "joining" if me is None else "waiting_for_players"
        return [("class:dim", " " + screen.say(key))]
    asked = hand_status(play, view)
    status: tuple[str, str] = asked if asked is not None else _base_hand_status(play, view, me)
    lines: Fragments = [("bold", f" {screen.say('hand')}  "), status, ("", "\n ")]
    plugin_marks = {
        token: mark
        for part in screen.parts
        if part.card_marks is not None
        for token, mark in part.card_marks(play, view).items()
    }
    marks = " "
    for index, (token, face) in enumerate(view.hand):
        label = f"{index + 1} "
        face_style, face_text = card_fragment(face, screen.lang)
        card = f" {face_text} "
        style = f"class:card {face_style}".rstrip()
        if index == play.selected:
            style += " class:chosen"
        lines += [("class:label", label), (style, card), ("", "  ")]
        if index == play.selected:
            mark = "▲"
        elif token in plugin_marks:
            mark = plugin_marks[token]
        else:
            mark = screen.say("new_card") if token in play.fresh else ""
        marks += " " * len(label) + f"{mark:^{len(card)}}"[: max(len(card), len(mark))] + "  "
    lines.append(("class:turn", "\n" + marks.rstrip()))
    return lines


def _base_hand_status(play: KiloPlay, view: SeatView, me: int) -> tuple[str, str]:
    """What the hand line asks of this seat now: slap while a window is open (or with a combo at a
    checkpoint), pass on one's turn (once a held checkpoint is over), wait while the table deals."""
    screen = play.screen
    kilo = kilo_part(view)
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


def footer_text(play: KiloPlay) -> Fragments:
    screen = play.screen
    if screen.chat_draft is not None:
        return chat_line(play.screen)
    if screen.over:
        return [("", " " + screen.say("footer_over"))]
    if not screen.peer.record.started:
        return [("", " " + screen.say("footer_waiting"))]
    view = screen.view()
    return [("", " " + "  ".join(footer_hints(play, view, hints_now(play, view), OPTIONAL_HINTS)))]


def hints_now(play: KiloPlay, view: SeatView | None) -> list[str]:
    """The base game's keys that do something now, in the footer's order (RULES 1.2): slap now while a
    window is open and at a checkpoint; choose and pass on one's turn (not while a checkpoint holds);
    only the table's keys while it deals, judges, draws or rests."""
    screen = play.screen
    me = screen.peer.seat
    kilo = kilo_part(view) if view is not None else None
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


def help_text(play: KiloPlay) -> Fragments:
    """The keys, the house rules' keys, then the rules of the game and of each house rule at the table."""
    screen = play.screen
    return [("", screen.say("help") + help_lines(play)), *rules_lines(play, RULES_WIDTH)]


def scores_text(play: KiloPlay) -> Fragments:
    """Every table's scoreboard (each round's gains, the totals), then the cards in front of each player."""
    view = play.view()
    return [*every_tables_scores(play.screen), *(_in_front(play, view) if view is not None else [])]


def _plugins_in_front(play: KiloPlay, view: SeatView, seat: int) -> PartFragments | None:
    """What a plugin puts in front of ``seat`` instead of their kilos (``ScreenPart.in_front``), if any."""
    screen = play.screen
    for part in screen.parts:
        found = part.in_front(play, view, seat) if part.in_front is not None else None
        if found is not None:
            return found
    return None


def _in_front(play: KiloPlay, view: SeatView) -> Fragments:
    """The cards in front of each player (their kilos), the latest when they are too many for a line."""
    screen = play.screen
    kilo = kilo_part(view)
    if kilo is None:
        return []
    lines: Fragments = [("class:dim", "\n\n" + screen.say("in_front"))]
    for seat in range(view.players):
        lines.append(("", f"\n{screen.player_name(seat)[:PLAYER_NAME_WIDTH]:<{PLAYER_NAME_WIDTH}}"))
        instead = _plugins_in_front(play, view, seat)
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


def ranking_text(play: KiloPlay) -> Fragments:
    screen = play.screen
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
