"""Every table of every game's rules page that shows data the game plays is that data.

A rules page (``core/games/<game>/rules.md``, served by ``/<game> rules``) copies its tables
from the game's data files and options model by hand, so a changed number can leave the page
behind: BiggieBills$$$'s Challenge card table went on showing half-of-cost penalties after the
cards had moved to 40 %. Here each table is rebuilt from the data, loaded through the game's own
modules, and compared row for row (a wrong, missing or extra row fails); each table a page holds
must be one this test knows, as data or as a measurement, so a new table cannot go unchecked.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_args

import pytest
from pydantic.fields import FieldInfo

from core.engine import GameLike, erase
from core.games.biggiebills import GAME as BIGGIEBILLS
from core.games.biggiebills.cards import (
    BLOCK,
    FLEX_12,
    FLEX_34,
    IndustryEffect,
    all_challenges,
    all_growth,
    all_industry,
    bonus_deck,
    challenge_deck,
    copies,
    growth_deck,
)
from core.games.biggiebills.text import money as millions
from core.games.bigidea import GAME as BIGIDEA
from core.games.businessgo import GAME as BUSINESSGO
from core.games.businessgo.board import board
from core.games.businessgo.commands import COMMANDS as BUSINESSGO_COMMANDS
from core.games.businessgo.text import money as dollars

Rows = list[tuple[str, ...]]


@dataclass(frozen=True)
class Table:
    """One Markdown table of a page: the section it is in, its header and its rows."""

    section: str
    header: tuple[str, ...]
    rows: Rows


def tables(page: str) -> list[Table]:
    """Every table of ``page``, cells stripped."""
    found: list[Table] = []
    section = ""
    lines = page.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            section = line.lstrip("#").strip()
        if not line.startswith("|"):
            i += 1
            continue
        block = []
        while i < len(lines) and lines[i].startswith("|"):
            block.append(_cells(lines[i]))
            i += 1
        header, rule, *rows = block
        assert all(set(cell) <= set("-: ") for cell in rule), f"{section}: {block[:2]}"
        for row in rows:
            assert len(row) == len(header), f"{section}: {row} has not {len(header)} cells"
        found.append(Table(section, header, rows))
    return found


def _cells(line: str) -> tuple[str, ...]:
    return tuple(cell.strip() for cell in line.strip().strip("|").split("|"))


# --- the options, in every game ----------------------------------------------------------------

_DOCUMENT = ("document", "rulebook", "rule sheet")
"""How the pages name the printed rules the game comes from."""


def _shown(value: Any) -> set[str]:
    """How a page may write an option's default: ``1000`` or ``1,000``, ``yes``/``on``, ..."""
    if value is True:
        return {"yes", "on"}
    if value is False:
        return {"no", "off"}
    if value is None:
        return {"none"}
    if isinstance(value, int):
        return {str(value), f"{value:,}"}
    return {str(value)}


def _bounds(info: FieldInfo) -> tuple[int | None, int | None]:
    low = next((m.ge for m in info.metadata if hasattr(m, "ge")), None)
    high = next((m.le for m in info.metadata if hasattr(m, "le")), None)
    return low, high


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def check_options(game: GameLike, rows: Rows) -> None:
    """One row per option, in the model's order, with its default; a range the row states is
    the model's; an option whose default is a house variant names the printed value."""
    fields = game.options_model.model_fields
    assert [row[0] for row in rows] == [f"`{name}`" for name in fields]
    for (_, default, meaning), (name, info) in zip(rows, fields.items(), strict=True):
        assert default in _shown(info.default), f"{name}: the page says {default}"
        low, high = _bounds(info)
        if span := re.search(r"from ([\d,]+) to ([\d,]+)", meaning):
            assert (_number(span[1]), _number(span[2])) == (low, high), f"{name}: {meaning}"
        if most := re.search(r"at most ([\d,]+)", meaning):
            assert _number(most[1]) == high, f"{name}: {meaning}"
        for choice in get_args(info.annotation):
            if isinstance(choice, str):  # a Literal option: every value it takes is explained
                assert f"`{choice}`" in meaning, f"{name}: {meaning} leaves out {choice}"
        extra = info.json_schema_extra
        printed = extra.get("printed") if isinstance(extra, dict) else None
        if printed is not None:
            assert f"`{printed}`" in meaning and any(d in meaning for d in _DOCUMENT), (
                f"{name}: the row must say the printed rules' `{printed}`: {meaning}"
            )


# --- BiggieBills$$$ ----------------------------------------------------------------------------


def biggiebills_setup(rows: Rows) -> None:
    """The decks for each table size, from the deck builders the game deals from."""
    expected = []
    for teams in ("3-4", "5-8"):
        low, high = (int(n) for n in teams.split("-"))
        assert len({copies(n) for n in range(low, high + 1)}) == 1, teams
        growth_sets, challenge_sets, _ = copies(low)
        bonus = bonus_deck(low)
        expected.append(
            (
                teams,
                f"{growth_sets} sets of 24 = {len(growth_deck(low))}",
                f"{challenge_sets} sets of 24 = {len(challenge_deck(low))}",
                f"{bonus.count(FLEX_12)} Flexible (stages 1-2) + {bonus.count(FLEX_34)} Flexible "
                f"(stages 3-4) + {bonus.count(BLOCK)} Block = {len(bonus)}",
            )
        )
    assert len(all_growth()) == len(all_challenges()) == 24
    assert rows == expected


def biggiebills_growth(rows: Rows) -> None:
    expected = [
        (
            g.name,
            str(g.stage),
            millions(g.cost),
            millions(g.first),
            millions(g.later),
            millions(g.penalty),
        )
        for g in all_growth()
    ]
    assert rows == expected


def biggiebills_challenges(rows: Rows) -> None:
    cards = {g.id: g for g in all_growth()}
    expected = [
        (c.name, cards[c.growth].name, str(c.stage), millions(cards[c.growth].penalty))
        for c in all_challenges()
    ]
    assert rows == expected


def biggiebills_effects(rows: Rows) -> None:
    """The Industry card vocabulary: every kind of effect, with the fields it takes."""
    expected = []
    for model in get_args(get_args(IndustryEffect)[0]):
        (kind,) = get_args(model.model_fields["kind"].annotation)
        fields = [name for name in model.model_fields if name != "kind"]
        expected.append(f"{kind} ({', '.join(fields)})" if fields else kind)
    assert [row[0] for row in rows] == expected


def biggiebills_industry(rows: Rows) -> None:
    assert rows == [(card.name, card.text) for card in all_industry()]


# --- Busine$$ GO -------------------------------------------------------------------------------


def businessgo_board(rows: Rows) -> None:
    b = board()
    half = len(b.spaces) // 2
    expected = [
        (str(i), b.space_name(i), str(i + half), b.space_name(i + half)) for i in range(half)
    ]
    assert rows == expected


def businessgo_licences(rows: Rows) -> None:
    b = board()
    expected = [
        (
            c.name,
            c.continent,
            b.products[c.product].name,
            dollars(c.licence),
            dollars(c.start_up),
            dollars(c.conversion),
            " / ".join(dollars(a) for a in c.national_sales),
            " / ".join(dollars(a) for a in c.international_sales),
        )
        for c in b.country
    ]
    assert rows == expected


def businessgo_salaries(rows: Rows) -> None:
    table = board().salary_table
    expected = []
    for (lowest, amount), following in zip(table, [*table[1:], None], strict=True):
        if following is None:
            units = f"{lowest} and more"
        elif following[0] - 1 == lowest:
            units = str(lowest)
        else:
            units = f"{lowest}-{following[0] - 1}"
        expected.append((units, dollars(amount)))
    assert rows == expected
    assert [board().salary(units) for units in (1, 3, 4, 41, 99)] == [
        100_000,
        100_000,
        250_000,
        1_250_000,
        1_250_000,
    ]


def businessgo_fees(rows: Rows) -> None:
    expected = [
        (
            card.name,
            "the Employee Salary table"
            if card.kind == "table"
            else f"{dollars(card.amount)} a unit",
        )
        for card in board().fee_card
    ]
    assert rows == expected


def businessgo_mail(rows: Rows) -> None:
    assert rows == [(card.id, card.text) for card in board().mail_card]


def businessgo_services(rows: Rows) -> None:
    expected = [(s.name, dollars(s.price), dollars(s.fee_per_corporation)) for s in board().service]
    assert rows == expected


def businessgo_actions(rows: Rows) -> None:
    """Every typed command the game knows, and no other."""
    words = set()
    for command, _ in rows:
        typed = re.match(r"`/businessgo (\w+)", command)
        assert typed is not None, command
        words.add(typed[1])
    assert words == {command.word for command in BUSINESSGO_COMMANDS}


# --- the pages ---------------------------------------------------------------------------------

Check = Callable[[Rows], None]

CHECKS: dict[tuple[str, tuple[str, ...]], Check] = {
    ("biggiebills", ("Teams", "Growth cards", "Challenge cards", "Bonus cards")): (
        biggiebills_setup
    ),
    (
        "biggiebills",
        (
            "Growth card",
            "Stage",
            "Cost",
            "First payoff",
            "Later payoff",
            "Challenge penalty",
        ),
    ): biggiebills_growth,
    ("biggiebills", ("Challenge card", "Challenges", "Stage", "Penalty received")): (
        biggiebills_challenges
    ),
    ("biggiebills", ("Effect", "Meaning for this cycle")): biggiebills_effects,
    ("biggiebills", ("Industry Rules card", "Effects this cycle")): biggiebills_industry,
    ("biggiebills", ("Option", "Default", "Meaning")): lambda rows: check_options(
        erase(BIGGIEBILLS), rows
    ),
    ("bigidea", ("option", "default", "meaning")): lambda rows: check_options(erase(BIGIDEA), rows),
    ("businessgo", ("#", "space", "#", "space")): businessgo_board,
    (
        "businessgo",
        (
            "country",
            "continent",
            "product",
            "licence",
            "start-up",
            "conversion",
            "national 1 / 2 / 3",
            "international 1 / 2 / 3",
        ),
    ): businessgo_licences,
    ("businessgo", ("units", "amount")): businessgo_salaries,
    ("businessgo", ("card", "pays")): businessgo_fees,
    ("businessgo", ("card", "what it says")): businessgo_mail,
    ("businessgo", ("Service Industry", "price", "paid per competitors' corporation")): (
        businessgo_services
    ),
    ("businessgo", ("option", "default", "what")): lambda rows: check_options(
        erase(BUSINESSGO), rows
    ),
    ("businessgo", ("command", "when")): businessgo_actions,
}
"""The tables of data the games play, by game and header, and how each is rebuilt."""

MEASURED: set[tuple[str, str]] = {
    ("biggiebills", "Tuning"),
    ("bigidea", "Simulation"),
    ("businessgo", "Simulation"),
}
"""Sections whose tables are measurements of bot games (``boardroom simulate``), not data the
game plays: they are checked by running the simulations, not here."""

GAMES: list[GameLike] = [erase(BIGGIEBILLS), erase(BIGIDEA), erase(BUSINESSGO)]


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.name)
def test_every_table_of_a_rules_page_is_the_data_the_game_plays(game: GameLike) -> None:
    found = tables(game.rules("all"))
    assert found
    checked = set()
    for table in found:
        key = (game.name, table.header)
        if (game.name, table.section) in MEASURED:
            continue
        assert key in CHECKS, f"{game.name}, {table.section}: a table this test does not know"
        CHECKS[key](table.rows)
        checked.add(key)
    # Every table of data is on the page, once.
    assert checked == {key for key in CHECKS if key[0] == game.name}
    assert len([t for t in found if (game.name, t.header) in CHECKS]) == len(checked)
