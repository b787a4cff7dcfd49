"""Text commands (``/biggiebills play Vendor Management``): what a console user types."""

from __future__ import annotations

from functools import cache

from core.commands import Arg, Command, Kind, Values
from core.engine import IllegalAction, Seat
from core.games.biggiebills.actions import (
    Accept,
    Action,
    Block,
    Challenge,
    Done,
    Exchange,
    PlayGrowth,
    ProposeTarget,
    ReturnCards,
    Skip,
    Vote,
)
from core.games.biggiebills.cards import (
    ACQUIRE,
    FLEX_STAGES,
    all_challenges,
    all_growth,
    challenge_id,
    growth,
)
from core.games.biggiebills.state import BiggieBillsState
from core.games.biggiebills.ui import TARGET_FORM

__all__ = ["COMMANDS", "card_names", "growth_names"]


@cache
def growth_names() -> dict[str, tuple[str, ...]]:
    """Every Growth card by its id, with its name."""
    return {g.id: (g.name,) for g in all_growth()}


@cache
def card_names() -> dict[str, tuple[str, ...]]:
    """Every Growth and Challenge card by its id, with its name."""
    return {**growth_names(), **{c.id: (c.name,) for c in all_challenges()}}


def _play(state: BiggieBillsState, seat: Seat, typed: Values) -> PlayGrowth:
    card = typed.text(0)
    if card == ACQUIRE:
        raise IllegalAction("Name the team to take over: `acquire <team>`.")
    return PlayGrowth(card=card)


def _acquire(state: BiggieBillsState, seat: Seat, typed: Values) -> PlayGrowth:
    return PlayGrowth(card=ACQUIRE, target=typed.seat(0))


def _challenge(state: BiggieBillsState, seat: Seat, typed: Values) -> Challenge:
    """``challenge <team> <card> [flex]``: that team's active card, with the Challenge card
    of it, or with the Flexible Challenge of its stage."""
    team, card = typed.seat(0), typed.text(1)
    actives = [a for a in state.active if a.owner == team and a.card == card]
    if team is None or not actives:
        raise IllegalAction(
            f"{state.names[team or 0]} has no active {growth(card).name} to challenge."
        )
    if typed.given(2):
        stage = growth(card).stage
        used = next(f for f, stages in FLEX_STAGES.items() if stage in stages)
        return Challenge(active=actives[0].id, card=used)
    return Challenge(active=actives[0].id, card=challenge_id(card))


def _exchange(state: BiggieBillsState, seat: Seat, typed: Values) -> Exchange:
    return Exchange(cards=[typed.text(0), typed.text(1)])


def _return(state: BiggieBillsState, seat: Seat, typed: Values) -> ReturnCards:
    return ReturnCards(cards=typed.names(0))


def _target(state: BiggieBillsState, seat: Seat, typed: Values) -> ProposeTarget | Vote:
    """``target 2000`` (also ``$2B``, ``2b``, ``1500m``) proposes; ``yes`` / ``no`` answers."""
    said = typed.any(0)
    if isinstance(said, bool):
        return Vote(agree=said)
    return ProposeTarget(target=typed.number(0))


def _plain(kind: type[Skip | Done | Block | Accept]) -> Command:
    words = {Skip: "skip", Done: "done", Block: "block", Accept: "accept"}
    about = {
        Skip: "skip your turn and pay the fine",
        Done: "end your turn after playing",
        Block: "block the challenge against your card",
        Accept: "let the challenge against your card stand",
    }

    def make(state: BiggieBillsState, seat: Seat, typed: Values) -> Action:
        return kind()

    return Command(words[kind], about[kind], make=make)


_GROWTH = Arg(
    "card", Kind.CARD, names=growth_names, unknown="There is no Growth card called “{text}”."
)
_ANY = Arg("card", Kind.CARD, names=card_names, unknown="There is no card called “{text}”.")
_TEAM = Arg("team", Kind.TEAM, unknown="Name one of the teams: {names}.")
_YES = ("yes", "y", "agree", "ok")
_NO = ("no", "n", "refuse", "disagree")
COMMANDS: tuple[Command, ...] = (
    Command("play", "play a Growth card from your team's hand", (_GROWTH,), make=_play),
    Command("acquire", "play Acquire a Competitor against a team", (_TEAM,), make=_acquire),
    Command(
        "challenge",
        "challenge a team's active Growth card with your Challenge card of it, or with a "
        "Flexible Challenge when you end with `flex`",
        (
            _TEAM,
            _GROWTH,
            Arg(
                "flex",
                Kind.WORD,
                required=False,
                choices=("flex",),
                words=(("flexible", "flex"),),
            ),
        ),
        make=_challenge,
        usage=lambda state, seat: _challenge_usage(state, seat),
    ),
    Command(
        "exchange",
        "exchange two cards for new ones",
        (_ANY, Arg("card", Kind.CARD, lead=", ", names=card_names, unknown=_ANY.unknown)),
        make=_exchange,
        usage=lambda state, seat: "Name two cards separated by a comma: `exchange A, B`.",
    ),
    *(_plain(kind) for kind in (Skip, Done, Block, Accept)),
    Command(
        "return",
        "after an acquisition, give back the extra cards (`return A, B`)",
        (Arg("cards", Kind.CARD, names=card_names, many=True, unknown=_ANY.unknown),),
        make=_return,
    ),
    Command(
        "target",
        "on your turn, propose a new target to every team (`target 2000`); `target yes` or "
        "`target no` answers a proposal",
        (
            Arg(
                "amount in $M",
                Kind.AMOUNT,
                unit=1_000_000,
                words=(*((w, True) for w in _YES), *((w, False) for w in _NO)),
                unknown="Give the new target in $ millions, e.g. `target 2000` for $2B, or "
                "answer a proposal with `target yes` or `target no`.",
            ),
        ),
        ask=TARGET_FORM,
        make=_target,
    ),
)


def _challenge_usage(state: BiggieBillsState, seat: Seat) -> str:
    """How to write a challenge, with an example from the board (public: the active cards)."""
    theirs = [a for a in state.active if a.owner != seat]
    team, card = (
        (state.names[theirs[0].owner], growth(theirs[0].card).name)
        if theirs
        else (state.names[1 if seat == 0 else 0], "Vendor Management")
    )
    return (
        f"Write `challenge <team> <card>`, e.g. `challenge {team} {card}`, to challenge that "
        "team's active Growth card with your Challenge card of it; end with `flex` "
        f"(`challenge {team} {card} flex`) to use a Flexible Challenge of its stage instead. "
        "A Block a Challenge is not played this way: it answers a challenge to your own card "
        "(`block`)."
    )
