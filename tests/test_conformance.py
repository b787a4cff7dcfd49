"""The conformance kit over every registered game and the team game of the tests.

A game gets these checks by being registered; what it declares (secret variants, a ledger,
an inventory) decides how deep they go. See ``testkit/conformance.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

import pytest
from pydantic import BaseModel

from core import registry, ui
from core.engine import (
    Event,
    Game,
    GameLike,
    IllegalAction,
    Rng,
    Seat,
    Timeout,
    Transition,
    erase,
)
from core.games.bigidea import GAME as BIGIDEA
from core.games.bigidea.actions import Pass, Pick
from core.games.bigidea.state import BigIdeaState
from core.games.bigidea.view import BigIdeaView
from core.registry import all_games
from testkit import conformance
from tests.team_game import GAME as RELAY

GAMES: list[GameLike] = [*all_games(), erase(RELAY)]
SEEDS = range(4)


def _declares_secrets(game: GameLike) -> bool:
    default = next(f.default for f in fields(Game) if f.name == "secret_variants")
    return isinstance(game, Game) and game.secret_variants is not default


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
        assert sum(run.knowledge for run in runs) > 0, "no strong bot's choice was compared"
        if game.picture(runs[0].state) is not None:
            assert sum(run.pictures for run in runs) > 0, "no board picture was compared"


_COPY = replace(BIGIDEA, name="bigideacopy", title="The Big Idea (copy)")


def test_a_registered_copy_gets_every_check_with_no_test_written() -> None:
    with registry.registered(_COPY) as copy:
        assert copy in all_games()
        runs = conformance.check_game(copy, range(1))
    assert runs[0].state.finished and runs[0].variants > 0


# --- the kit tests itself: broken copies of a game each fail it ---------------------------------


def _ords(card: str) -> int:
    return sum(map(ord, card))


def _leaky_view(state: BigIdeaState, viewer: Seat | None) -> BigIdeaView:
    """A seat's view tells something of the next seat's hand."""
    shown = BIGIDEA.view(state, viewer)
    if viewer is None or not state.hands[(viewer + 1) % len(state.hands)]:
        return shown
    peek = _ords(state.hands[(viewer + 1) % len(state.hands)][0])
    return shown.model_copy(update={"deck_size": peek})


def _board_names_top_card(
    state: BigIdeaState, public: BigIdeaView, pictured: bool = False
) -> ui.Message:
    """The board names the deck's top card."""
    board = BIGIDEA.render_board(state, pictured)
    top = state.deck[0] if state.deck else "none"
    return board.model_copy(update={"text": f"{board.text}\nNext card: {top}"})


def _pictured_board_names_top_card(
    state: BigIdeaState, public: BigIdeaView, pictured: bool = False
) -> ui.Message:
    """Only the board that goes with its picture names the deck's top card."""
    board = BIGIDEA.render_board(state, pictured)
    return _board_names_top_card(state, public, pictured) if pictured else board


def _waits_by_phase(state: BigIdeaState, viewer: Seat | None) -> BigIdeaView:
    """The waiting line goes by a phase of its own rather than the open decision: in the
    venture phase it names everyone, those who have pointed too."""
    shown = BIGIDEA.view(state, viewer)
    if state.deciding != "venture" or state.finished:
        return shown
    return shown.model_copy(update={"waiting_for": list(state.seats)})


def _sees_everything(state: BigIdeaState, seat: Seat, rng: Rng) -> BigIdeaState:
    """A strong bot's world that is the true state: it reads every hand and the deck."""
    return state.model_copy(deep=True)


def _illegal_bot(view: BigIdeaView, legal: list[Any], rng: Rng) -> Any:
    """A bot that answers with something it may not do."""
    return Timeout(key="not-a-deadline")


def _makes_money(move: Any) -> Any:
    """Every move (a timeout too) pays the first player a cent that no event accounts for."""

    def run(state: BigIdeaState, *args: Any) -> list[Event]:
        events: list[Event] = move(state, *args)
        state.money[0] += 1
        return events

    return run


def _with_play(decision: str, kind: type[BaseModel], **change: Any) -> Any:
    """The Big Idea's flow with one play of one decision changed."""
    declared = BIGIDEA.flow.decisions[decision]
    plays = {**declared.plays, kind: replace(declared.plays[kind], **change)}
    decisions = {**BIGIDEA.flow.decisions, decision: replace(declared, plays=plays)}
    return replace(BIGIDEA.flow, decisions=decisions)


def _no_passes(state: BigIdeaState, seat: Seat) -> list[Pass]:
    """A mezzanine turn's offers that leave passing out, which the engine still accepts."""
    return []


def _any_pick(state: BigIdeaState, seat: Seat, action: Pick) -> str | None:
    """A pick's check that lets any cards through, those the seat does not hold too."""
    return None


@dataclass(frozen=True, kw_only=True, eq=False)
class _RefusalChanges(Game[BigIdeaState, Any, Any, Any]):
    """A refused action still changes the state it was refused on."""

    def apply(
        self, state: BigIdeaState, actor: Seat, action: Any, rng: Rng
    ) -> Transition[BigIdeaState]:
        try:
            return super().apply(state, actor, action, rng)
        except IllegalAction:
            state.launches += 1
            raise


@dataclass(frozen=True, kw_only=True, eq=False)
class _UndoForgetsPicks(Game[BigIdeaState, Any, Any, Any]):
    """A move taken back restores the game before it, but with every pending secret pick
    forgotten (as a take-back that rebuilt only the public part of the game would)."""

    def reopen(self, earlier: BigIdeaState, version: int) -> BigIdeaState:
        back = super().reopen(earlier, version)
        back.picks = [None] * len(back.picks)
        return back


_UNDO_FORGETS = _UndoForgetsPicks(
    **{f.name: getattr(BIGIDEA, f.name) for f in fields(BIGIDEA)} | {"name": "undoforgets"}
)


BROKEN: list[tuple[conformance.AnyGame, str]] = [
    (replace(BIGIDEA, name="leakyview", view=_leaky_view), "changes what seat"),
    (
        replace(BIGIDEA, name="topcard", board=_board_names_top_card),
        "changes what the channel sees",
    ),
    (
        replace(BIGIDEA, name="picturedtopcard", board=_pictured_board_names_top_card),
        "changes what the channel sees",
    ),
    (replace(BIGIDEA, name="illegalbot", bot_action=_illegal_bot), "not a legal action"),
    (
        replace(BIGIDEA, name="peekingbot", sample=_sees_everything),
        "strong bot.* reads what its seat cannot see",
    ),
    (replace(BIGIDEA, name="waitsbyphase", view=_waits_by_phase), "as waited for"),
    (
        replace(BIGIDEA, name="hidesapass", flow=_with_play("mezzanine", Pass, offers=_no_passes)),
        "which neither its legal actions nor its standing choices list",
    ),
    (
        replace(BIGIDEA, name="anypick", flow=_with_play("pick", Pick, check=_any_pick)),
        "which neither its legal actions nor its standing choices list",
    ),
    (
        replace(
            BIGIDEA,
            name="makesmoney",
            flow=replace(
                BIGIDEA.flow,
                decisions={
                    name: replace(
                        decision,
                        timeout=_makes_money(decision.timeout),
                        plays={
                            kind: replace(play, apply=_makes_money(play.apply))
                            for kind, play in decision.plays.items()
                        },
                    )
                    for name, decision in BIGIDEA.flow.decisions.items()
                },
            ),
        ),
        "money moved without a listed payment",
    ),
    (
        _RefusalChanges(
            **{f.name: getattr(BIGIDEA, f.name) for f in fields(BIGIDEA)}
            | {"name": "refusalchanges"}
        ),
        "a refused action changed the state",
    ),
    (_UNDO_FORGETS, "is not the game before the move"),
]


@pytest.mark.parametrize(("broken", "caught"), BROKEN, ids=[b.name for b, _ in BROKEN])
def test_a_broken_copy_of_a_game_fails_the_kit(broken: GameLike, caught: str) -> None:
    """Each way of breaking the engine's contract is caught by the kit, with its sentence;
    the same copy without the break passes (the first test of this file)."""
    with registry.registered(broken) as copy, pytest.raises(AssertionError, match=caught):
        conformance.check_game(copy, range(2), bot_seeds=1)


def test_the_undo_check_fails_on_a_copy_whose_undo_restores_the_wrong_state() -> None:
    """The kit's own undo check (not another check of the kit) catches the broken copy, on a
    game where the real one takes moves back and passes."""
    options = BIGIDEA.options_model()
    seeds = [seed for seed in range(6) if conformance.undo_matches(BIGIDEA, 4, options, seed)]
    assert seeds, "no move was taken back"
    with registry.registered(_UNDO_FORGETS) as copy:
        failed = 0
        for seed in seeds:
            try:
                conformance.undo_matches(copy, 4, options, seed)
            except AssertionError as error:
                assert "is not the game before the move" in str(error)
                failed += 1
    assert failed > 0


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_every_game_takes_moves_back_in_the_kit(game: GameLike) -> None:
    """The undo check of the kit takes moves back in every game (not a check that never
    runs), and compares secrets through moves it lets be taken back in every game that
    declares secrets."""
    counts = conformance.players_range(game)
    options = conformance.option_sets(game)[0]
    taken = sum(
        conformance.undo_matches(game, counts[s % len(counts)], options, s) for s in range(3)
    )
    assert taken > 0
    if _declares_secrets(game):
        run = conformance.play_random(game, counts[0], options, 0)
        assert run.undoable > 0, "no move that may be taken back had its secrets compared"
