"""The conformance kit over every registered game and the team game of the tests.

A game gets these checks by being registered; what it declares (secret variants, a ledger,
an inventory) decides how deep they go. See ``testkit/conformance.py``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from core import registry, ui
from core.engine import Event, Game, GameLike, IllegalAction, Rng, Seat, Timeout, Transition
from core.games.bigidea.game import BigIdea
from core.games.bigidea.state import BigIdeaState
from core.games.bigidea.view import BigIdeaView
from core.registry import all_games
from testkit import conformance
from tests.team_game import GAME as RELAY

GAMES: list[GameLike] = [*all_games(), RELAY]
SEEDS = range(4)


def _declares_secrets(game: GameLike) -> bool:
    return isinstance(game, Game) and type(game).secret_variants is not Game.secret_variants


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_every_game_keeps_the_engine_contract(game: GameLike, seed: int) -> None:
    """One seed a test, so that the seeds of a long game run on every core."""
    bot_seeds = 1 if seed < 2 else 0  # two bot-only games a game, over the seeds
    runs = conformance.check_game(game, range(seed, seed + 1), bot_seeds=bot_seeds)
    assert all(run.state.finished for run in runs)
    assert sum(run.refused for run in runs) > 0, "no refusal was tried"
    if _declares_secrets(game):
        assert sum(run.variants for run in runs) > 0, "no hidden variant was compared"
        assert sum(run.transitions for run in runs) > 0, "no secret was compared through a move"
        if game.at(runs[0].state).picture() is not None:
            assert sum(run.pictures for run in runs) > 0, "no board picture was compared"


class _Copy(BigIdea):
    name: ClassVar[str] = "bigideacopy"
    title: ClassVar[str] = "The Big Idea (copy)"


def test_a_registered_copy_gets_every_check_with_no_test_written() -> None:
    with registry.registered(_Copy()) as copy:
        assert copy in all_games()
        runs = conformance.check_game(copy, range(1))
    assert runs[0].state.finished and runs[0].variants > 0


# --- the kit tests itself: broken copies of a game each fail it ---------------------------------


def _ords(card: str) -> int:
    return sum(map(ord, card))


class _LeakyView(BigIdea):
    """A seat's view tells something of the next seat's hand."""

    name: ClassVar[str] = "leakyview"

    def view(self, state: BigIdeaState, viewer: Seat | None) -> BigIdeaView:
        shown = super().view(state, viewer)
        if viewer is None or not state.hands[(viewer + 1) % len(state.hands)]:
            return shown
        peek = _ords(state.hands[(viewer + 1) % len(state.hands)][0])
        return shown.model_copy(update={"deck_size": peek})


class _BoardNamesTopCard(BigIdea):
    """The board names the deck's top card."""

    name: ClassVar[str] = "topcard"

    def render_board(self, state: BigIdeaState, pictured: bool = False) -> ui.Message:
        board = super().render_board(state, pictured)
        top = state.deck[0] if state.deck else "none"
        return board.model_copy(update={"text": f"{board.text}\nNext card: {top}"})


class _PicturedBoardNamesTopCard(BigIdea):
    """Only the board that goes with its picture names the deck's top card."""

    name: ClassVar[str] = "picturedtopcard"

    def render_board(self, state: BigIdeaState, pictured: bool = False) -> ui.Message:
        board = super().render_board(state, pictured)
        if not pictured:
            return board
        top = state.deck[0] if state.deck else "none"
        return board.model_copy(update={"text": f"{board.text}\nNext card: {top}"})


class _IllegalBot(BigIdea):
    """A bot that answers with something it may not do."""

    name: ClassVar[str] = "illegalbot"

    def bot_action(self, view: BigIdeaView, legal: list[Any], rng: Rng) -> Any:
        return Timeout(key="not-a-deadline")


class _MakesMoney(BigIdea):
    """Every move pays the first player a cent that no event accounts for."""

    name: ClassVar[str] = "makesmoney"

    def _apply(self, state: BigIdeaState, actor: Seat, action: Any, rng: Rng) -> list[Event]:
        events = super()._apply(state, actor, action, rng)
        state.money[0] += 1
        return events


class _RefusalChanges(BigIdea):
    """A refused action still changes the state it was refused on."""

    name: ClassVar[str] = "refusalchanges"

    def apply(
        self, state: BigIdeaState, actor: Seat, action: Any, rng: Rng
    ) -> Transition[BigIdeaState]:
        try:
            return super().apply(state, actor, action, rng)
        except IllegalAction:
            state.launches += 1
            raise


BROKEN: list[tuple[type[BigIdea], str]] = [
    (_LeakyView, "changes what seat"),
    (_BoardNamesTopCard, "changes what the channel sees"),
    (_PicturedBoardNamesTopCard, "changes what the channel sees"),
    (_IllegalBot, "not a legal action"),
    (_MakesMoney, "money moved without a listed payment"),
    (_RefusalChanges, "a refused action changed the state"),
]


@pytest.mark.parametrize(("broken", "caught"), BROKEN, ids=[b.name for b, _ in BROKEN])
def test_a_broken_copy_of_a_game_fails_the_kit(broken: type[BigIdea], caught: str) -> None:
    """Each way of breaking the engine's contract is caught by the kit, with its sentence;
    the same copy without the break passes (the first test of this file)."""
    with registry.registered(broken()) as copy, pytest.raises(AssertionError, match=caught):
        conformance.check_game(copy, range(2), bot_seeds=1)
