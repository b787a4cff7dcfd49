"""A sensible bot team: it reads only its own view and chooses from the legal actions.

It plays like a decent human team. It weighs every Growth card by what it pays, what a
challenge would cost and how likely one is (judged from what everyone can see: who could be a
first challenger, who still has a turn before the card completes, how many Challenge and Bonus
cards each rival holds), and never risks a play whose challenge would bankrupt it unless it has
no safer choice. It challenges when the penalty and the damage to a rival are worth it and a
block could not bankrupt it, stops acquisitions whenever it can (its own above all), keeps
clear of the cash test that would let a rival take it over, exchanges rather than skips, and
takes over a competitor when that is worth more than its other plays. Every choice reads only
the seat's own view, so it answers at once whatever it holds.
"""

from __future__ import annotations

from core.engine import Rng
from core.games.biggiebills.actions import (
    Accept,
    Action,
    Block,
    Challenge,
    Done,
    Exchange,
    PlayGrowth,
    ReturnCards,
    Skip,
    Vote,
)
from core.games.biggiebills.cards import (
    ACQUIRE,
    FLEX_STAGES,
    acquire_ready,
    challenge_id,
    challenges_allowed,
    industry,
)
from core.games.biggiebills.view import ActiveView, BiggieBillsView, GrowthView, TeamView

__all__ = ["RESERVE", "bot_action"]

RESERVE = 15
"""$M a bot keeps after a play beyond the penalties it could have to pay (a cushion)."""
HOLD = 1 / 24
"""The share of the Challenge deck that is one card's Challenge card (2 of 48, 4 of 96): the
chance that one unknown Challenge card in a rival's hand is the one that matches."""
FLEX_HELD = 0.15
"""The chance that a Bonus card a rival holds is a Flexible Challenge for a given stage."""
STAGE_PREMIUM = 20
"""$M a bot adds per stage for the first card of a stage (it opens the next one)."""
PROGRESS = 0.25
"""The share of a payoff a bot adds for the turn used to grow (the race to the target)."""
BONUS_WORTH = 25
"""$M a bot adds for a completion that earns a Bonus card."""
WAIT = 15
"""$M a bot would give up rather than wait a turn (exchanging) for a safer moment, per rival
beyond two: at a big table a safer moment hardly ever comes."""
EXPOSED = 0.5
"""The share of its cash a bot would give to stay out of a rival's reach: a rival able to
acquire holds the card about a quarter of the time, and an acquired team loses the game."""
ACQUIRE_DEFENCE = 1000.0
"""What stopping an acquisition of its own team is worth to a bot: everything."""


def bot_action(view: BiggieBillsView, legal: list[Action], rng: Rng) -> Action:
    if not legal:
        raise ValueError("bot_action needs at least one legal action")
    if view.you is None:
        raise ValueError("a bot plays from a seat's own view, not the channel's")
    votes = [a for a in legal if isinstance(a, Vote)]
    if votes:
        return _vote(view, votes)
    if any(isinstance(a, Block) for a in legal):
        return next(a for a in legal if isinstance(a, Block))
    if all(isinstance(a, Accept) for a in legal):
        return legal[0]
    if isinstance(legal[0], ReturnCards):
        return _choose_return(view, [a for a in legal if isinstance(a, ReturnCards)])
    return _choose_turn(view, legal, rng)


# --- what everyone can see ---------------------------------------------------------------------


def _me(view: BiggieBillsView) -> TeamView:
    assert view.you is not None
    return view.teams[view.you]


def _hand(view: BiggieBillsView) -> list[GrowthView]:
    assert view.hand is not None, "a bot plays from a seat's own view"
    return view.hand.growth


def _rivals(view: BiggieBillsView) -> list[TeamView]:
    return [t for t in view.teams if t.alive and t.seat != view.you]


def _still_to_play(view: BiggieBillsView) -> list[int]:
    """The teams with a turn before a card played now completes: before this team's next turn,
    or before the cycle ends (none on the cycle's last turn)."""
    n = len(view.order)
    if n == 0:
        return []
    later = range(view.turn_index + 1, min(view.turn_index + n, 2 * n))
    return [view.order[i % n] for i in later if view.order[i % n] != view.you]


def _holds(team: TeamView, stage: int) -> float:
    """The chance that ``team`` holds a card able to challenge a given card of ``stage``: its
    Challenge card, or a Flexible Challenge for the stage (a quarter of the Bonus deck, less
    among the cards a team keeps: Flexible Challenges are soon used)."""
    miss = (1 - HOLD) ** team.challenge_cards * (1 - FLEX_HELD) ** team.bonus_cards
    return 1 - miss


def _challenge_chance(view: BiggieBillsView, stage: int, challenged: bool = False) -> float:
    """How likely a card of ``stage`` played now is to be challenged before it completes."""
    if view.industry is not None and not challenges_allowed(industry(view.industry.id)):
        return 0.0
    miss = 1.0
    for seat in set(_still_to_play(view)):
        team = view.teams[seat]
        if not team.alive:
            continue
        if not challenged and team.stages[stage - 1] == 0:
            continue  # not eligible as a first challenger
        miss *= 1 - _holds(team, stage)
    return 1 - miss


def _challengers(view: BiggieBillsView, stage: int) -> int:
    """How many teams a challenged card of ``stage`` may have to pay: once a card has been
    challenged, the later challengers need no completed card of the stage, so the teams with a
    turn left that may hold a matching card can all join in."""
    expected = sum(
        _holds(view.teams[s], stage) for s in set(_still_to_play(view)) if view.teams[s].alive
    )
    return max(1, round(expected))


def _exposure(view: BiggieBillsView) -> int:
    """Penalties this team could still be made to pay for its own cards in play."""
    return sum(
        a.penalty for a in view.active if a.owner == view.you and not a.challengers and not a.sealed
    )


def _acquirers(view: BiggieBillsView) -> list[TeamView]:
    """Rivals that may take this team over on their next turn, by what everyone can see."""
    return [
        t
        for t in _rivals(view)
        if acquire_ready(t.stages) and ACQUIRE not in {c.id for c in t.completed}
    ]


def _vulnerable(view: BiggieBillsView, cash: int) -> bool:
    """With ``cash``, a rival able to acquire would pass the 75% cash test against this team."""
    return any(4 * t.cash >= 3 * cash for t in _acquirers(view))


# --- values of the plays -------------------------------------------------------------------------


def _growth_value(view: BiggieBillsView, card: GrowthView) -> float | None:
    """What playing ``card`` is worth, or None when a challenge could bankrupt the team."""
    me = _me(view)
    chance = _challenge_chance(view, card.stage)
    left = me.cash - card.cost
    penalties = card.penalty * _challengers(view, card.stage)
    if chance > 0 and left - _exposure(view) - penalties <= 0:
        return None
    value = (1 - chance) * (card.payoff + _progress(me, card)) - card.cost
    value -= chance * penalties
    if me.cash > 4 * RESERVE and min(left, left - _exposure(view) - penalties) < RESERVE:
        value -= 40  # too little left for fines, exchanges and the Industry cards' charges
    if not _vulnerable(view, me.cash) and _vulnerable(view, left):
        value -= EXPOSED * me.cash  # spending would let a rival take the team over
    return value


def _progress(me: TeamView, card: GrowthView) -> float:
    """What completing ``card`` is worth beyond its payoff: a turn of the race used well, a new
    stage opened (the first card of a stage opens the next), a Bonus card earned (the third
    and fourth of a stage)."""
    worth = PROGRESS * card.payoff
    done = me.stages[card.stage - 1]
    if done == 0:
        worth += STAGE_PREMIUM * card.stage
    if done in (2, 3):
        worth += BONUS_WORTH
    return worth


def _owner_may_block(owner: TeamView) -> float:
    """The chance that ``owner`` holds a Block a Challenge (half the Bonus deck is Blocks)."""
    return 1 - 0.5**owner.bonus_cards


def _challenge_value(view: BiggieBillsView, action: Challenge) -> float | None:
    """What a challenge is worth, or None when a block of it could bankrupt the team."""
    active = next(a for a in view.active if a.id == action.active)
    owner = view.teams[active.owner]
    me = _me(view)
    block = _owner_may_block(owner)
    if active.card == ACQUIRE:
        return _stop_acquisition_value(view, active, block)
    if block > 0 and me.cash - active.penalty <= 0:
        return None
    leader = max(t.cash for t in view.teams if t.alive)
    damage = 0.0 if active.challengers else 0.5 * active.payoff
    if owner.cash == leader:
        damage *= 1.5
    return (1 - block) * (active.penalty + damage) - block * active.penalty


def _stop_acquisition_value(
    view: BiggieBillsView, active: ActiveView, block: float
) -> float | None:
    """Stopping a take-over: vital when this team is the target, and well worth it otherwise
    (the acquirer would gain a quarter of the target's cash, its cards and a rival fewer)."""
    if active.target == view.you:
        return ACQUIRE_DEFENCE
    me = _me(view)
    if block > 0 and me.cash - active.penalty <= 0:
        return None
    target = view.teams[active.target] if active.target is not None else None
    gain = active.payoff + (target.cash // 4 if target is not None else 0)
    return (1 - block) * (active.penalty + gain) - block * active.penalty + 50


def _acquire_value(view: BiggieBillsView, action: PlayGrowth) -> float | None:
    """What a take-over gains: the payoff less the cost plus a quarter of the target's cash, and
    something for putting a rival out (more for the richest). None when a challenge could
    bankrupt the team."""
    assert action.target is not None
    target = view.teams[action.target]
    card = next(c for c in _hand(view) if c.id == action.card)
    me = _me(view)
    chance = _challenge_chance(view, card.stage)
    if chance > 0 and me.cash - card.cost - _exposure(view) - card.penalty <= 0:
        return None
    richest = max(t.cash for t in _rivals(view))
    rival = 80.0 if target.cash >= richest else 40.0
    win = (1 - chance) * (card.payoff + target.cash // 4 + rival)
    return win - card.cost - chance * card.penalty


def _choose_turn(view: BiggieBillsView, legal: list[Action], rng: Rng) -> Action:
    scored = [(value, a) for a in legal if (value := _play_value(view, a)) is not None]
    if scored:
        best = max(value for value, _ in scored)
        if best > -WAIT * max(1, len(_rivals(view)) - 2):  # rather than wait for a safer turn
            return rng.choice([a for value, a in scored if value == best])
    return _no_good_play(view, legal, rng)


def _play_value(view: BiggieBillsView, action: Action) -> float | None:
    """What a play or a challenge is worth to the team (None: neither)."""
    if isinstance(action, PlayGrowth) and action.target is not None:
        return _acquire_value(view, action)
    if isinstance(action, PlayGrowth):
        hand = {c.id: c for c in _hand(view)}
        return _growth_value(view, hand[action.card])
    if isinstance(action, Challenge):
        value = _challenge_value(view, action)
        if value is not None and action.card in FLEX_STAGES:
            value += 5  # a Flexible Challenge does not use the turn's play
        return value
    return None


def _no_good_play(view: BiggieBillsView, legal: list[Action], rng: Rng) -> Action:
    """No play worth its risk: end the turn, exchange or skip, whichever costs least."""
    done = next((a for a in legal if isinstance(a, Done)), None)
    if done is not None:
        return done
    exchange = _choose_exchange(view, legal)
    if exchange is not None and view.exchange_price <= view.skip_fine:
        return exchange
    skip = next((a for a in legal if isinstance(a, Skip)), None)
    if skip is not None and view.skip_fine < _me(view).cash:
        return skip
    # Skipping would bankrupt the team: an exchange, or else any play, is better than that,
    # even one that a challenge or a block could make it pay for.
    if exchange is not None:
        return exchange
    plays = [a for a in legal if isinstance(a, PlayGrowth | Challenge)]
    if plays:
        return rng.choice(plays)
    return skip or legal[-1]


# --- cards worth keeping -----------------------------------------------------------------------


def _growth_worth(view: BiggieBillsView, card: GrowthView, seen: set[str]) -> float:
    me = _me(view)
    done = {c.id for c in me.completed}
    mine = {a.card for a in view.active if a.owner == view.you}
    if card.id in done or card.id in seen or card.id in mine:
        return 0.0
    worth = float(card.payoff - card.cost) + 5
    reachable = card.stage == 1 or me.stages[card.stage - 2] > 0
    if not reachable:
        below = card.stage - 1 == 1 or me.stages[card.stage - 3] > 0
        worth *= 0.6 if below else 0.2
    if card.cost >= me.cash:
        worth *= 0.5
    if card.id == ACQUIRE:
        worth = max(worth, 40.0)
    return worth


def _challenge_worth(view: BiggieBillsView, card: str, stage: int, seen: set[str]) -> float:
    me = _me(view)
    if card == challenge_id(ACQUIRE):
        return 200.0 if _acquirers(view) else 30.0  # the team's defence against a take-over
    worth = 10.0 + 5 * stage
    if me.stages[stage - 1] == 0:
        worth *= 0.5  # not yet eligible as a first challenger
    if card in seen:
        worth *= 0.7
    return worth


def _worths(view: BiggieBillsView) -> dict[str, list[float]]:
    """Each hand card's worth to the team (a list per card id: copies are worth less)."""
    assert view.hand is not None
    out: dict[str, list[float]] = {}
    seen: set[str] = set()
    for g in view.hand.growth:
        out.setdefault(g.id, []).append(_growth_worth(view, g, seen))
        seen.add(g.id)
    seen = set()
    for c in view.hand.challenges:
        out.setdefault(c.id, []).append(_challenge_worth(view, c.id, c.stage, seen))
        seen.add(c.id)
    return out


def _cost_of(worths: dict[str, list[float]], cards: list[str]) -> float:
    """What giving back ``cards`` loses (the cheapest copies first)."""
    pool = {k: sorted(v) for k, v in worths.items()}
    total = 0.0
    for card in cards:
        values = pool.get(card) or [50.0]
        total += values.pop(0)
    return total


def _choose_exchange(view: BiggieBillsView, legal: list[Action]) -> Exchange | None:
    exchanges = [a for a in legal if isinstance(a, Exchange)]
    if not exchanges:
        return None
    worths = _worths(view)
    return min(exchanges, key=lambda a: (_cost_of(worths, list(a.cards)), a.cards))


def _choose_return(view: BiggieBillsView, legal: list[ReturnCards]) -> ReturnCards:
    """Give back the cards worth least: ones the team cannot use, then the smallest payoffs."""
    worths = _worths(view)
    return min(legal, key=lambda a: (_cost_of(worths, list(a.cards)), a.cards))


# --- votes ---------------------------------------------------------------------------------------


def _vote(view: BiggieBillsView, votes: list[Vote]) -> Vote:
    """A bot agrees to a new target that helps it, by the public board alone: a higher one
    (more time to catch up) when it is not the richest team, a lower one when it is."""
    vote = view.vote
    assert vote is not None
    me = _me(view)
    richest = max(t.cash for t in view.teams if t.alive)
    leading = me.cash >= richest
    agree = vote.proposer == view.you or (vote.target > view.target) != leading
    return next((v for v in votes if v.agree == agree), votes[0])
