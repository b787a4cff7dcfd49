"""What every game's pictures share: the palette, the fonts, seat marks, text that fits, the
encoding, and the end-of-game money chart.

A game draws its board (``core/games/<game>/picture.py``) as a pure function of its public
view: no clock, no I/O, the same view gives the same bytes. Pictures are sized for a phone
(:data:`WIDTH` pixels wide, no text under :data:`MIN_TEXT` pixels), and nothing is told by
colour alone: every seat has a colour from the Okabe-Ito palette (safe for the common kinds of
colour blindness) *and* a shape and its number, and every coloured area has a label.

Text is drawn as typed, in any script: the fonts are Noto's (the ``manimgx-fonts`` and
``manimgx-fonts-cjk`` packages, installed with the project, carry them unchanged under the SIL
Open Font License): Noto Sans for Latin, Greek and Cyrillic, then Noto Sans for each other
script (Arabic, Hebrew, Devanagari and the other Indic scripts, Thai...), Noto Emoji, Noto Sans
Symbols and Noto Sans CJK. Pillow draws with one font at a time, so a text is cut into runs,
each in the first font that has its characters (:func:`runs`, which reads the fonts' character
maps with fontTools); spaces and punctuation stay in the run they are in, and combining marks,
joiners and variation selectors always do. Where Pillow has raqm (FriBiDi on the machine:
``libfribidi0``, which the set-up and the Docker image install), each run is shaped by
HarfBuzz, so Arabic letters join and read right to left and Devanagari's conjuncts form;
without it Pillow's basic layout draws every glyph, unjoined.

Everything the kit draws or describes is :mod:`core.text` markup (names arrive escaped) and is
shown as plain text: a player called ``**bold**`` is drawn and described as ``**bold**``.
Fitting text to a width is a binary search over its length, so a board's drawing time does not
grow with the square of what players typed.
"""

from __future__ import annotations

import io
import math
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Literal

from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw, ImageFont

from core import text as markup
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
    "Run",
    "chart_canvas",
    "encode",
    "face",
    "fit",
    "length",
    "mark",
    "money_chart",
    "nice_ticks",
    "runs",
    "seat_colour",
    "warm",
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


# --- fonts and text --------------------------------------------------------------------------

_SCRIPTS = (
    "Arabic",
    "Hebrew",
    "Devanagari",
    "Bengali",
    "Gurmukhi",
    "Gujarati",
    "Oriya",
    "Tamil",
    "Telugu",
    "Kannada",
    "Malayalam",
    "Sinhala",
    "Thai",
    "Lao",
    "Myanmar",
    "Khmer",
    "Georgian",
    "Armenian",
    "Ethiopic",
)
FAMILIES: tuple[tuple[str, str], ...] = (
    ("manimgx_fonts", "NotoSans[wght].ttf"),
    *(("manimgx_fonts", f"NotoSans{script}[wght].ttf") for script in _SCRIPTS),
    ("manimgx_fonts", "NotoEmoji[wght].ttf"),
    ("manimgx_fonts", "NotoSansSymbols[wght].ttf"),
    ("manimgx_fonts_cjk", "NotoSansCJK-VF.otf.ttc"),
)
"""The fonts, in the order a character looks for one that has it: (package, file)."""
_CJK = len(FAMILIES) - 1
_CJK_FACES = {"ja": 0, "ko": 1, "zh": 2}
"""Noto Sans CJK's faces in its collection: Japanese, Korean, Simplified Chinese (Han
characters are drawn in the forms of the language the text's kana or hangul say, else
Chinese)."""
_REGULAR = 400


def _path(family: int) -> str:
    package, name = FAMILIES[family]
    return str(resources.files(package).joinpath(name))


@cache
def _cmap(family: int) -> frozenset[int]:
    """The characters font ``family`` has (its CJK faces share one set)."""
    number = _CJK_FACES["zh"] if family == _CJK else 0
    with TTFont(_path(family), fontNumber=number, lazy=True) as font:
        return frozenset(font.getBestCmap())


@cache
def _face(family: int, size: int, cjk: str = "zh") -> ImageFont.FreeTypeFont:
    index = _CJK_FACES[cjk] if family == _CJK else 0
    loaded = ImageFont.truetype(_path(family), size, index=index)
    loaded.set_variation_by_axes([_REGULAR])  # every Noto face here varies in weight
    return loaded


def warm() -> None:
    """Read every font's character map now (Noto Sans CJK's takes about half a second), so
    that the first name in a script of its own does not wait for it: for a process about to
    draw pictures."""
    for family in range(len(FAMILIES)):
        _cmap(family)


def face(size: int) -> ImageFont.FreeTypeFont:
    """The main font (Noto Sans) at ``size`` pixels (never under :data:`MIN_TEXT`)."""
    return _face(0, max(size, MIN_TEXT))


@lru_cache(maxsize=65536)
def _family_of(char: str) -> int:
    """The first font that has ``char`` (the main one when none has: it draws its box)."""
    code = ord(char)
    for family in range(len(FAMILIES)):
        if code in _cmap(family):
            return family
    return 0


def _attached(char: str) -> bool:
    """A character that belongs to the one before it: a combining mark, a joiner, a variation
    selector, an emoji's skin tone or keycap."""
    return unicodedata.category(char) in ("Mn", "Me", "Cf") or 0x1F3FB <= ord(char) <= 0x1F3FF


@dataclass(frozen=True)
class Run:
    """Part of a text drawn in one font."""

    text: str
    face: ImageFont.FreeTypeFont


def runs(text: str, size: int) -> tuple[Run, ...]:
    """``text`` (plain) cut into runs, each in the first font that has its characters; a space
    or punctuation stays in the run it is in when that font has it."""
    return _runs(text, max(size, MIN_TEXT))


@lru_cache(maxsize=16384)
def _runs(text: str, size: int) -> tuple[Run, ...]:
    main = _cmap(0)
    if all(ord(char) in main for char in text):
        return (Run(text, _face(0, size)),)
    cjk = _cjk_language(text)
    out: list[Run] = []
    for family, chars in _families(text):
        tail = _main_tail(family, chars)
        if tail < len(chars):
            out.append(Run("".join(chars[:tail]), _face(family, size, cjk)))
            out.append(Run("".join(chars[tail:]), _face(0, size)))
        else:
            out.append(Run("".join(chars), _face(family, size, cjk)))
    merged: list[Run] = []
    for run in out:
        if merged and merged[-1].face is run.face:
            merged[-1] = Run(merged[-1].text + run.text, run.face)
        else:
            merged.append(run)
    return tuple(merged)


def _cjk_language(text: str) -> str:
    """Which CJK font's shapes the text wants: Japanese with kana, Korean with hangul."""
    if any(0x3040 <= ord(c) <= 0x30FF for c in text):
        return "ja"
    if any(0xAC00 <= ord(c) <= 0xD7AF or 0x1100 <= ord(c) <= 0x11FF for c in text):
        return "ko"
    return "zh"


def _families(text: str) -> list[tuple[int, list[str]]]:
    """``text`` cut into parts, each in the first font family that has its characters; a
    space, punctuation or a combining mark stays in the part it is in when that font has it."""
    parts: list[tuple[int, list[str]]] = []
    for char in text:
        if parts and _joins(parts, char):
            continue
        family = _family_of(char)
        if parts and parts[-1][0] == family:
            parts[-1][1].append(char)
        else:
            parts.append((family, [char]))
    return parts


def _joins(parts: list[tuple[int, list[str]]], char: str) -> bool:
    """Whether ``char`` joins the last part (a mark, or a space or punctuation its font has);
    a mark that font lacks takes the character it belongs to into the font that has it."""
    current, chars = parts[-1]
    covered = ord(char) in _cmap(current)
    if _attached(char) and not covered and _family_of(char) != current:
        # A mark the run's font lacks (a keycap's frame): take the character it belongs
        # to into the font that has the mark.
        family = _family_of(char)
        if chars and ord(chars[-1]) in _cmap(family):
            base = chars.pop()
            if not chars:
                parts.pop()
            parts.append((family, [base, char]))
            return True
    if _attached(char) or (covered and unicodedata.category(char)[0] in "ZP"):
        chars.append(char)
        return True
    return False


def _main_tail(family: int, chars: list[str]) -> int:
    """Where the spaces and punctuation at the end of a part in another script begin, when
    they go back to the main font (len(chars): none): "محمد: $5" keeps its colon after the
    name, not inside the right-to-left run."""
    tail = len(chars)
    while family != 0 and tail > 1 and unicodedata.category(chars[tail - 1])[0] in "ZP":
        tail -= 1
    if tail < len(chars) and all(ord(c) in _cmap(0) for c in chars[tail:]):
        return tail
    return len(chars)


@lru_cache(maxsize=65536)
def _run_length(face: ImageFont.FreeTypeFont, text: str) -> float:
    """Pixels across one run: measured once (shaping some scripts, Devanagari's, costs a few
    milliseconds a call whatever the text's length, and names recur on every board)."""
    return face.getlength(text)


@lru_cache(maxsize=2048)
def _glyphs(face: ImageFont.FreeTypeFont, text: str) -> tuple[Image.Image | None, int, int]:
    """One run drawn once, as a mask, with where its top left lies from its start on the
    baseline: boards redraw the same names and labels every time, and laying a run out (most
    of all shaping Devanagari or Arabic) costs more than pasting it."""
    left, top, right, bottom = (math.floor(edge) for edge in face.getbbox(text, anchor="ls"))
    if right <= left or bottom <= top:
        return None, 0, 0
    mask = Image.new("L", (right - left, bottom - top), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=face, fill=255, anchor="ls")
    return mask, left, top


def _length(text: str, size: int) -> float:
    return sum(_run_length(run.face, run.text) for run in runs(text, size))


def length(text: str, size: int) -> float:
    """Pixels across ``text`` (markup, shown plain) at ``size``."""
    return _length(markup.plain(text), size)


def _cut(text: str, end: int) -> str:
    """``text[:end]``, backed off so that no character is parted from its marks."""
    while 0 < end < len(text) and (_attached(text[end]) or text[end - 1] == "\u200d"):
        end -= 1
    return text[:end]


_PROBE = 32
"""Characters of the first head :func:`_fit` measures."""


@lru_cache(maxsize=8192)
def _fit(text: str, size: int, width: float) -> str:
    """Plain ``text`` cut to ``width`` pixels with an ellipsis when cut. Heads twice as long
    each time are measured until one does not fit, then a binary search between none and that
    one finds the longest head that fits: measuring takes time logarithmic in what fits,
    whatever the text's length (a 1,000-character name costs what a 60-character one does)."""
    head = _PROBE
    while head < len(text) and _length(text[:head], size) <= width:
        head *= 2
    if head >= len(text) and _length(text, size) <= width:
        return text
    low, high = 0, min(head, len(text))  # text[:high] + "…" does not fit
    while high - low > 1:
        middle = (low + high) // 2
        if _length(_cut(text, middle).rstrip() + markup.ELLIPSIS, size) <= width:
            low = middle
        else:
            high = middle
    return _cut(text, low).rstrip() + markup.ELLIPSIS


def fit(text: str, size: int, width: float) -> str:
    """``text`` (markup) cut to ``width`` pixels at ``size``, with an ellipsis when cut; markup
    again, for :meth:`Canvas.text`."""
    return markup.escape(_fit(markup.plain(text), size, width))


@lru_cache(maxsize=4096)
def _wrap(text: str, size: int, width: float, lines: int) -> tuple[str, ...]:
    """Plain ``text`` in lines: each word measured once (a line is as wide as its words and
    the spaces between them), only as far as the lines reach; the last line fitted."""
    out: list[str] = []
    words = text.split()
    space = _length(" ", size)
    current: list[str] = []
    across = 0.0
    for i, word in enumerate(words):
        wide = _length(word, size)
        if not current or across + space + wide <= width:
            across += (space if current else 0.0) + wide
            current.append(word)
            continue
        out.append(" ".join(current))
        current, across = [word], wide
        if len(out) == lines - 1:
            current = words[i:]
            break
    if current:
        out.append(" ".join(current))
    return tuple(_fit(line, size, width) for line in out[:lines])


def wrap(text: str, size: int, width: float, lines: int) -> list[str]:
    """``text`` (markup) in at most ``lines`` lines of ``width`` pixels at ``size`` (the last
    one cut if need be), each markup again, for :meth:`Canvas.text`."""
    return [markup.escape(line) for line in _wrap(markup.plain(text), size, width, lines)]


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
        self.drawn: list[tuple[str, tuple[Run, ...]]] = []
        """Every text drawn, as shown, with its runs (what tests read to check the glyphs)."""

    def text(
        self,
        xy: tuple[float, float],
        text: str,
        size: int = MIN_TEXT,
        fill: tuple[int, int, int] = INK,
        width: float | None = None,
        anchor: str = "la",
    ) -> None:
        """``text`` (markup, drawn plain) at ``xy``, cut to ``width`` pixels with an ellipsis
        when given; ``anchor`` as Pillow's (horizontal ``l``/``m``/``r``, vertical ``a``,
        ``m``, ``t``, ``s``, ``b``, ``d``), against the main font's ascender and descender
        whatever fonts the text's runs take."""
        size = max(size, MIN_TEXT)
        shown = markup.plain(text)
        if width is not None:
            shown = _fit(shown, size, width)
        parts = runs(shown, size)
        self.drawn.append((shown, parts))
        ascent, descent = face(size).getmetrics()
        x, y = xy
        across = sum(_run_length(run.face, run.text) for run in parts)
        x -= {"l": 0.0, "m": across / 2, "r": across}[anchor[0]]
        y += {"a": ascent, "t": ascent, "m": (ascent - descent) / 2, "s": 0, "b": -descent}.get(
            anchor[1], -descent
        )
        for run in parts:
            mask, left, top = _glyphs(run.face, run.text)
            if mask is not None:
                self.image.paste(fill, (round(x) + left, round(y) + top), mask)
            x += _run_length(run.face, run.text)

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
    draw.text((x, y + nudge), str(seat + 1), font=face(size), fill=_on(colour), anchor="mm")


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
        alt=ui.fit_alt(markup.plain(alt)),
    )


# --- the end-of-game chart ------------------------------------------------------------------


def nice_ticks(low: int, high: int, most: int = 8) -> list[int]:
    """Gridline values from at or below ``low`` to at or above ``high`` on round numbers (a
    step of 1, 2, 2.5 or 5 times a power of ten, in whole units), at most ``most`` of them."""
    steps = [1, 2, 5] + [
        base * 10**power // 10 for power in range(1, 20) for base in (10, 20, 25, 50)
    ]
    step = next(
        (s for s in steps if math.ceil(high / s) - math.floor(low / s) + 1 <= most), steps[-1]
    )
    return list(range(math.floor(low / step) * step, math.ceil(high / step) * step + 1, step))


def money_chart(
    title: str,
    names: Sequence[str],
    series: Sequence[Sequence[int]],
    money: Callable[[int], str],
    out: Sequence[bool] = (),
    rounds: Sequence[int] = (),
    round_word: str = "round",
) -> ui.Picture:
    """:func:`chart_canvas` as a picture, with its alt text."""
    canvas = chart_canvas(title, names, series, money, out, rounds, round_word)
    starts = sum(1 for i in range(len(rounds)) if i == 0 or rounds[i] != rounds[i - 1])
    steps = max((len(s) for s in series), default=0)
    played = markup.plural(starts, round_word) if starts else markup.plural(steps, "move")
    lines = [
        f"{names[s]} ended with {money(series[s][-1])}" for s in range(len(series)) if series[s]
    ]
    alt = f"{title}: every player's money over the game's {played}. " + "; ".join(lines) + "."
    return encode(canvas.image, alt)


def chart_canvas(
    title: str,
    names: Sequence[str],
    series: Sequence[Sequence[int]],
    money: Callable[[int], str],
    out: Sequence[bool] = (),
    rounds: Sequence[int] = (),
    round_word: str = "round",
) -> Canvas:
    """Every seat's money over the game as a line each (its colour, its shape at the points
    and its name at the end), ``series[seat][i]`` after the ``i``-th move; ``out``: seats out
    of the game, drawn grey; ``rounds[i]``: the round (``round_word``) the game was in after
    the ``i``-th move, marked on the x axis where it begins. The money's gridlines fall on
    round amounts. ``names`` are markup, drawn and described as typed."""
    width, height = WIDTH, 800
    canvas = Canvas(width, height)
    canvas.text((width / 2, 24), title, size=32, anchor="mt", width=width - 40)
    values = [v for s in series for v in s] or [0]
    ticks = nice_ticks(min(0, *values), max(1, *values))
    plot = _Plot(
        left=150,
        top=90,
        width=width - 150 - _CHART_RIGHT,
        height=height - 90 - 100,
        steps=max((len(s) for s in series), default=0),
        low=ticks[0],
        high=ticks[-1],
    )
    canvas.box((plot.left, plot.top, plot.right, plot.bottom), outline=GREY, width=1)
    for value in ticks:  # money gridlines on round amounts, labelled
        _x, y = plot.at(0, value)
        canvas.draw.line((plot.left, y, plot.right, y), fill=FAINT, width=1)
        canvas.text((plot.left - 16, y), money(value), size=MIN_TEXT, anchor="rm")
    marked = _round_marks(canvas, plot, rounds)
    axis = f"{round_word}s of the game, each marked where it begins"
    canvas.text(
        (plot.left + plot.width / 2, height - 30),
        axis if marked else "moves of the game, first to last",
        size=MIN_TEXT,
        anchor="mm",
    )
    ends = _money_lines(canvas, plot, series, out)
    # Names at the right end, in the order of their lines, pushed apart so none overlap.
    placed: list[float] = []
    for y, seat in sorted(ends):
        y = max(y, placed[-1] + 26) if placed else y
        placed.append(y)
        label = f"{seat + 1} {names[seat]}: {money(series[seat][-1])}"
        where = (plot.right + 24, y)
        canvas.text(where, label, size=MIN_TEXT, anchor="lm", width=_CHART_RIGHT - 30)
    return canvas


_CHART_RIGHT = 300
"""Pixels right of a chart's plot, for the names at its lines' ends."""


@dataclass(frozen=True)
class _Plot:
    """Where a chart's plot lies, and its scales: ``steps`` points across, ``low`` to ``high``
    up."""

    left: float
    top: float
    width: float
    height: float
    steps: int
    low: int
    high: int

    @property
    def right(self) -> float:
        return self.left + self.width

    @property
    def bottom(self) -> float:
        return self.top + self.height

    def at(self, i: int, value: int) -> tuple[float, float]:
        x = self.left + (self.width * i / max(1, self.steps - 1))
        y = self.top + self.height * (1 - (value - self.low) / (self.high - self.low))
        return x, y


def _round_marks(canvas: Canvas, plot: _Plot, rounds: Sequence[int]) -> bool:
    """Where each round begins, marked on the x axis (at most 12 labels); False: no rounds."""
    starts = [i for i in range(len(rounds)) if i == 0 or rounds[i] != rounds[i - 1]]
    every = max(1, math.ceil(len(starts) / 12))
    for k, i in enumerate(starts):
        x, _y = plot.at(i, plot.low)
        canvas.draw.line((x, plot.top, x, plot.bottom), fill=FAINT, width=1)
        canvas.draw.line((x, plot.bottom, x, plot.bottom + 8), fill=GREY, width=2)
        if k % every == 0:
            canvas.text((x, plot.bottom + 12), str(rounds[i]), size=MIN_TEXT, anchor="ma")
    return bool(starts)


def _money_lines(
    canvas: Canvas, plot: _Plot, series: Sequence[Sequence[int]], out: Sequence[bool]
) -> list[tuple[float, int]]:
    """Each seat's line (its colour, its shape at the points); where each ends, by seat."""
    ends: list[tuple[float, int]] = []
    for seat, points in enumerate(series):
        if not points:
            continue
        grey = seat < len(out) and out[seat]
        colour = GREY if grey else seat_colour(seat)
        xy = [plot.at(i, v) for i, v in enumerate(points)]
        if len(xy) > 1:
            canvas.draw.line(xy, fill=colour, width=4, joint="curve")
        every = max(1, math.ceil(len(xy) / 12))
        for i in range(0, len(xy), every):
            canvas.mark(seat, xy[i], 9, grey)
        canvas.mark(seat, xy[-1], 13, grey)
        ends.append((xy[-1][1], seat))
    return ends
