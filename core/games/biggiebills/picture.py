"""The race as a picture: each team's money as a bar toward the target, its completed growth
stages 1-4, the Business Cycle and the Industry Rules card in force, out teams greyed.

A pure function of the channel's view (:func:`draw`): the same view gives the same bytes. The
bars' geometry (:func:`bar_y`, :data:`BAR_LEFT`, :data:`BAR_WIDTH`) is public so that tests can
measure a bar.
"""

from __future__ import annotations

from core import picture as kit
from core import ui
from core.games.biggiebills.text import join, money
from core.games.biggiebills.view import BiggieBillsView, TeamView
from core.text import plural

__all__ = ["BAR_HEIGHT", "BAR_LEFT", "BAR_WIDTH", "bar_y", "draw", "layout"]

BAR_LEFT = 330
"""Where every bar starts (no money)."""
BAR_WIDTH = 860
"""Pixels of a bar that has reached the target (a bar past it stops there, and says so)."""
BAR_HEIGHT = 40
_ROW = 116
_LEFT = 30


def _head(public: BiggieBillsView) -> list[tuple[str, int]]:
    """The lines above the bars, with their sizes."""
    names = [t.name for t in public.teams]
    lines = [(f"BiggieBills$$$ · Business Cycle {public.cycle}", 36)]
    grown = f" (payoffs {public.payoff_percent}%)" if public.payoff_percent != 100 else ""
    lines.append((f"Race to {money(public.target)}{grown}", 24))
    industry = public.industry
    lines.append(
        (f"Industry Rules: {industry.name}. {industry.text}", 20)
        if industry
        else ("Industry Rules: none in force.", 20)
    )
    if public.outcome is not None:
        lines.append((public.outcome.summary, 22))
    elif public.vote is not None:
        vote = public.vote
        lines.append(
            (
                f"Vote on a new target of {money(vote.target)}: agreed "
                f"{join([names[s] for s in vote.agreed])}.",
                22,
            )
        )
    elif public.phase == "block" and public.pending is not None:
        lines.append((f"{names[public.pending.challenger]} challenges: block or accept?", 22))
    elif public.phase == "returns" and public.returns:
        lines.append((f"{names[public.returns[0]]} returns extra cards.", 22))
    elif public.turn is not None:
        turn = public.turn_index + 1
        lines.append((f"Turn {turn} of {2 * len(public.order)}: {names[public.turn]} to play.", 22))
    return lines


def _wrapped(public: BiggieBillsView) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for text, size in _head(public):
        out += [(line, size) for line in kit.wrap(text, size, kit.WIDTH - 2 * _LEFT, 3)]
    return out


def bar_y(public: BiggieBillsView, row: int) -> int:
    """The top of the bar of the ``row``-th team (seat order) on the picture of ``public``."""
    return _bar_y(_top(_wrapped(public)), row)


def _bar_y(top: int, row: int) -> int:
    return top + row * _ROW + 12


def _top(head: list[tuple[str, int]]) -> int:
    """Where the bars begin below the ``head`` lines."""
    return 24 + sum(size + 10 for _text, size in head) + 20


def _team(canvas: kit.Canvas, public: BiggieBillsView, team: TeamView, y: int) -> None:
    out = not team.alive
    ink = kit.GREY if out else kit.INK
    if public.turn == team.seat and public.outcome is None:
        canvas.box((10, y - 10, kit.WIDTH - 10, y + _ROW - 16), fill=kit.HIGHLIGHT, outline=None)
    canvas.mark(team.seat, (_LEFT + 18, y + BAR_HEIGHT / 2), 17, out)
    canvas.text(
        (_LEFT + 46, y + BAR_HEIGHT / 2),
        team.name,
        size=24,
        fill=ink,
        anchor="lm",
        width=BAR_LEFT - _LEFT - 60,
    )
    # The track to the target, then the bar.
    canvas.box(
        (BAR_LEFT, y, BAR_LEFT + BAR_WIDTH, y + BAR_HEIGHT), fill=kit.FAINT, outline=ink, width=1
    )
    share = max(0.0, min(1.0, team.cash / public.target)) if public.target > 0 else 0.0
    length = round(BAR_WIDTH * share)
    if length > 0:
        colour = kit.GREY if out else kit.seat_colour(team.seat)
        canvas.box(
            (BAR_LEFT, y, BAR_LEFT + length, y + BAR_HEIGHT), fill=colour, outline=kit.INK, width=1
        )
    label = team.cash_text + (" (in debt)" if team.cash < 0 else "")
    canvas.text(
        (BAR_LEFT + BAR_WIDTH + 14, y + BAR_HEIGHT / 2),
        label,
        size=24,
        fill=ink,
        anchor="lm",
        width=kit.WIDTH - BAR_LEFT - BAR_WIDTH - 24,
    )
    # Under the bar: the completed stages, or why the team is out.
    below = y + BAR_HEIGHT + 10
    if out:
        canvas.text(
            (BAR_LEFT, below),
            f"OUT: {team.out or 'out of the game'}",
            size=20,
            fill=kit.GREY,
            width=BAR_WIDTH,
        )
        return
    x = BAR_LEFT
    for stage, count in enumerate(team.stages, start=1):
        fill = kit.seat_colour(team.seat) if count else kit.BACKGROUND
        canvas.box((x, below, x + 30, below + 30), fill=fill, outline=kit.INK, width=2)
        canvas.text((x + 38, below + 15), f"Stage {stage}: {count}", size=20, anchor="lm")
        x += 170
    canvas.text((x + 10, below + 15), f"bonus cards {team.bonus_cards}", size=20, anchor="lm")


def _alt(public: BiggieBillsView) -> str:
    teams = []
    for t in public.teams:
        if not t.alive:
            teams.append(f"{t.name} is out ({t.out or 'out'})")
        else:
            done = plural(sum(t.stages), "Growth card")
            teams.append(f"{t.name} {t.cash_text} with {done} completed")
    status = public.outcome.summary if public.outcome else ""
    rule = f" Industry Rules: {public.industry.name}." if public.industry else ""
    return (
        f"BiggieBills$$$ race to {money(public.target)} in Business Cycle {public.cycle}: "
        + "; ".join(teams)
        + f".{rule} {status}"
    ).strip()


def layout(public: BiggieBillsView) -> kit.Canvas:
    """The race of the channel's view ``public``, drawn."""
    names = [t.name for t in public.teams]
    actives = [
        f"{names[a.owner]}: {a.name} (stage {a.stage}, pays {money(a.payoff)})"
        + (f", challenged by {join([names[s] for s in a.challengers])}" if a.challengers else "")
        for a in public.active[:6]
    ]
    head = _wrapped(public)
    top = _top(head)
    height = top + _ROW * len(public.teams) + 40 + (30 + 28 * len(actives) if actives else 0)
    canvas = kit.Canvas(kit.WIDTH, height)
    y = 24
    for text, size in head:
        canvas.text((_LEFT, y), text, size=size)
        y += size + 10
    target_x = BAR_LEFT + BAR_WIDTH
    canvas.text((target_x, top - 6), f"target {money(public.target)}", size=18, anchor="rb")
    for row, team in enumerate(public.teams):
        _team(canvas, public, team, _bar_y(top, row))
    canvas.draw.line(
        (target_x, top, target_x, top + _ROW * len(public.teams)), fill=kit.INK, width=3
    )
    if actives:
        y = top + _ROW * len(public.teams) + 20
        more = len(public.active) - len(actives)
        title = "Growth cards in play" + (f" (and {more} more)" if more > 0 else "") + ":"
        canvas.text((_LEFT, y), title, size=20)
        for line in actives:
            y += 28
            canvas.text((_LEFT + 20, y), line, size=20, width=kit.WIDTH - 2 * _LEFT - 20)
    return canvas


def draw(public: BiggieBillsView) -> ui.Picture:
    """The race of the channel's view ``public`` as a picture."""
    return kit.encode(layout(public).image, _alt(public))
