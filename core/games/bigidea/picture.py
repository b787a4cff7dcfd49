"""The table as a picture: the products on it as cards (owner, name, and the chits on each in
the investors' shapes and colours), each player's money and chits left, and the phase.

A pure function of the channel's view (:func:`draw`): the same view gives the same bytes. The
cards' geometry (:func:`card_box`) is public so that tests can look at a card.
"""

from __future__ import annotations

from core import picture as kit
from core import ui
from core.games.bigidea.view import BigIdeaView, ProductView
from core.text import plural

__all__ = ["CARDS_SHOWN", "card_box", "draw", "layout"]

_PHASES = {
    "pick": "Seed phase: everyone picks a product in secret",
    "venture": "Venture phase: everyone points in secret",
    "mezzanine": "Mezzanine phase: invest, withdraw or pass in turn",
    "over": "Game over",
}
_LEFT = 30
_CARD_BACK = (252, 252, 246)
_CARD_HEAD = (235, 235, 225)
_COLOURS = (_CARD_BACK, _CARD_HEAD)
_COLUMNS = 3
_CARD_W = 434
_CARD_H = 190
_GAP = 19
_PLAYER_ROW = 46
CARDS_SHOWN = 12
"""Products drawn at most (the oldest beyond them are counted)."""


def _cards_top(public: BigIdeaView) -> int:
    return 130 + _PLAYER_ROW * len(public.players) + 30


def card_box(public: BigIdeaView, index: int) -> tuple[int, int, int, int]:
    """The pixel box of the ``index``-th product drawn (newest first) on the picture."""
    row, col = divmod(index, _COLUMNS)
    x = _LEFT + col * (_CARD_W + _GAP)
    y = _cards_top(public) + row * (_CARD_H + _GAP)
    return x, y, x + _CARD_W, y + _CARD_H


def _shown(public: BigIdeaView) -> list[ProductView]:
    """The products drawn: the newest first."""
    return sorted(public.products, key=lambda p: -p.id)[:CARDS_SHOWN]


def _card(canvas: kit.Canvas, public: BigIdeaView, product: ProductView, index: int) -> None:
    names = [p.name for p in public.players]
    x0, y0, x1, y1 = card_box(public, index)
    canvas.box((x0, y0, x1, y1), fill=_CARD_BACK, outline=kit.INK, width=2)
    canvas.box((x0 + 1, y0 + 1, x1 - 1, y0 + 42), fill=_CARD_HEAD, outline=None)
    canvas.mark(product.owner, (x0 + 22, y0 + 21), 14)
    owner = f"{names[product.owner]}'s" + (" · new" if product.new else "")
    canvas.text((x0 + 44, y0 + 21), owner, size=20, anchor="lm", width=_CARD_W - 54)
    y = y0 + 52
    for line in kit.wrap(product.name, 26, _CARD_W - 24, 2):
        canvas.text((x0 + 12, y), line, size=26)
        y += 32
    cards = " + ".join(c.name for c in product.cards)
    for line in kit.wrap(cards, 18, _CARD_W - 24, 2):
        canvas.text((x0 + 12, y + 2), line, size=18, fill=kit.SOFT_INK)
        y += 22
    # The chits, in their investors' shapes, along the foot of the card.
    chits = [seat for seat, count in enumerate(product.chits) for _ in range(count)]
    label = plural(product.total_chits, "chit")
    canvas.text((x0 + 12, y1 - 24), label, size=20, anchor="lm")
    x = x0 + 110
    for seat in chits[:12]:
        canvas.mark(seat, (x, y1 - 24), 12)
        x += 30
    if len(chits) > 12:
        canvas.text((x, y1 - 24), f"+{len(chits) - 12}", size=20, anchor="lm")


def _alt(public: BigIdeaView) -> str:
    names = [p.name for p in public.players]
    people = "; ".join(
        f"{p.name} {p.money_text} with {plural(p.chits, 'chit')} left and "
        f"{plural(p.hand_size, 'card')}"
        for p in public.players
    )
    products = "; ".join(
        f"{names[p.owner]}'s {p.name} ({plural(p.total_chits, 'chit')})" for p in _shown(public)
    )
    head = public.outcome.summary.rstrip(".") if public.outcome else _PHASES[public.phase]
    return (
        f"The Big Idea, round {public.round} of {public.rounds}, {head}. {people}. "
        f"On the table: {products or 'no products yet'}."
    )


def layout(public: BigIdeaView) -> kit.Canvas:
    """The table of the channel's view ``public``, drawn."""
    shown = _shown(public)
    rows = (len(shown) + _COLUMNS - 1) // _COLUMNS
    height = _cards_top(public) + max(rows, 1) * (_CARD_H + _GAP) + 20
    canvas = kit.Canvas(kit.WIDTH, height)
    width = kit.WIDTH - 2 * _LEFT
    canvas.text((_LEFT, 24), f"The Big Idea · round {public.round} of {public.rounds}", size=36)
    head = public.outcome.summary if public.outcome else _PHASES[public.phase] + "."
    canvas.text((_LEFT, 72), head, size=22, width=width)
    y = 130
    for p in public.players:
        if public.turn == p.seat and public.outcome is None:
            canvas.box(
                (_LEFT - 10, y - 4, _LEFT + width, y + _PLAYER_ROW - 6),
                fill=kit.HIGHLIGHT,
                outline=None,
            )
        canvas.mark(p.seat, (_LEFT + 16, y + 18), 15)
        canvas.text((_LEFT + 44, y + 18), p.name, size=22, anchor="lm", width=330)
        canvas.text((_LEFT + 520, y + 18), p.money_text, size=24, anchor="rm")
        status = [f"{plural(p.chits, 'chit')} left", plural(p.hand_size, "card")]
        if p.seat == public.dealer:
            status.append("dealer")
        canvas.text(
            (_LEFT + 550, y + 18), " · ".join(status), size=20, anchor="lm", width=width - 560
        )
        y += _PLAYER_ROW
    if not shown:
        canvas.text((_LEFT, _cards_top(public) + 20), "No products on the table yet.", size=22)
    for index, product in enumerate(shown):
        _card(canvas, public, product, index)
    more = len(public.products) - len(shown)
    if more > 0:
        canvas.text(
            (kit.WIDTH - _LEFT, height - 10), f"and {more} older products", size=18, anchor="rb"
        )
    return canvas


def draw(public: BigIdeaView) -> ui.Picture:
    """The table of the channel's view ``public`` as a picture."""
    return kit.encode(layout(public).image, _alt(public), _COLOURS)
