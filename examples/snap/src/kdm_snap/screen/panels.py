"""What each panel of Snap's table screen says: functions of its ``SnapPlay``, read at every redraw.

Header (table, card count, centre); the players (whose turn, each pile's size, who slapped, who is
out); the table (the centre's top cards, face up, the latest slap shown big, the latest window's
result); the player's own pile and what to do now; the footer; and the overlays' texts (help, scores,
final ranking). The panels every table has (the waiting room, the message line, the quit question) are
the table screen's own (``kdm.tui.panels``).
"""

from __future__ import annotations

from kdm.tui.panels import (
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
from kdm.tui.panels import scores_text as every_tables_scores
from kdm.tui.plugin_panels import fitted_hints, rules_lines
from kdm.tui.text import flowed, packed
from kdm_snap.screen.state import SnapPlay, snap_part

#: The footer's hints, in order; the optional ones go first when the footer is too narrow.
ALWAYS_HINTS = ("hint_scores", "hint_help", "hint_quit")
OPTIONAL_HINTS = ("hint_scores",)


def header_text(play: SnapPlay) -> Fragments:
    screen = play.screen
    parts = [" kdm ", screen.say("table", name=screen.peer.record.name or "…"), play.say("snap_title")]
    part = snap_part(screen.view())
    if part is not None:
        parts.append(play.say("snap_turns", turns=part.turns, most=part.max_turns))
        parts.append(play.say("snap_centre_count", cards=part.centre_size))
    return [("class:header.title", parts[0]), ("", " · ".join(parts[1:]))]


def players_title(play: SnapPlay) -> str:
    return play.screen.say("players" if play.screen.peer.record.started else "waiting_room")


def players_text(play: SnapPlay) -> Fragments:
    screen = play.screen
    view, me = screen.view(), screen.peer.seat
    part = snap_part(view)
    if view is None or part is None:
        return waiting_room_text(screen)
    lines: Fragments = [("class:dim", play.say("snap_columns") + "\n")]
    for seat in range(view.players):
        turn = view.turn == seat and view.phase in ("playing", "turning")
        name = screen.player_name(seat) + (f" ({screen.say('you')})" if seat == me else "")
        style = (
            "class:turn" if turn else "class:dim" if seat in part.out else "class:me" if seat == me else ""
        )
        name = f"{name[:PLAYER_NAME_WIDTH]:<{PLAYER_NAME_WIDTH}}"
        row = f"{'▸' if turn else ' '}{seat:>3}  {name} {part.piles[seat]:>4}"
        lines.append((style, row))
        if seat in part.slapped:
            lines.append(("class:slap", " ✋"))
        if seat in part.out:
            lines.append(("class:lost", " " + play.say("snap_out")))
        else:
            lines += absence(screen, seat)
        if seat < view.players - 1:
            lines.append(("", "\n"))
    return lines


def table_text(play: SnapPlay) -> Fragments:
    screen = play.screen
    view = screen.view()
    part = snap_part(view)
    if view is None or part is None:
        return waiting_table_text(screen)
    lines: Fragments = []
    if part.centre_size == 0:
        lines.append(("", play.say("snap_centre_empty") + "\n"))
    elif part.centre_size == 1:
        lines.append(("", play.say("snap_centre_one") + "\n"))
    else:
        lines.append(("", play.say("snap_centre", cards=part.centre_size) + "\n"))
    if part.centre:
        # The top card last and boldest: the two on the right are the ones that make a pair.
        cards: Fragments = [("", "\n  ")]
        for index, face in enumerate(part.centre):
            style, text = card_fragment(face, screen.lang)
            top = index == len(part.centre) - 1
            shown = f"class:card {style}".rstrip() if top else style or "class:dim"
            cards += [(shown, f" {text} "), ("", "  ")]
        lines += [*cards, ("", "\n\n")]
    elif part.centre_size:
        lines.append(("class:dim", play.say("snap_face_down") + "\n\n"))
    flash = play.flash
    if flash is not None and part.window_open:
        banner = play.say("snap_banner", name=screen.name(flash.seat, flash.seq))
        lines.append(("class:slap", f" {banner} \n"))
        names = ", ".join(screen.name(seat) for seat in part.slapped)
        lines.append(("", play.say("snap_slapped_so_far", names=names) + "\n"))
    elif play.result is not None:
        lines += result_lines(play)
    if view.turn is None and view.phase == "playing":
        lines.append(("class:call", play.say("snap_last_chance") + "\n"))
    return flowed(lines, PANEL_TEXT_WIDTH)


def result_lines(play: SnapPlay) -> Fragments:
    """The latest window's verdict and its order, fastest first, with each reaction time."""
    screen = play.screen
    result = play.result
    assert result is not None

    def name(seat: int) -> str:
        return screen.name(seat, result.seq)

    if result.pair:
        verdict = play.say("snap_pair_result", name=name(result.first), taken=result.taken)
    else:
        verdict = play.say("snap_false_result", names=", ".join(name(seat) for seat in result.paid) or "—")
    entries = [f"{i}. {name(seat)} {rt:.0f}ms" for i, (seat, rt) in enumerate(result.order, 1)]
    order = "\n".join(packed([play.say("snap_order"), *entries], PANEL_TEXT_WIDTH))
    return [("class:result bold", verdict + "\n"), ("class:result", order + "\n")]


def hand_text(play: SnapPlay) -> Fragments:
    screen = play.screen
    view, me = screen.view(), screen.peer.seat
    if screen.over:
        return [("class:round", " " + screen.say("game_over"))]
    part = snap_part(view)
    if view is None or me is None or part is None:
        started = screen.peer.record.started
        key = "watching" if started else "joining" if me is None else "waiting_for_players"
        return [("class:dim", " " + screen.say(key))]
    return [
        ("bold", f" {play.say('snap_pile')}  "),
        status(play, me),
        ("", "\n "),
        ("class:card" if part.piles[me] else "class:dim", " ▒▒ "),  # the back of the top card
        ("", " " + play.say(plural(play, part.piles[me], "snap_card", "snap_cards"), cards=part.piles[me])),
    ]


def status(play: SnapPlay, me: int) -> tuple[str, str]:
    """What the player may do now: turn a card on their turn, slap (or wait for the slap's result)."""
    view = play.screen.view()
    part = snap_part(view)
    assert view is not None and part is not None
    if me in part.out:
        return ("class:lost", play.say("snap_you_are_out"))
    if me in part.slapped and part.window_open:
        return ("class:dim", play.say("snap_you_slapped"))
    if view.phase == "playing" and view.turn == me:
        return ("class:turn", play.say("snap_your_turn"))
    if view.turn is not None:
        return ("class:dim", play.say("snap_turn_of", name=play.screen.name(view.turn)))
    return ("class:dim", play.say("snap_watch_pairs"))


def hints_now(play: SnapPlay) -> list[str]:
    """The keys that do something now: turn a card on one's turn, slap while a card is on top."""
    view, me = play.screen.view(), play.screen.peer.seat
    part = snap_part(view)
    if view is None or part is None or me is None or me in part.out:
        return list(ALWAYS_HINTS)
    hints = []
    if view.phase == "playing" and view.turn == me:
        hints.append("snap_hint_turn")
    if part.top_seq is not None and me not in part.slapped:
        hints.append("snap_hint_slap")
    return [*hints, *ALWAYS_HINTS]


def footer_text(play: SnapPlay) -> Fragments:
    screen = play.screen
    if screen.chat_draft is not None:
        return chat_line(screen)
    if screen.over:
        return [("", " " + screen.say("footer_over"))]
    if not screen.peer.record.started:
        return [("", " " + screen.say("footer_waiting"))]
    return [("", " " + "  ".join(fitted_hints(hints_now(play), OPTIONAL_HINTS, screen.say)))]


def help_text(play: SnapPlay) -> Fragments:
    """Snap's keys, every table's, then the rules of the game."""
    screen = play.screen
    return [("", play.say("snap_help") + screen.say("help_table") + "\n"), *rules_lines(screen, RULES_WIDTH)]


def scores_text(play: SnapPlay) -> Fragments:
    """Every table's scoreboard: the cards of each player once the game is over, and now."""
    return every_tables_scores(play.screen)


def plural(play: SnapPlay, count: int, one: str, many: str) -> str:
    """The word key for ``count`` cards: singular for 1 in English, for 0 and 1 in French."""
    return one if (count < 2 if play.screen.lang == "fr" else count == 1) else many


def ranking_text(play: SnapPlay) -> Fragments:
    """The final ranking: most cards first, the winners marked (a tie shares the win)."""
    screen = play.screen
    view = screen.view()
    if view is None:
        return []
    winners = screen.winners or []
    ranked = sorted(range(view.players), key=lambda seat: (seat not in winners, -view.scores[seat], seat))
    lines: Fragments = []
    for seat in ranked:
        name = screen.player_name(seat) + (f" ({screen.say('you')})" if seat == screen.peer.seat else "")
        cards = plural(play, view.scores[seat], "snap_ranking_card", "snap_ranking_cards")
        row = f"{name[:20]:<20} {play.say(cards, cards=view.scores[seat]):>10}"
        if seat in winners:
            lines += [("class:winner", row + "  " + screen.say("winner")), ("", "\n")]
        else:
            lines += [("", row), ("", "\n")]
    lines.append(("class:dim", "\n" + screen.say("any_key")))
    return lines
