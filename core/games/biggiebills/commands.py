"""Text commands (``/biggiebills play Vendor Management``): what a console user types."""

from __future__ import annotations

from core.commands import Arg, Command, Kind
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
from core.text import escape

__all__ = ["COMMANDS", "parse_text"]

_CARD = Arg("card", Kind.CARD)
_TEAM = Arg("team", Kind.TEAM)
COMMANDS: tuple[Command, ...] = (
    Command("play", "play a Growth card from your team's hand", (_CARD,)),
    Command("acquire", "play Acquire a Competitor against a team", (_TEAM,)),
    Command(
        "challenge",
        "challenge a team's active Growth card with your Challenge card of it, or with a "
        "Flexible Challenge when you end with `flex`",
        (_TEAM, _CARD, Arg("flex", Kind.WORD, required=False, choices=("flex",))),
    ),
    Command(
        "exchange", "exchange two cards for new ones", (_CARD, Arg("card", Kind.CARD, lead=", "))
    ),
    Command("skip", "skip your turn and pay the fine"),
    Command("done", "end your turn after playing"),
    Command("block", "block the challenge against your card"),
    Command("accept", "let the challenge against your card stand"),
    Command(
        "return",
        "after an acquisition, give back the extra cards (`return A, B`)",
        (Arg("cards", Kind.CARD),),
    ),
    Command(
        "target",
        "on your turn, propose a new target to every team (`target 2000`); `target yes` or "
        "`target no` answers a proposal",
        (Arg("amount in $M", Kind.AMOUNT),),
        ask=TARGET_FORM,
    ),
)


def parse_text(state: BiggieBillsState, seat: Seat, word: str, rest: str) -> Action | None:
    """The action a text command means; None when a needed argument is missing."""
    rest = rest.strip()
    simple: dict[str, type[Skip | Done | Block | Accept]] = {
        "skip": Skip,
        "done": Done,
        "block": Block,
        "accept": Accept,
    }
    if word in simple:
        return simple[word]()
    if not rest:
        return None
    if word == "play":
        card = _card(rest, "growth")
        if card == ACQUIRE:
            raise IllegalAction("Name the team to take over: `acquire <team>`.")
        return PlayGrowth(card=card)
    if word == "acquire":
        return PlayGrowth(card=ACQUIRE, target=_team(state, rest))
    if word == "challenge":
        return _challenge(state, seat, rest)
    if word == "exchange":
        names = [n for n in rest.split(",") if n.strip()]
        if len(names) != 2:
            raise IllegalAction("Name two cards separated by a comma: `exchange A, B`.")
        return Exchange(cards=[_card(n, "any") for n in names])
    if word == "return":
        names = [n for n in rest.split(",") if n.strip()]
        return ReturnCards(cards=[_card(n, "any") for n in names]) if names else None
    if word == "target":
        return _target(rest)
    return None


_YES = {"yes", "y", "agree", "ok"}
_NO = {"no", "n", "refuse", "disagree"}


def _target(rest: str) -> ProposeTarget | Vote:
    """``target 2000`` (also ``$2B``, ``2b``, ``1500m``) proposes; ``yes`` / ``no`` answers."""
    word = rest.strip().lower()
    if word in _YES or word in _NO:
        return Vote(agree=word in _YES)
    amount = _millions(word)
    if amount is None:
        raise IllegalAction(
            "Give the new target in $ millions, e.g. `target 2000` for $2B, or answer a "
            "proposal with `target yes` or `target no`."
        )
    return ProposeTarget(target=amount)


def _millions(text: str) -> int | None:
    text = text.replace("$", "").replace(",", "").replace(" ", "")
    scale = 1.0
    if text.endswith("b"):
        text, scale = text[:-1], 1000.0
    elif text.endswith("m"):
        text = text[:-1]
    try:
        value = float(text) * scale
    except ValueError:
        return None
    if value != value or not 0 < value < 10**9 or value != int(value):
        return None
    return int(value)


def _norm(text: str) -> str:
    return " ".join(text.lower().replace("_", " ").split())


def _card(text: str, kind: str) -> str:
    """A card id from its id or name (a unique prefix will do)."""
    key = _norm(text)
    pool: list[tuple[str, str]] = []
    if kind in ("growth", "any"):
        pool += [(g.id, g.name) for g in all_growth()]
    if kind == "any":
        pool += [(c.id, c.name) for c in all_challenges()]
    exact = [cid for cid, name in pool if key in (_norm(cid), _norm(name))]
    if exact:
        return exact[0]
    prefix = [cid for cid, name in pool if _norm(name).startswith(key)]
    if len(prefix) == 1:
        return prefix[0]
    raise IllegalAction(
        f"There is no {'Growth ' if kind == 'growth' else ''}card called “{escape(text.strip())}”."
    )


def _team(state: BiggieBillsState, text: str) -> Seat:
    key = _norm(text).removeprefix("@")
    matches = [s for s, name in enumerate(state.names) if _norm(name) == key]
    if not matches:
        matches = [s for s, name in enumerate(state.names) if _norm(name).startswith(key)]
    if len(matches) == 1:
        return matches[0]
    raise IllegalAction(f"Name one of the teams: {', '.join(state.names)}.")


def _challenge(state: BiggieBillsState, seat: Seat, rest: str) -> Challenge:
    words = rest.split()
    flex = bool(words) and words[-1].lower() in ("flex", "flexible")
    if flex:
        words = words[:-1]
    # The team name may have several words: try the longest prefix that names a team.
    for cut in range(len(words) - 1, 0, -1):
        try:
            team = _team(state, " ".join(words[:cut]))
        except IllegalAction:
            continue
        card = _card(" ".join(words[cut:]), "growth")
        actives = [a for a in state.active if a.owner == team and a.card == card]
        if not actives:
            raise IllegalAction(
                f"{state.names[team]} has no active {growth(card).name} to challenge."
            )
        if flex:
            stage = growth(card).stage
            used = next(f for f, stages in FLEX_STAGES.items() if stage in stages)
            return Challenge(active=actives[0].id, card=used)
        return Challenge(active=actives[0].id, card=challenge_id(card))
    raise IllegalAction(_challenge_usage(state, seat))


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
