"""The board as a picture: the square track of 40 spaces, countries coloured (and labelled) by
market, each owned space marked with its owner and what stands there, every player's token on
its space, and a cash table in the middle.

A pure function of the channel's view (:func:`draw`): the same view gives the same bytes. The
geometry (:func:`space_box`) is public so that tests can look where a token must be.
"""

from __future__ import annotations

from functools import cache

from PIL import Image

from core import picture as kit
from core import ui
from core.games.businessgo.board import board
from core.games.businessgo.text import join, money
from core.games.businessgo.ui import _PHASES
from core.games.businessgo.view import BusinessGoView, PlayerView
from core.text import plural

__all__ = ["CORNER", "MARKETS", "SIDE", "draw", "layout", "space_box"]

CORNER = 173
"""Pixels of a corner space's side."""
SIDE = 117
"""Pixels across a space on a side of the board (it is :data:`CORNER` deep)."""
_EDGE = kit.WIDTH
"""The board's side: the last row and column of corners take the one pixel 2 * CORNER + 9 *
SIDE (1,399) leaves."""

MARKETS: dict[str, tuple[str, tuple[int, int, int]]] = {
    "Americas": ("AMER", (252, 224, 178)),
    "Europe": ("EUR", (198, 226, 247)),
    "Asia-Pacific": ("ASIA", (200, 236, 214)),
    "Middle East and Africa": ("MEA", (240, 214, 230)),
}
"""Each market's label (printed on its countries, so colour is never the only sign) and tint."""
_SERVICE = ("SERV", (236, 232, 200))
_SPECIAL = kit.FAINT
_TAG_BACK = (250, 250, 250)
_COLOURS = (*(tint for _label, tint in MARKETS.values()), _SERVICE[1], _TAG_BACK)

_TAG_H = 30
"""Pixels of an owner's mark's row."""
_TAGS = {"licence": "L", "national": "N", "sold": "N+", "international": "I", "service": "S"}


def _edges(k: int) -> int:
    """The pixel where cell ``k`` (0-11) of a row or column starts."""
    if k == 0:
        return 0
    return CORNER + (k - 1) * SIDE if k <= 10 else _EDGE


def _cell(index: int) -> tuple[int, int]:
    """The (column, row) of space ``index``: Start bottom right, then clockwise."""
    if index <= 10:
        return 10 - index, 10
    if index <= 20:
        return 0, 20 - index
    if index <= 30:
        return index - 20, 0
    return 10, index - 30


def space_box(index: int) -> tuple[int, int, int, int]:
    """The pixel box ``(left, top, right, bottom)`` of space ``index`` on the picture."""
    col, row = _cell(index)
    return _edges(col), _edges(row), _edges(col + 1), _edges(row + 1)


def _tag(public: BusinessGoView, space: str) -> str | None:
    corp = public.corporations.get(space)
    if corp is not None:
        if corp.international:
            return _TAGS["international"]
        return _TAGS["sold"] if corp.chimney else _TAGS["national"]
    if space in public.licences:
        return _TAGS["licence"]
    if space in public.services:
        return _TAGS["service"]
    return None


def _static_space(canvas: kit.Canvas, index: int) -> tuple[int, bool]:
    """What is printed on space ``index``; returns where the owner's row goes, and whether it
    goes over the last printed line (a Service Industry whose name takes two lines on a side of
    the board: its price, which matters only while it is for sale, gives way to its owner's
    mark, so the mark stays inside its space)."""
    b = board()
    space = b.spaces[index]
    x0, y0, x1, y1 = space_box(index)
    w = x1 - x0
    label, tint = "", _SPECIAL
    detail = ""
    if space in b.countries:
        country = b.countries[space]
        label, tint = MARKETS[country.continent]
        detail = b.products[country.product].name
    elif space in b.services:
        label, tint = _SERVICE
        detail = money(b.services[space].price)
    canvas.box(space_box(index), fill=kit.BACKGROUND, outline=kit.INK, width=2)
    canvas.box((x0 + 1, y0 + 1, x1 - 1, y0 + 26), fill=tint, outline=None)
    canvas.draw.line((x0, y0 + 26, x1, y0 + 26), fill=kit.INK, width=1)
    canvas.text((x0 + 6, y0 + 4), str(index), size=18)
    if label:
        canvas.text((x1 - 6, y0 + 4), label, size=18, anchor="ra", width=w - 40)
    y = y0 + 32
    for line in kit.wrap(b.space_name(index), 19, w - 12, 2):
        canvas.text((x0 + 6, y), line, size=19)
        y += 22
    if detail:
        canvas.text((x0 + 6, y + 2), detail, size=18, fill=kit.SOFT_INK, width=w - 12)
        if y + 26 + _TAG_H > y1 - 2:
            return y, True
    return y + 26, False


@cache
def _base() -> tuple[Image.Image, tuple[tuple[int, bool], ...]]:
    """The board as printed (drawn once): every space and the legend; and each space's owner
    row."""
    canvas = kit.Canvas(_EDGE, _EDGE)
    rows = tuple(_static_space(canvas, index) for index in range(len(board().spaces)))
    _legend(canvas)
    return canvas.image, rows


def _space(canvas: kit.Canvas, public: BusinessGoView, index: int, here: list[int]) -> None:
    """What changes on space ``index``: its owner's mark and tag, the tokens on it."""
    space = board().spaces[index]
    x0, _y0, x1, y1 = space_box(index)
    y, over = _base()[1][index]
    owner = public.licences.get(space, public.services.get(space))
    if space in public.closed:
        canvas.text((x0 + 6, y + 4), "closed", size=18, fill=kit.GREY)
    elif owner is not None:
        tag = _tag(public, space) or ""
        if over:
            canvas.box((x0 + 2, y, x1 - 2, y + _TAG_H), fill=kit.BACKGROUND, outline=None)
        canvas.box((x0 + 4, y, x0 + 76, y + _TAG_H), fill=_TAG_BACK, outline=kit.INK, width=1)
        canvas.mark(owner, (x0 + 20, y + 15), 11)
        canvas.text((x0 + 36, y + 15), tag, size=20, anchor="lm")
    # Tokens: in a row of their own at the foot when the space has room, else beside the owner.
    tokens_y = y1 - 22 if y1 - (y + 30) >= 40 else y + 15
    right = x1 - 16
    for seat in reversed(here):
        canvas.mark(seat, (right, tokens_y), 12)
        right -= 27


def _legend(canvas: kit.Canvas) -> None:
    """The legend, at the foot of the middle."""
    left, width = CORNER + 24, 9 * SIDE - 48
    y = CORNER + 9 * SIDE - 150
    canvas.text((left, y), "Markets (printed on each country):", size=19)
    x = left
    for name, (_label, tint) in MARKETS.items():
        canvas.box((x, y + 30, x + 28, y + 56), fill=tint, outline=kit.INK, width=1)
        canvas.text((x + 36, y + 43), name, size=18, anchor="lm")
        x += 60 + round(kit.length(name, 18))
    canvas.text(
        (left, y + 72),
        "Owner's mark with L licence · N National · N+ National that has sold · "
        "I International · S Service Industry.",
        size=18,
        width=width,
    )
    canvas.text((left, y + 100), "Tokens: each player's shape and number.", size=18, width=width)


def _centre(canvas: kit.Canvas, public: BusinessGoView) -> None:
    names = [p.name for p in public.players]
    left, top = CORNER + 24, CORNER + 20
    width = 9 * SIDE - 48
    canvas.text((left, top), f"Busine$$ GO · round {public.round}", size=36, width=width)
    y = top + 52
    if public.outcome is not None:
        status = public.outcome.summary
    else:
        status = f"{names[public.turn]} to play: {_PHASES[public.phase]}."
    for line in kit.wrap(status, 22, width, 2):
        canvas.text((left, y), line, size=22)
        y += 28
    extra = [f"First to {money(public.goal)} wins."]
    if public.dice:
        extra.append(f"Last roll {public.dice[0]} + {public.dice[1]}.")
    canvas.text((left, y), " ".join(extra), size=20, width=width)
    y += 40
    for p in public.players:
        _cash_row(canvas, public, p, (left, y), width)
        y += 50
    y += 10
    for note in _open_deals(public, names):
        for line in kit.wrap(note, 20, width, 2):
            canvas.text((left, y), line, size=20)
            y += 26


def _cash_row(
    canvas: kit.Canvas,
    public: BusinessGoView,
    p: PlayerView,
    at: tuple[int, int],
    width: int,
) -> None:
    """One player's row of the cash table: mark, name, cash, where, what they own."""
    left, y = at
    grey = p.bankrupt
    ink = kit.GREY if grey else kit.INK
    if p.seat == public.turn and public.outcome is None:
        canvas.box((left - 8, y - 4, left + width, y + 46), fill=kit.HIGHLIGHT, outline=None)
    canvas.mark(p.seat, (left + 16, y + 20), 16, grey)
    canvas.text((left + 44, y + 20), p.name, size=22, fill=ink, anchor="lm", width=260)
    cash = "bankrupt" if p.bankrupt else p.cash_text
    canvas.text((left + 520, y + 20), cash, size=24, fill=ink, anchor="rm")
    owned = sum(1 for s in public.licences.values() if s == p.seat) + sum(
        1 for s in public.services.values() if s == p.seat
    )
    where = f"on {p.space}" + (f" · burnt out {p.burnout}" if p.burnout else "")
    where += f" · owns {owned}" if owned else ""
    canvas.text((left + 540, y + 20), where, size=19, fill=ink, anchor="lm", width=width - 540)


def _open_deals(public: BusinessGoView, names: list[str]) -> list[str]:
    """The sale and the auction under way, a sentence each."""
    b = board()
    notes: list[str] = []
    if public.sale is not None:
        sale = public.sale
        where_sold = b.countries[sale.country].name if sale.country else "the Boom"
        joined = join([names[s] for s in sale.joined]) or "nobody yet"
        notes.append(
            f"{names[sale.seller]} sells {b.products[sale.product].name} to {where_sold}; "
            f"joined: {joined}."
        )
    if public.auction is not None:
        answered = join([names[s] for s in public.auction.answered]) or "nobody yet"
        notes.append(f"{names[public.auction.seller]}'s auction: answered {answered}.")
    return notes


def _alt(public: BusinessGoView) -> str:
    people = []
    for p in public.players:
        if p.bankrupt:
            people.append(f"{p.name} is bankrupt")
            continue
        count = sum(1 for s in public.licences.values() if s == p.seat)
        owned = plural(count, "country", "countries")
        people.append(f"{p.name} on {p.space} with {p.cash_text} and {owned}")
    status = (
        public.outcome.summary if public.outcome else f"{public.players[public.turn].name} to play."
    )
    return f"The Busine$$ GO board in round {public.round}: " + "; ".join(people) + f". {status}"


def layout(public: BusinessGoView) -> kit.Canvas:
    """The board of the channel's view ``public``, drawn."""
    canvas = kit.Canvas(_EDGE, _EDGE, _base()[0])
    here: dict[int, list[int]] = {}
    for p in public.players:
        if not p.bankrupt:
            here.setdefault(p.position, []).append(p.seat)
    for index in range(len(board().spaces)):
        _space(canvas, public, index, here.get(index, []))
    _centre(canvas, public)
    return canvas


def draw(public: BusinessGoView) -> ui.Picture:
    """The board of the channel's view ``public`` as a picture."""
    return kit.encode(layout(public).image, _alt(public), _COLOURS)
