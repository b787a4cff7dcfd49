"""What every game's pictures share: the palette, the fonts, seat marks, text that fits, the
encoding, and the end-of-game money chart.

A game draws its board (``core/games/<game>/picture.py``) as a pure function of its public
view: no clock, no I/O, the same view gives the same bytes. Pictures are sized for a phone
(:data:`WIDTH` pixels wide, no text under :data:`MIN_TEXT` pixels), and nothing is told by
colour alone: every seat has a colour from the Okabe-Ito palette (safe for the common kinds of
colour blindness) *and* a shape and its number, and every coloured area has a label.

The font is the one Pillow ships (``ImageFont.load_default(size=...)``, Pillow >= 10.1), so a
picture looks the same on every machine and needs no system font.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence
from functools import cache
from typing import Literal

from PIL import Image, ImageDraw, ImageFont

from core import ui

__all__ = [
    "BACKGROUND",
    "GREY",
    "HIGHLIGHT",
    "INK",
    "MIN_TEXT",
    "SEAT_COLOURS",
    "SEAT_SHAPES",
    "SOFT_INK",
    "WIDTH",
    "Canvas",
    "encode",
    "fit",
    "font",
    "mark",
    "money_chart",
    "seat_colour",
    "wrap",
]

WIDTH = 1400
"""Pixels across every picture: readable on a phone's screen (1,000-1,600)."""
MIN_TEXT = 18
"""The smallest text drawn, in pixels (a phone shows a 1,400-pixel picture at about a third)."""

BACKGROUND = (255, 255, 255)
INK = (20, 20, 20)
"""Text and outlines."""
GREY = (150, 150, 150)
"""What is out of the game."""
FAINT = (235, 235, 235)

SEAT_COLOURS: tuple[tuple[int, int, int], ...] = (
    (0, 114, 178),  # blue
    (230, 159, 0),  # orange
    (0, 158, 115),  # bluish green
    (204, 121, 167),  # reddish purple
    (213, 94, 0),  # vermilion
    (86, 180, 233),  # sky blue
    (240, 228, 66),  # yellow
    (90, 90, 90),  # dark grey
)
"""One colour per seat, the Okabe-Ito palette (Okabe & Ito, "Color Universal Design"), which
the common colour blindnesses still tell apart; a seat's shape and number say it too."""

Shape = Literal["circle", "square", "triangle", "diamond"]
SEAT_SHAPES: tuple[Shape, ...] = ("circle", "square", "triangle", "diamond")
"""A seat's shape (seat ``n`` has ``SEAT_SHAPES[n % 4]``): with its number, a second way than
colour to tell seats apart."""


def seat_colour(seat: int) -> tuple[int, int, int]:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


@cache
def font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's own font at ``size`` pixels (never under :data:`MIN_TEXT`)."""
    loaded = ImageFont.load_default(size=max(size, MIN_TEXT))
    assert isinstance(loaded, ImageFont.FreeTypeFont)  # Pillow is built with FreeType
    return loaded


def _on(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    """Ink that reads on ``colour``: black on light colours, white on dark ones."""
    r, g, b = colour
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 140 else BACKGROUND


class Canvas:
    """An image being drawn, with the few operations every picture needs."""

    def __init__(self, width: int, height: int, base: Image.Image | None = None) -> None:
        """A blank canvas, or a copy of ``base`` (a layer drawn once and kept)."""
        self.image = (
            base.copy() if base is not None else Image.new("RGB", (width, height), BACKGROUND)
        )
        self.draw = ImageDraw.Draw(self.image)

    def text(
        self,
        xy: tuple[float, float],
        text: str,
        size: int = MIN_TEXT,
        fill: tuple[int, int, int] = INK,
        width: float | None = None,
        anchor: str = "la",
    ) -> None:
        """``text`` at ``xy``, cut to ``width`` pixels with an ellipsis when given."""
        face = font(size)
        if width is not None:
            text = fit(text, face, width)
        self.draw.text(xy, text, font=face, fill=fill, anchor=anchor)

    def box(
        self,
        box: tuple[float, float, float, float],
        fill: tuple[int, int, int] | None = None,
        outline: tuple[int, int, int] | None = INK,
        width: int = 2,
    ) -> None:
        self.draw.rectangle(box, fill=fill, outline=outline, width=width)

    def mark(
        self, seat: int, centre: tuple[float, float], radius: float, grey: bool = False
    ) -> None:
        mark(self.draw, seat, centre, radius, grey)


def mark(
    draw: ImageDraw.ImageDraw,
    seat: int,
    centre: tuple[float, float],
    radius: float,
    grey: bool = False,
) -> None:
    """Seat ``seat``'s token: its shape in its colour, outlined, with its number (from 1)."""
    colour = GREY if grey else seat_colour(seat)
    x, y = centre
    r = radius
    shape = SEAT_SHAPES[seat % len(SEAT_SHAPES)]
    if shape == "circle":
        draw.ellipse((x - r, y - r, x + r, y + r), fill=colour, outline=INK, width=2)
    elif shape == "square":
        s = r * 0.9
        draw.rectangle((x - s, y - s, x + s, y + s), fill=colour, outline=INK, width=2)
    elif shape == "triangle":
        points = [(x, y - r * 1.1), (x + r * 1.1, y + r * 0.85), (x - r * 1.1, y + r * 0.85)]
        draw.polygon(points, fill=colour, outline=INK, width=2)
    else:
        points = [(x, y - r * 1.15), (x + r * 1.15, y), (x, y + r * 1.15), (x - r * 1.15, y)]
        draw.polygon(points, fill=colour, outline=INK, width=2)
    size = max(MIN_TEXT, round(r * 1.1))
    nudge = r * 0.2 if shape == "triangle" else 0.0
    draw.text((x, y + nudge), str(seat + 1), font=font(size), fill=_on(colour), anchor="mm")


def fit(text: str, face: ImageFont.FreeTypeFont, width: float) -> str:
    """``text`` cut to ``width`` pixels in ``face``, with an ellipsis when cut."""
    if face.getlength(text) <= width:
        return text
    while text and face.getlength(text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…"


def wrap(text: str, face: ImageFont.FreeTypeFont, width: float, lines: int) -> list[str]:
    """``text`` in at most ``lines`` lines of ``width`` pixels (the last one cut if need be)."""
    out: list[str] = []
    words = text.split()
    current = ""
    for i, word in enumerate(words):
        trial = f"{current} {word}".strip()
        if face.getlength(trial) <= width or not current:
            current = trial
            continue
        out.append(current)
        current = word
        if len(out) == lines - 1:
            current = " ".join(words[i:])
            break
    if current:
        out.append(current)
    return [fit(line, face, width) for line in out[:lines]]


Colour = tuple[int, int, int]
HIGHLIGHT: Colour = (255, 248, 225)
"""Behind the row of the seat on turn."""
SOFT_INK: Colour = (70, 70, 70)
"""Secondary text (a country's product, a product's cards)."""


@cache
def _palette(colours: tuple[Colour, ...]) -> Image.Image:
    """A fixed 256-colour palette: the picture's flat colours exactly, then a 6x6x6 colour
    cube for the edges of text and shapes. Fixed (not computed from each image), so that
    reducing a picture to it is quick and the same image always gives the same bytes."""
    named: list[Colour] = []
    for colour in (BACKGROUND, INK, GREY, FAINT, HIGHLIGHT, SOFT_INK, *SEAT_COLOURS, *colours):
        if colour not in named:
            named.append(colour)
    levels = (0, 51, 102, 153, 204, 255)
    cube = [(r, g, b) for r in levels for g in levels for b in levels]
    entries = (named + [c for c in cube if c not in named])[:256]
    palette = Image.new("P", (1, 1))
    palette.putpalette([channel for colour in entries for channel in colour])
    return palette


def encode(image: Image.Image, alt: str, colours: Sequence[Colour] = ()) -> ui.Picture:
    """``image`` as a PNG picture with its alt text. The image is reduced to a fixed palette
    that holds its flat ``colours`` (and the kit's) exactly, which keeps a board's bytes small
    and its encoding quick; the encoding is deterministic (no time, no metadata): the same
    image gives the same bytes."""
    buffer = io.BytesIO()
    reduced = image.quantize(palette=_palette(tuple(colours)), dither=Image.Dither.NONE)
    reduced.save(buffer, format="PNG", compress_level=1)
    return ui.Picture(
        data=buffer.getvalue(),
        format="png",
        width=image.width,
        height=image.height,
        alt=ui.fit_alt(alt),
    )


# --- the end-of-game chart ------------------------------------------------------------------


def money_chart(
    title: str,
    names: Sequence[str],
    series: Sequence[Sequence[int]],
    money: Callable[[int], str],
    out: Sequence[bool] = (),
) -> ui.Picture:
    """Every seat's money over the game as a line each (its colour, its shape at the points
    and its name at the end), ``series[seat][i]`` after the ``i``-th move; ``out``: seats out
    of the game, drawn grey."""
    width, height = WIDTH, 800
    left, right, top, bottom = 150, 300, 90, 80
    canvas = Canvas(width, height)
    canvas.text((width / 2, 24), title, size=32, anchor="mt", width=width - 40)
    steps = max((len(s) for s in series), default=0)
    values = [v for s in series for v in s] or [0]
    low, high = min(0, *values), max(1, *values)
    plot_w, plot_h = width - left - right, height - top - bottom

    def at(i: int, value: int) -> tuple[float, float]:
        x = left + (plot_w * i / max(1, steps - 1))
        y = top + plot_h * (1 - (value - low) / (high - low))
        return x, y

    canvas.box((left, top, left + plot_w, top + plot_h), outline=GREY, width=1)
    for k in range(5):  # money gridlines, labelled
        value = low + (high - low) * k / 4
        _x, y = at(0, round(value))
        canvas.draw.line((left, y, left + plot_w, y), fill=FAINT, width=1)
        canvas.text((left - 10, y), money(round(value)), size=MIN_TEXT, anchor="rm")
    canvas.text(
        (left + plot_w / 2, height - 40),
        "moves of the game, first to last",
        size=MIN_TEXT,
        anchor="mm",
    )
    ends: list[tuple[float, int]] = []
    for seat, points in enumerate(series):
        if not points:
            continue
        grey = seat < len(out) and out[seat]
        colour = GREY if grey else seat_colour(seat)
        xy = [at(i, v) for i, v in enumerate(points)]
        if len(xy) > 1:
            canvas.draw.line(xy, fill=colour, width=4, joint="curve")
        every = max(1, math.ceil(len(xy) / 12))
        for i in range(0, len(xy), every):
            canvas.mark(seat, xy[i], 9, grey)
        canvas.mark(seat, xy[-1], 13, grey)
        ends.append((xy[-1][1], seat))
    # Names at the right end, in the order of their lines, pushed apart so none overlap.
    ends.sort()
    placed: list[float] = []
    for y, seat in ends:
        y = max(y, placed[-1] + 26) if placed else y
        placed.append(y)
        label = f"{seat + 1} {names[seat]}: {money(series[seat][-1])}"
        canvas.text((left + plot_w + 24, y), label, size=MIN_TEXT, anchor="lm", width=right - 30)
    lines = [
        f"{names[s]} ended with {money(series[s][-1])}" for s in range(len(series)) if series[s]
    ]
    alt = f"{title}: every player's money over the game's {steps} moves. " + "; ".join(lines) + "."
    return encode(canvas.image, alt)
