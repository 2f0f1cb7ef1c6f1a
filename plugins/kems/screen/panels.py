"""What each panel of the Kem's table screen says: functions of ``KemsPlay``, read at every redraw.

Header (deal, talon, bin); the players (under the target) with their team, its points and their
marks (a call in the open window, ⊘ no more Contre this deal); the table (the four face-up cards to
mark, the hunt's state: the sweep question, the calls and whose counts, the team's sign, cards shown to
this seat alone, the last call's result); the gesture feed; the hand; the footer; and the overlays
(gesture menu, the Contre's opponent, the sign chooser, help, scores, final ranking). The message line,
the log and the quit question are the table screen's own (``panels``).
"""

from __future__ import annotations

import textwrap

from kdm.engine import SeatView
from kdm.plugins.kems.rules import CALLS, GESTURES, team_of, team_seats
from kdm.plugins.kems.screen.state import (
    GESTURE_KEYS,
    HAND_KEYS,
    MOST_SIGNS,
    TABLE_KEYS,
    KemsPlay,
    pretty_cards,
)
from kdm.plugins.kems.text import CALL_NAMES, RESULTS
from kdm.plugins.kems.view import KemsView
from kdm.tui.panels import (
    PANEL_TEXT_WIDTH,
    PLAYER_NAME_WIDTH,
    RULES_WIDTH,
    Fragments,
    absence,
    card_fragment,
    chat_line,
)
from kdm.tui.plugin_panels import fitted_hints, rules_lines

#: The gesture feed's rows (newest at the bottom).
FEED_ROWS = 6
#: The footer's hints left out first when it is too narrow for all (each is in the help).
OPTIONAL_HINTS = ("hint_sign", "hint_scores", "hint_mark", "hint_gesture")
#: Points of a call's result (RULES 3.5), for the line that reports it.
POINTS = {("kems", "confirmed"): 1, ("kems", "failed"): -1, ("double", "confirmed"): 2,
          ("double", "failed"): -2, ("contre", "confirmed"): 1, ("contre", "failed"): -1}  # fmt: skip
#: A call in the open window, on its caller's row.
CALL_MARKS = {"kems": "K!", "double": "DK!", "contre": "CK→{target}"}
BARRED_MARK = "⊘"
SIGN_MARK, PRESIGN_MARK = "★", "☆"


def header_text(play: KemsPlay) -> Fragments:
    screen, part = play.screen, play.part()
    parts = [" kdm ", play.say("table", name=screen.peer.record.name or "…"), play.say("game")]
    if part is not None:
        parts += [
            play.say("deal", deal=part.deal),
            play.say("talon", cards=part.talon),
            play.say("bin", cards=part.bin),
        ]
    return [("class:header.title", parts[0]), ("", " · ".join(parts[1:]))]


def players_title(play: KemsPlay) -> str:
    part = play.part()
    return play.say("teams", target=part.target if part is not None else "?")


def players_text(play: KemsPlay) -> Fragments:
    screen, view, part = play.screen, play.screen.view(), play.part()
    if view is None or part is None:
        return []
    me = view.seat
    calls = {seat: (call, target) for seat, call, target in part.calls}
    lines: Fragments = [("class:dim", play.say("columns") + "\n")]
    for seat in range(view.players):
        team = team_of(seat, view.players)
        name = screen.player_name(seat) + (f" ({play.say('you')})" if seat == me else "")
        row = f" {seat:>2} {name[:PLAYER_NAME_WIDTH]:<{PLAYER_NAME_WIDTH}} "
        row += f"{team:>5} {part.team_scores[team]:>6}"
        lines.append(("class:me" if team == part.team else "", row))
        if seat in calls:
            call, target = calls[seat]
            lines.append(("class:slap", " " + CALL_MARKS[call].format(target=target)))
        if seat in part.barred:
            lines.append(("class:mark", " " + BARRED_MARK))
        lines += absence(screen, seat)
        if seat < view.players - 1:
            lines.append(("", "\n"))
    return lines


def table_text(play: KemsPlay) -> Fragments:
    view, part = play.screen.view(), play.part()
    if view is None or part is None:
        return []
    _give, take = play.marked(view, part)
    lines = _cards_lines(list(zip(TABLE_KEYS, part.table, strict=False)), set(take), play.screen.lang)
    lines.append(("", "\n"))
    for style, text in [*_phase_lines(play, part), *_sign_lines(play, part), *_private_lines(play, part)]:
        lines.append((style, "\n".join(textwrap.wrap(text, PANEL_TEXT_WIDTH, subsequent_indent="  ")) + "\n"))
    last = _last_result(play, part)
    if last:
        lines.append(("class:result", "\n".join(textwrap.wrap(last, PANEL_TEXT_WIDTH))))
    return lines


def _cards_lines(cards: list[tuple[str, tuple[int, str | None]]], marked: set[int], lang: str) -> Fragments:
    """Cards under their keys, marked ones in reverse video with ▲ below."""
    lines: Fragments = [("", " ")]
    marks = " "
    for key, (token, face) in cards:
        face_style, face_text = card_fragment(face, lang)
        style = f"class:card {face_style}".rstrip() + (" class:chosen" if token in marked else "")
        card = f" {face_text} "
        lines += [("class:label", f"{key} "), (style, card), ("", "  ")]
        marks += "  " + (f"{'▲':^{len(card)}}" if token in marked else " " * len(card)) + "  "
    lines.append(("class:turn", "\n" + marks.rstrip()))
    return lines


def _phase_lines(play: KemsPlay, part: KemsView) -> list[tuple[str, str]]:
    """Where the deal is: dealing, the hunt, the sweep question, the calls and whose counts."""
    screen, view = play.screen, play.screen.view()
    assert view is not None
    phase, me, name = view.phase, view.seat, screen.name
    if phase in ("dealing", "checking", "reshuffling", "turning"):
        return [("class:dim", play.say(phase))]
    if phase == "signing":  # RULES 3.2: before the game, and never after
        return [("class:call", play.say("signing", agreed=len(part.agreed), teams=view.players // 2))]
    if phase == "hunt":
        lines = [("class:call", play.say("hunt"))]
        if part.sweepable:
            lines.append(("", play.say("sweepable")))
        return lines
    if phase == "sweep" and part.sweep_asker is not None:
        count = len(part.sweep_accepted)
        if part.sweep_asker == me:
            return [("class:call", play.say("sweep_you_asked", count=count))]
        if me in part.sweep_accepted:
            return [("class:call", play.say("sweep_waiting", count=count))]
        return [("class:turn", play.say("sweep_asked_you", name=name(part.sweep_asker)))]
    if phase == "refused" and part.refuser is not None:
        if part.refuser == me:
            return [("class:turn", play.say("refused_you"))]
        return [("class:call", play.say("refused_other", name=name(part.refuser)))]
    if phase == "calling":
        calls = ", ".join(f"{name(seat)} {play.call_name(call, target)}" for seat, call, target in part.calls)
        return [("class:slap", play.say("calls", calls=calls))]
    if phase in ("showing", "answering") and part.judged is not None:
        seat, call, target = part.judged
        lines = [
            ("class:result bold", play.say("counts", name=name(seat), call=play.call_name(call, target)))
        ]
        if phase == "answering":
            lines.append(("", play.say("answering", name=name(target))))
        elif part.to_show:
            lines.append(("", play.say("showing", name=name(part.to_show[0]))))
        return lines
    if phase == "over" and screen.winners:
        return [("class:round", play.say("winner_team", team=team_of(screen.winners[0], view.players)))]
    return []


def _sign_lines(play: KemsPlay, part: KemsView) -> list[tuple[str, str]]:
    """The team's secret sign, always on this seat's screen (never on anyone else's)."""
    view = play.screen.view()
    assert view is not None
    if part.signs:
        key = "your_signs" if len(part.signs) > 1 else "your_sign"
        lines = [("class:mark", play.say(key, signs=", ".join(map(play.gesture, part.signs))))]
        if part.presign is not None:
            lines.append(("class:mark", play.say("presign", gesture=play.gesture(part.presign))))
        return lines
    if part.signs_closed:  # none was agreed in time: none now (RULES 3.2)
        unset = play.say("sign_none")
    elif play.first_of_team(view):
        unset = play.say("sign_unset")
    else:
        unset = play.say("sign_waiting", name=play.screen.name(part.partner))
    return [("class:dim", play.say("your_sign", signs=unset))]


def _private_lines(play: KemsPlay, part: KemsView) -> list[tuple[str, str]]:
    """Cards shown to this seat alone, after its failed Contre (RULES 3.5): theirs to keep."""
    by_seat: dict[int, list[str]] = {}
    for seat, face in part.shown_to_me:
        by_seat.setdefault(seat, []).append(face)
    return [
        (
            "class:mark",
            play.say(
                "shown_to_you", name=play.screen.name(seat), cards=pretty_cards(faces, play.screen.lang)
            ),
        )
        for seat, faces in by_seat.items()
    ]


def _last_result(play: KemsPlay, part: KemsView) -> str:
    if not part.results:
        return ""
    caller, call, target, result, seq = part.results[-1]
    return play.say(
        "last_call",
        call=play.call_name(call, target),
        name=play.screen.name(caller, seq),
        result=RESULTS[result][play.screen.lang == "fr"],
        points=f"{POINTS.get((call, result), 0):+d}",
    )


def feed_text(play: KemsPlay) -> Fragments:
    """Everyone's gestures and words, the latest at the bottom; this team's signs starred (here only)."""
    view, part = play.screen.view(), play.part()
    if view is None or part is None:
        return []
    if not part.gestures and not play.said:
        return [("class:dim", play.say("no_gestures"))]
    lines: Fragments = []
    said: list[tuple[int, int, str | None, str | None]] = [
        (seq, seat, None, text) for seq, seat, text in play.said
    ]
    made: list[tuple[int, int, str | None, str | None]] = [
        (seq, seat, g, None) for seat, g, seq in part.gestures
    ]
    for seq, seat, gesture, words in sorted(made + said, key=lambda item: item[0])[-FEED_ROWS:]:
        if gesture is None:
            if lines:
                lines.append(("", "\n"))
            spoken = play.screen.say("said", name=play.screen.name(seat, seq), text=f"« {words} »")
            lines.append(("class:call", spoken))
            continue
        text = f"{play.screen.name(seat, seq)} {play.gesture(gesture)}"
        mine = team_of(seat, view.players) == part.team
        if mine and gesture in part.signs:
            style, text = "class:call", f"{text} {SIGN_MARK}"
        elif mine and gesture == part.presign:
            style, text = "class:call", f"{text} {PRESIGN_MARK}"
        else:
            style = "" if seq > part.deal_started else "class:dim"
        if lines:
            lines.append(("", "\n"))
        lines.append((style, text))
    return lines


def hand_text(play: KemsPlay) -> Fragments:
    screen, view, part = play.screen, play.screen.view(), play.part()
    if screen.over:
        return [("class:round", " " + play.say("game_over"))]
    if view is None or part is None:
        return []
    give, take = play.marked(view, part)
    faces, table = dict(view.hand), dict(part.table)
    if view.phase == "refused" and part.refuser == view.seat:
        status = ("class:turn", play.say("refused_you"))
    elif play.asked_to_sweep() and part.sweep_asker is not None:
        status = ("class:turn", play.say("sweep_asked_you", name=screen.name(part.sweep_asker)))
    elif give or take:
        ready = len(give) == len(take)
        key = "give_take_enter" if ready else "give_take"
        cards = {
            "give": pretty_cards((faces[t] for t in give), screen.lang),
            "take": pretty_cards((table[t] for t in take), screen.lang),
        }
        status = ("class:turn" if ready else "", play.say(key, **{k: v or "–" for k, v in cards.items()}))
    elif view.phase == "hunt":
        status = ("class:dim", play.say("mark_cards"))
    else:
        status = ("", "")
    lines: Fragments = [("bold", f" {play.say('hand')}  "), status, ("", "\n")]
    lines += _cards_lines(list(zip(HAND_KEYS, view.hand, strict=False)), set(give), play.screen.lang)
    return lines


def footer_text(play: KemsPlay) -> Fragments:
    screen = play.screen
    if screen.chat_draft is not None:
        return chat_line(screen)
    if screen.over:
        return [("", " " + play.say("footer_over"))]
    return [("", " " + "  ".join(footer_hints(play)))]


def footer_hints(play: KemsPlay) -> list[str]:
    """The keys that work now, as many as fit the footer."""
    view, part = play.screen.view(), play.part()
    if play.menu_open:
        return [play.say("hint_menu")]
    if play.signs_open:
        return [play.say("hint_signs")]
    if play.choosing_target and view is not None:
        opponents = play.opponents(view)
        return [play.say("hint_contre", keys=" ".join(str(seat) for seat in opponents))]  # partners are not
    names = now_hints(play, view, part)
    if view is not None and play.first_of_team(view):
        names.append("hint_sign")
    names += ["hint_scores", "hint_help", "hint_quit"]
    return fitted_hints(names, OPTIONAL_HINTS, play.say)


def now_hints(play: KemsPlay, view: SeatView | None, part: KemsView | None) -> list[str]:
    """The play keys that do something now: marks and Enter while this seat may exchange (the hunt; the
    refuser alone after a refused sweep; the accused of a failed Contre, choosing two cards), « Balayage
    ? » once it may be asked, the answer while it is open, gestures at any time, and the calls only in
    the hunt or while one races (RULES 3.4.3: no call from the question until the sweep is settled)."""
    phase = view.phase if view is not None else None
    me = play.screen.peer.seat
    refuser = part.refuser if part is not None else None
    names: list[str] = []
    if play.asked_to_sweep():
        names.append("hint_answer")
    if phase == "hunt" or (phase == "refused" and refuser == me) or play.accused():
        names += ["hint_mark", "hint_exchange"]
    if part is not None and part.sweepable and phase == "hunt":
        names.append("hint_sweep")
    names.append("hint_gesture")
    if phase in ("hunt", "calling"):
        names.append("hint_calls")
    return names


# --- overlays ---------------------------------------------------------------------------------------


def menu_text(play: KemsPlay) -> Fragments:
    """The gesture menu: the catalogue under a to l, this team's signs marked (on this screen only)."""
    part = play.part()
    if part is None:
        return []
    rows: list[Fragments] = []
    for key, gesture in zip(GESTURE_KEYS, GESTURES, strict=True):
        row: Fragments = [("class:label", f"{key}  "), ("", play.gesture(gesture))]
        if gesture in part.signs:
            row.append(("class:call", f"  {SIGN_MARK} {play.say('menu_sign')}"))
        elif gesture == part.presign:
            row.append(("class:call", f"  {PRESIGN_MARK} {play.say('menu_presign')}"))
        rows.append(row)
    return _joined(rows)


def contre_text(play: KemsPlay) -> Fragments:
    """The opponents a Contre may name, under their seat numbers."""
    view = play.screen.view()
    if view is None:
        return []
    return _joined(
        [[("class:label", f"{seat}  "), ("", play.screen.name(seat))] for seat in play.opponents(view)]
    )


def signs_text(play: KemsPlay) -> Fragments:
    """The sign chooser: the field being chosen (reverse video), then the catalogue, the draft marked."""
    part = play.part()
    if part is None:
        return []
    none = play.say("none")
    names = ", ".join(map(play.gesture, play.draft_signs)) or none
    if play.multi():
        field = play.say("signs_field_multi", most=MOST_SIGNS, signs=names)
    else:
        field = play.say("signs_field_one", signs=names)
    presign = play.gesture(play.draft_presign) if play.draft_presign else none
    presign_field = play.say("signs_field_presign", gesture=presign)
    chosen = play.sign_field
    rows: list[Fragments] = [
        [("", play.say("signs_intro", name=play.screen.name(part.partner)))],
        [],
        [("class:chosen" if chosen == "signs" else "", f"{SIGN_MARK} {field}")],
        [("class:chosen" if chosen == "presign" else "", f"{PRESIGN_MARK} {presign_field}")],
        [],
    ]
    for key, gesture in zip(GESTURE_KEYS, GESTURES, strict=True):
        mark = " "
        if gesture in play.draft_signs:
            mark = SIGN_MARK
        elif gesture == play.draft_presign:
            mark = PRESIGN_MARK
        rows.append([("class:label", f"{key}  "), ("class:call", mark), ("", " " + play.gesture(gesture))])
    return _joined(rows)


def _joined(rows: list[Fragments]) -> Fragments:
    lines: Fragments = []
    for index, row in enumerate(rows):
        if index:
            lines.append(("", "\n"))
        lines += row
    return lines


def help_text(play: KemsPlay) -> Fragments:
    """Kem's keys, then its rules (and any house rule's) as the plugins word them."""
    return [("", play.say("help")), *rules_lines(play.screen, RULES_WIDTH)]


def scores_text(play: KemsPlay) -> Fragments:
    """Each team's points, deal by deal, and how the calls went."""
    view, part = play.screen.view(), play.part()
    if view is None or part is None:
        return []
    lines: Fragments = []
    for team, points in enumerate(part.team_scores):
        names = " + ".join(play.screen.player_name(seat) for seat in team_seats(team, view.players))
        row = f"{play.say('scores_team', team=team, names=names):<48} {play.say('points', points=points):>8}"
        lines += [("class:me" if team == part.team else "", row), ("", "\n")]
    deals = play.screen.rounds  # every deal: a long game's window scrolls
    if deals:
        lines.append(("class:dim", "\n" + play.say("scores_deals") + "\n"))
        previous = (0,) * len(part.team_scores)
        for deal in deals:
            gains = "".join(
                f"{b - a:>+6}" if b != a else f"{'·':>6}" for a, b in zip(previous, deal.scores, strict=False)
            )
            lines.append(("", f"{play.say('deal', deal=deal.round):>10}{gains}\n"))
            previous = deal.scores
    lines.append(("", "\n"))
    for call in CALLS:
        confirmed, failed, void = part.stats[call]
        key = "scores_void" if call == "contre" else "scores_calls"
        text = play.say(key, call=CALL_NAMES[call], confirmed=confirmed, failed=failed, void=void)
        lines.append(("", text + ("\n" if call != CALLS[-1] else "")))
    return lines


def ranking_text(play: KemsPlay) -> Fragments:
    """The teams by points, the winners starred."""
    screen, view, part = play.screen, play.screen.view(), play.part()
    if view is None or part is None:
        return []
    winners = screen.winners or []
    ranked = sorted(range(len(part.team_scores)), key=lambda team: -part.team_scores[team])
    lines: Fragments = []
    for place, team in enumerate(ranked, 1):
        seats = team_seats(team, view.players)
        names = " + ".join(screen.player_name(seat) for seat in seats)
        row = f"{place:>2}. {play.say('ranking_row', team=team, names=names)[:40]:<40} "
        row += f"{play.say('points', points=part.team_scores[team]):>8}"
        if any(seat in winners for seat in seats):
            lines += [("class:winner", row + "  " + play.say("winner")), ("", "\n")]
        else:
            lines += [("class:me" if team == part.team else "", row), ("", "\n")]
    lines.append(("class:dim", "\n" + play.say("any_key")))
    return lines
