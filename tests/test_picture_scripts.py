"""Names in every script are drawn as their glyphs, never as the font's missing-glyph box, and
names are drawn and described as typed (no markup escapes), on every board and on the chart.

A character is drawn as a box when the font its run was drawn in has no glyph for it: the test
renders each character of each run the canvas drew in that run's font and compares it with the
font's ``.notdef`` glyph (what a font draws for a character it lacks: a character from Unicode's
last private-use plane, which no font here has)."""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Callable
from typing import Any

import pytest
from PIL import ImageFont, features

from bot.commands.game.play import start_state
from core import picture as kit
from core import registry
from core import text as markup
from core.engine import GameLike, GameState
from core.games.biggiebills import picture as bb_picture
from core.games.bigidea import picture as bi_picture
from core.games.businessgo import picture as go_picture

NAMES = ["Дмитрий", "Ελένη", "田中", "محمد", "देवेंद्र", "🎲bob 1️⃣"]
"""Cyrillic, Greek, CJK, Arabic, Devanagari and an emoji."""
TYPED = ["**bold**", "<@everyone>", "a_b\\c"]
"""Names that are markup somewhere: drawn and described as typed."""
NOTDEF = "\U0010fffd"

LAYOUTS: dict[str, Callable[[Any], kit.Canvas]] = {
    "bigidea": bi_picture.layout,
    "businessgo": go_picture.layout,
    "biggiebills": bb_picture.layout,
}


def _game(name: str, names: list[str], moves: int = 30) -> tuple[GameLike, GameState]:
    game = registry.get_game(name)
    assert game is not None
    shown = [markup.escape(n) for n in names]  # stored names are markup, as the lobby keeps them
    state = start_state(game, shown, [False] * len(names), {}, 7, 1).state
    rng = random.Random(7)
    for step in range(moves):
        if state.finished:
            break
        seat = rng.choice(game.actors(state))
        action = game.bot_choice(state, seat, game.legal_actions(state, seat), rng)
        state = game.apply(state, seat, action, random.Random(step)).state
    return game, state


def _boxes(face: ImageFont.FreeTypeFont, text: str) -> list[str]:
    """The characters of ``text`` that ``face`` draws as its missing-glyph box."""
    notdef = face.getmask(NOTDEF)
    box = (notdef.size, bytes(notdef))
    out = []
    for char in text:
        if char.isspace() or unicodedata.category(char) == "Cf":
            continue  # a joiner or selector: drawn as part of its neighbours, or not at all
        mask = face.getmask(char)
        if (mask.size, bytes(mask)) == box:
            out.append(char)
    return out


def _runs_of(canvas: kit.Canvas, name: str) -> list[kit.Run]:
    """The runs of every text the canvas drew that shows ``name`` whole."""
    found = [runs for shown, runs in canvas.drawn if name in shown]
    assert found, f"{name!r} is not drawn as typed: {[shown for shown, _ in canvas.drawn]}"
    return [run for runs in found for run in runs]


def test_the_box_check_catches_a_box() -> None:
    """The check can fail: the main font (Latin, Greek, Cyrillic) has no Han or Arabic."""
    assert _boxes(kit.face(24), "田中") == ["田", "中"]
    assert _boxes(kit.face(24), "Дмитрий Ελένη") == []


@pytest.mark.parametrize("game_name", ["bigidea", "businessgo", "biggiebills"])
def test_every_name_is_drawn_in_its_own_script_on_the_board(game_name: str) -> None:
    names = NAMES[:4] if game_name == "businessgo" else NAMES[:5]
    for group in (names, [*NAMES[3:], NAMES[0]][: len(names)]):
        game, state = _game(game_name, group)
        canvas = LAYOUTS[game_name](game.at(state).public)
        for name in group:
            for run in _runs_of(canvas, name):
                assert _boxes(run.face, run.text) == [], (name, run.text, run.face.getname())


def test_every_name_is_drawn_in_its_own_script_on_the_chart_legend() -> None:
    series = [[10, 20 + 5 * seat, 40 - seat] for seat in range(len(NAMES))]
    names = [markup.escape(n) for n in NAMES]
    canvas = kit.chart_canvas("Money", names, series, lambda v: f"${v}", (), [1, 1, 2], "round")
    for name in NAMES:
        for run in _runs_of(canvas, name):
            assert _boxes(run.face, run.text) == [], (name, run.text, run.face.getname())
    picture = kit.money_chart("Money", names, series, lambda v: f"${v}")
    for name in NAMES:
        assert f"{name} ended with" in picture.alt


@pytest.mark.parametrize("game_name", ["bigidea", "businessgo", "biggiebills"])
def test_names_are_drawn_and_described_as_typed(game_name: str) -> None:
    typed = [*TYPED, "Ann"]
    game, state = _game(game_name, typed)
    public = game.at(state).public
    canvas = LAYOUTS[game_name](public)
    picture = game.picture(state)
    assert picture is not None
    for name in TYPED:
        _runs_of(canvas, name)
        assert name in picture.alt
    assert "\\" not in picture.alt.replace("a_b\\c", "")
    chart = kit.money_chart("Money", [markup.escape(n) for n in typed], [[1, 2]] * 4, str)
    for name in TYPED:
        assert f"{name} ended with" in chart.alt


def test_arabic_letters_are_shaped() -> None:
    """Pillow lays text out with raqm (the set-up installs FriBiDi, which it needs), so Arabic
    letters take their joined forms, right to left: not what the basic layout draws, which
    sets each letter's isolated form left to right."""
    assert features.check("raqm")
    (run,) = kit.runs("محمد", 40)
    assert run.face.layout_engine == ImageFont.Layout.RAQM
    basic = ImageFont.truetype(run.face.path, 40, layout_engine=ImageFont.Layout.BASIC)
    shaped, unshaped = run.face.getmask("محمد"), basic.getmask("محمد")
    assert (shaped.size, bytes(shaped)) != (unshaped.size, bytes(unshaped))
