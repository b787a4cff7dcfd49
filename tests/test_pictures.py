"""The boards drawn as pictures: pure, decodable, sized for a phone, and showing what the state
says where it says it."""

from __future__ import annotations

import concurrent.futures
import functools
import io
import random
from typing import Any

import pytest
from PIL import Image

from bot.commands.game.play import draw_picture, start_state
from bot.runtime import picture_drawer
from bot.settings import Settings
from core import picture as kit
from core import registry, ui
from core.engine import GameLike, GameState
from core.games.biggiebills import GAME as BB
from core.games.biggiebills import picture as bb_picture
from core.games.biggiebills.state import BiggieBillsState
from core.games.bigidea import GAME as BI
from core.games.bigidea import picture as bi_picture
from core.games.bigidea.state import BigIdeaState
from core.games.businessgo import GAME as GO
from core.games.businessgo import picture as go_picture
from core.games.businessgo.board import board
from tests.games import biggiebills_support as bb
from tests.games import businessgo_support as go

GAMES = ["biggiebills", "bigidea", "businessgo"]


def _played(name: str, moves: int, seed: int = 5) -> tuple[GameLike, GameState]:
    """A game of four people ``moves`` bot moves in."""
    game = registry.get_game(name)
    assert game is not None
    state = start_state(game, ["Ann", "Bo", "Cy", "Di"], [False] * 4, {}, seed, 1).state
    rng = random.Random(seed)
    for step in range(moves):
        if state.finished:
            break
        seat = rng.choice(game.actors(state))
        action = game.bot_choice(state, seat, game.legal_actions(state, seat), rng)
        state = game.apply(state, seat, action, random.Random(step)).state
    return game, state


def _decoded(picture: ui.Picture) -> Image.Image:
    image = Image.open(io.BytesIO(picture.data))
    image.load()
    return image.convert("RGB")


def _colour_in(image: Image.Image, box: tuple[int, int, int, int], colour: Any) -> int:
    """How many pixels of exactly ``colour`` lie inside ``box``."""
    counts = image.crop(box).getcolors(1 << 24) or []
    return sum(n for n, pixel in counts if pixel == colour)


@pytest.mark.parametrize("name", GAMES)
def test_same_view_same_bytes_and_a_decodable_phone_sized_png(name: str) -> None:
    game, state = _played(name, 40)
    first = game.picture(state)
    assert first is not None
    again = game.picture(state.model_copy(deep=True))
    assert again is not None and again.data == first.data and again.digest == first.digest
    image = Image.open(io.BytesIO(first.data))
    assert image.format == "PNG"
    assert (image.width, image.height) == (first.width, first.height)
    assert 1000 <= first.width <= 1600
    assert len(first.data) <= 512 * 1024
    # A later moment of the same game is another picture.
    _game, later = _played(name, 80)
    other = game.picture(later)
    assert other is not None and other.data != first.data


def test_the_font_is_never_under_the_phone_minimum() -> None:
    assert kit.face(10).size == kit.MIN_TEXT
    assert kit.face(24).size == 24
    assert all(run.face.size == kit.MIN_TEXT for run in kit.runs("Ann 田中 محمد 🎲", 10))


def test_a_players_token_is_drawn_inside_the_box_of_their_space() -> None:
    state = go.new_game(3)
    japan = board().index_of("japan")
    moved = state.model_copy(deep=True)
    moved.position[1] = japan
    colour = kit.seat_colour(1)
    before = _decoded(go_picture.draw(GO.view(state, None)))
    after = _decoded(go_picture.draw(GO.view(moved, None)))
    box = go_picture.space_box(japan)
    assert _colour_in(before, box, colour) == 0
    assert _colour_in(after, box, colour) > 50
    start = go_picture.space_box(0)
    assert _colour_in(before, start, colour) > 50  # everyone begins on Start
    assert _colour_in(after, start, colour) == 0


def test_an_owned_country_shows_its_owners_mark() -> None:
    state = go.new_game(3)
    canada = board().index_of("canada")
    owned = go.own(state, 2, "canada")
    colour = kit.seat_colour(2)
    box = go_picture.space_box(canada)
    assert _colour_in(_decoded(go_picture.draw(GO.view(state, None))), box, colour) == 0
    assert _colour_in(_decoded(go_picture.draw(GO.view(owned, None))), box, colour) > 50


def _bar_length(image: Image.Image, y: int, colour: Any) -> int:
    row = y + bb_picture.BAR_HEIGHT // 2
    xs = range(bb_picture.BAR_LEFT, bb_picture.BAR_LEFT + bb_picture.BAR_WIDTH + 1)
    return sum(1 for x in xs if image.getpixel((x, row)) == colour)


def test_a_team_with_more_money_has_the_longer_bar() -> None:
    state = bb.new_game(4)
    richer = state.model_copy(deep=True)
    richer.cash[2] = state.cash[2] + 300
    colour = kit.seat_colour(2)
    public, rich_public = BB.view(state, None), BB.view(richer, None)
    before = _bar_length(_decoded(bb_picture.draw(public)), bb_picture.bar_y(public, 2), colour)
    after = _bar_length(
        _decoded(bb_picture.draw(rich_public)), bb_picture.bar_y(rich_public, 2), colour
    )
    assert before > 0
    assert after > before
    expected = bb_picture.BAR_WIDTH * richer.cash[2] / rich_public.target
    assert abs(after - expected) <= 3


def test_a_team_out_of_the_game_is_grey_and_says_why() -> None:
    state = bb.new_game(4)
    out = state.model_copy(deep=True)
    out.alive[3] = False
    out.out[3] = "bankrupt"
    public = BB.view(out, None)
    image = _decoded(bb_picture.draw(public))
    y = bb_picture.bar_y(public, 3)
    assert _bar_length(image, y, kit.seat_colour(3)) == 0
    assert _bar_length(image, y, kit.GREY) > 0
    assert f"{out.names[3]} is out (bankrupt)" in bb_picture.draw(public).alt


def test_a_product_card_carries_its_investors_chits() -> None:
    _game, played = _played("bigidea", 60)
    assert isinstance(played, BigIdeaState)
    public = BI.view(played, None)
    assert public.products, "the bots have made products by now"
    image = _decoded(bi_picture.draw(public))
    newest = max(public.products, key=lambda p: p.id)
    x0, _y0, x1, y1 = bi_picture.card_box(public, 0)
    foot = (x0, y1 - 40, x1, y1)  # the row of chits
    assert newest.total_chits > 0
    for seat, count in enumerate(newest.chits):
        found = _colour_in(image, foot, kit.seat_colour(seat))
        assert (found > 0) == (count > 0), (seat, count, found)


@pytest.mark.parametrize("name", GAMES)
def test_the_alt_text_names_what_is_shown(name: str) -> None:
    game, state = _played(name, 40)
    picture = game.picture(state)
    assert picture is not None
    public = game.view(state, None)
    people = getattr(public, "players", None) or getattr(public, "teams", None)
    assert people, "the view names nobody"
    for person in people:
        assert person.name in picture.alt
    assert game.title.replace("$$$", "") in picture.alt.replace("$$$", "")
    assert 40 <= len(picture.alt) <= ui.MAX_FILE_ALT


def test_alt_text_is_cut_to_what_every_platform_takes() -> None:
    long = "x" * 5000
    assert len(ui.fit_alt(long)) == ui.MAX_FILE_ALT
    assert ui.fit_alt("short") == "short"


# --- the text that goes with a picture -----------------------------------------------------------


def test_the_busine_go_board_with_its_picture_leaves_the_track_out_but_not_who_owns_what() -> None:
    state = go.own(go.new_game(3), 2, "canada")
    state = go.own(state, 1, licence_only=["japan"])
    state.closed.append("mexico")
    full, pictured = GO.render_board(state), GO.render_board(state, pictured=True)
    assert "The track, clockwise" in full.text and "The track" not in pictured.text
    assert len(pictured.plain_text().splitlines()) * 3 < len(full.plain_text().splitlines())
    owners = {f.name.removeprefix("▶ "): f.value for f in pictured.fields}
    names = state.names
    assert "Canada N" in owners[names[2]] and "Japan licence" in owners[names[1]]
    assert "Closed: Mexico." in pictured.text  # the picture greys it; the text says it
    assert (pictured.buttons, pictured.selects) == (full.buttons, full.selects)


def test_the_biggiebills_board_with_its_picture_is_a_line_of_money_per_team() -> None:
    _game, state = _played("biggiebills", 40)
    assert isinstance(state, BiggieBillsState)
    full, pictured = BB.render_board(state), BB.render_board(state, pictured=True)
    assert [f.name for f in pictured.fields] == [f.name for f in full.fields]
    for field, team in zip(pictured.fields, BB.view(state, None).teams, strict=True):
        assert field.value.startswith(team.cash_text) and "\n" not in field.value
        assert "completed" not in field.value  # the stages are drawn
    assert len(pictured.plain_text()) < len(full.plain_text())
    # What the picture does not give stays: each card in play's number and penalty.
    for active in state.active:
        assert f"#{active.id} " in pictured.text


def test_the_big_idea_board_with_its_picture_keeps_the_products_numbers() -> None:
    _game, state = _played("bigidea", 60)
    assert isinstance(state, BigIdeaState) and state.products
    full, pictured = BI.render_board(state), BI.render_board(state, pictured=True)
    assert full.fields and not pictured.fields  # each player's money and chits are drawn
    for product in state.products:
        assert f"#{product.id} " in pictured.text
    assert len(pictured.plain_text()) < len(full.plain_text())


def test_a_worker_draws_in_a_process_of_its_own_the_same_pictures() -> None:
    # What the Discord and Slack workers do (bot.runtime.picture_drawer): the table hands the
    # pipeline's drawing (a function and its arguments, not a closure) to another process.
    with picture_drawer(Settings()) as drawer:
        assert isinstance(drawer, concurrent.futures.Executor)
        for name in GAMES:
            game, state = _played(name, 40)
            expected = game.picture(state)
            draw = functools.partial(draw_picture, name, state.model_dump_json())
            drawn = drawer.submit(draw).result(timeout=120)
            assert expected is not None and drawn == expected, name
    with picture_drawer(Settings(BOARDROOM_PICTURES=False)) as drawer:
        assert drawer is None  # pictures off: nothing is started


def test_the_busine_go_board_is_1400_wide_and_owners_marks_stay_in_their_spaces() -> None:
    """Every country and Service Industry owned (the most marks a board can carry): the picture
    is 1,400 pixels across, and no owner's mark reaches into the printed head of a space (the
    mark of space 38 once covered the "39" of Morocco)."""
    b = board()
    state = go.services(go.own(go.new_game(4), 1, *b.countries), 2, *b.services)
    image = _decoded(go_picture.draw(GO.view(state, None)))
    assert image.size == (kit.WIDTH, kit.WIDTH)
    tag = (250, 250, 250)
    for index in range(len(b.spaces)):
        x0, y0, x1, _y1 = go_picture.space_box(index)
        assert _colour_in(image, (x0 + 1, y0 + 1, x1 - 1, y0 + 26), tag) == 0, index
    service = b.index_of(next(iter(b.services)))
    x0, y0, x1, y1 = go_picture.space_box(service)
    assert _colour_in(image, (x0, y0, x1, y1), kit.seat_colour(2)) > 50
