"""What each team may do now, and the prices that decide it.

The reducer in ``rules.py`` refuses with the same ``*_problem`` helpers, so ``legal_actions``
and ``apply`` cannot drift apart.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import combinations

from core.engine import Seat
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
    BLOCK,
    FLEX_STAGES,
    IndustryCard,
    acquire_missing,
    card_name,
    catalogue,
    challenge,
    challenge_id,
    challenges_allowed,
    exchange_price,
    fine,
    growth,
    industry,
    is_challenge,
    is_growth,
    percent_of,
    target_percent,
    two_cards,
)
from core.games.biggiebills.state import (
    CHALLENGE_HAND,
    GROWTH_HAND,
    MAX_TARGET,
    MAX_TEAM,
    MIN_TARGET,
    BiggieBillsOptions,
    BiggieBillsState,
)
from core.games.biggiebills.text import join, money, plural, possessive

__all__ = [
    "PROPOSALS",
    "absorbed",
    "accept_options",
    "accept_problem",
    "answering",
    "block_options",
    "block_problem",
    "blocking",
    "card_problem",
    "challenge_card_problem",
    "challenge_options",
    "challenge_problem",
    "challenge_terms_problem",
    "cost_of",
    "cost_under",
    "done_options",
    "done_problem",
    "elsewhere",
    "excess",
    "exchange_options",
    "exchange_problem",
    "growth_options",
    "growth_problem",
    "growth_terms_problem",
    "in_force",
    "lobby_problem",
    "max_plays",
    "may_flex",
    "may_play_on",
    "not_challenged",
    "not_returning",
    "payoff_of",
    "payoff_under",
    "penalty_of",
    "penalty_under",
    "propose_options",
    "propose_problem",
    "propose_shape",
    "return_hint",
    "return_options",
    "return_problem",
    "returning",
    "seat_out",
    "skip_fine",
    "skip_options",
    "skip_problem",
    "stage_open",
    "stages_of",
    "taking_turn",
    "to_return",
    "turn_plays",
    "turn_problem",
    "vote_opened",
    "vote_options",
    "vote_problem",
]


def in_force(state: BiggieBillsState) -> IndustryCard | None:
    return industry(state.industry) if state.industry else None


def cost_of(state: BiggieBillsState, card_id: str) -> int:
    return cost_under(in_force(state), card_id)


def cost_under(rules: IndustryCard | None, card_id: str) -> int:
    """What playing Growth card ``card_id`` costs under the Industry card ``rules``."""
    card = growth(card_id)
    return percent_of(rules, "cost", card.stage, card.cost)


def payoff_of(state: BiggieBillsState, card_id: str, first: bool | None = None) -> int:
    """What completing ``card_id`` pays now: first or later payoff (``first`` None: whichever
    is next), grown with a target above $1B, after the Industry card."""
    if first is None:
        first = card_id not in state.firsts
    return payoff_under(in_force(state), state.target, card_id, first)


def payoff_under(rules: IndustryCard | None, target: int, card_id: str, first: bool) -> int:
    """What completing ``card_id`` pays (its ``first`` payoff or a later one) toward
    ``target`` under the Industry card ``rules``."""
    card = growth(card_id)
    base = card.first if first else card.later
    grown = (base * target_percent(target) + 50) // 100
    return percent_of(rules, "payoff", card.stage, grown)


def penalty_of(state: BiggieBillsState, card_id: str) -> int:
    return penalty_under(in_force(state), card_id)


def penalty_under(rules: IndustryCard | None, card_id: str) -> int:
    """The penalty of challenging Growth card ``card_id`` under the Industry card ``rules``."""
    card = growth(card_id)
    return percent_of(rules, "penalty", card.stage, card.penalty)


def skip_fine(state: BiggieBillsState) -> int:
    return fine(in_force(state))


def max_plays(state: BiggieBillsState) -> int:
    return _max_plays(state.industry)


@cache
def _max_plays(industry_id: str | None) -> int:
    return 2 if two_cards(industry(industry_id) if industry_id else None) else 1


@cache
def _exchange_price(industry_id: str | None) -> int:
    return exchange_price(industry(industry_id) if industry_id else None)


def stage_open(state: BiggieBillsState, seat: Seat, stage: int) -> bool:
    """Stage 1 is always open; a higher stage needs a completed card of the stage below."""
    return stage == 1 or any(growth(c).stage == stage - 1 for c in state.completed[seat])


def stages_of(state: BiggieBillsState, seat: Seat) -> list[int]:
    """Completed Growth cards per stage (index 0 = stage 1)."""
    counts = [0, 0, 0, 0]
    for c in state.completed[seat]:
        counts[growth(c).stage - 1] += 1
    return counts


def turn_problem(state: BiggieBillsState, seat: Seat) -> str | None:
    """Why ``seat`` may make none of a turn's moves now (the turn decision's ``who``), or
    None."""
    if not state.alive[seat]:
        return "Your team is out of the game."
    turn = state.turn_seat
    if turn != seat:
        return f"It is {possessive(state.names[turn or 0])} turn, not yours."
    return None


def _pending_owner(state: BiggieBillsState) -> Seat:
    assert state.pending is not None
    active = state.find_active(state.pending.active)
    assert active is not None
    return active.owner


def elsewhere(state: BiggieBillsState, seat: Seat, action: Action, where: tuple[str, ...]) -> str:
    """Why a move is refused while a decision that does not take it is open: what the game
    waits for instead."""
    if isinstance(action, Block | Accept):
        return "No challenge is waiting to be blocked or accepted."
    if isinstance(action, ReturnCards):
        return "No team is returning cards now."
    if not state.alive[seat]:
        return "Your team is out of the game."
    if isinstance(action, ProposeTarget):
        return "A team proposes a new target on its own turn."
    if state.deciding == "block" and state.pending is not None:
        owner = _pending_owner(state)
        return f"Waiting for {state.names[owner]} to block or accept a challenge."
    if state.deciding == "returns" and state.returns:
        return f"Waiting for {state.names[state.returns[0]]} to return cards after an acquisition."
    return "Your team cannot do that now."


def growth_problem(state: BiggieBillsState, seat: Seat, action: PlayGrowth) -> str | None:
    """Why ``seat`` may not play the Growth card ``action.card`` on its turn, or None."""
    if state.plays_left == 0:
        return "Your team has no Growth or Challenge play left this turn."
    return card_problem(state, seat, action.card, action.target)


def growth_options(state: BiggieBillsState, seat: Seat) -> list[PlayGrowth]:
    """A play of each Growth card in the hand (of Acquire a Competitor, against each team)."""
    plays: list[PlayGrowth] = []
    for card in dict.fromkeys(state.growth[seat]):
        if card == ACQUIRE:
            plays.extend(PlayGrowth(card=card, target=t) for t in state.seats)
        else:
            plays.append(PlayGrowth(card=card))
    return plays


def card_problem(
    state: BiggieBillsState, seat: Seat, card_id: str, target: Seat | None
) -> str | None:
    """Why ``seat`` could not play the Growth card ``card_id`` now even on its turn, or None."""
    if not is_growth(card_id):
        return f"“{card_id}” is not a Growth card."
    if card_id not in state.growth[seat]:
        return f"Your team does not hold {card_name(card_id)}."
    return growth_terms_problem(state, seat, card_id, target)


def growth_terms_problem(
    state: BiggieBillsState, seat: Seat, card_id: str, target: Seat | None
) -> str | None:
    """Why ``seat`` could not play the Growth card ``card_id`` now even if it held it: its
    stage, cost and the rest, all of which everyone can see."""
    name = card_name(card_id)
    if card_id in state.completed[seat]:
        return f"Your team has already completed {name}; each team completes a card only once."
    if any(a.card == card_id and a.owner == seat for a in state.active):
        return f"Your team already has {name} in play."
    stage = growth(card_id).stage
    if not stage_open(state, seat, stage):
        return (
            f"Stage {stage} is not open to your team yet: complete a Stage {stage - 1} Growth "
            "card first."
        )
    if card_id == ACQUIRE:
        if problem := _acquire_problem(state, seat, target):
            return problem
    elif target is not None:
        return f"Only Acquire a Competitor takes a target team; {name} does not."
    cost = cost_of(state, card_id)
    if cost >= state.cash[seat]:
        return (
            f"{name} costs {money(cost)} and your team has {money(state.cash[seat])}: a team "
            "must keep more than $0 after paying."
        )
    return None


def _acquire_problem(state: BiggieBillsState, seat: Seat, target: Seat | None) -> str | None:
    if target is None:
        return "Name the team to acquire."
    if target not in state.seats or target == seat:
        return "Acquire another team at the table."
    if not state.alive[target]:
        return f"{state.names[target]} is already out of the game."
    stages = stages_of(state, seat)
    missing = acquire_missing(stages)
    if missing is not None:
        needed = catalogue().acquisition.stage_cards[missing - 1]
        return (
            "To acquire a competitor your team must have completed stages 1, 2 and 3 "
            f"({_cards(needed)} of each); it has completed {stages[missing - 1]} of stage "
            f"{missing}."
        )
    mine, theirs = state.turn_cash[seat], state.turn_cash[target]
    if 4 * mine < 3 * theirs:
        return (
            f"To acquire {state.names[target]} your team needed at least 75% of its cash at "
            f"the start of this turn: {money(mine)} against {money(theirs)}."
        )
    return None


def _cards(count: int) -> str:
    return plural(count, "Growth card")


def challenge_problem(state: BiggieBillsState, seat: Seat, action: Challenge) -> str | None:
    """Why ``seat`` may not make this challenge on its turn, or None."""
    if action.card in FLEX_STAGES:
        if state.flex_left == 0:
            return "Your team has no Flexible Challenge play left this turn."
    elif state.plays_left == 0:
        return "Your team has no Growth or Challenge play left this turn."
    return challenge_card_problem(state, seat, action.active, action.card)


def challenge_options(state: BiggieBillsState, seat: Seat) -> list[Challenge]:
    """A challenge of each active card with each Challenge card held and each Flexible
    Challenge among the team's Bonus cards."""
    held = list(dict.fromkeys(state.challenges[seat])) + [
        f for f in FLEX_STAGES if f in state.bonus[seat]
    ]
    return [Challenge(active=active.id, card=card) for active in state.active for card in held]


def challenge_card_problem(
    state: BiggieBillsState, seat: Seat, active_id: int, card: str
) -> str | None:
    """Why ``seat`` could not challenge active card ``active_id`` with ``card`` now even on its
    turn, or None."""
    if not challenges_allowed(in_force(state)):
        return "The Industry Rules card in force allows no challenges this cycle."
    flex = card in FLEX_STAGES
    if flex:
        if card not in state.bonus[seat]:
            return f"Your team does not hold a {card_name(card)}."
    else:
        if not is_challenge(card):
            return f"“{card}” is not a Challenge card."
        if card not in state.challenges[seat]:
            return f"Your team does not hold {card_name(card)}."
    return challenge_terms_problem(state, seat, active_id, card)


def challenge_terms_problem(
    state: BiggieBillsState, seat: Seat, active_id: int, card: str
) -> str | None:
    """Why ``seat`` could not challenge active card ``active_id`` with ``card`` now even if it
    held ``card``: the board and what the team has completed, all of which everyone can see."""
    flex = card in FLEX_STAGES
    active = state.find_active(active_id)
    if active is None:
        return f"There is no active Growth card #{active_id} on the board."
    name = card_name(active.card)
    if active.owner == seat:
        return "Your team cannot challenge its own Growth card."
    if active.sealed:
        return f"{name} was protected by a Block a Challenge and cannot be challenged again."
    if seat in active.challengers or seat in active.blocked:
        return f"Your team has already challenged {possessive(state.names[active.owner])} {name}."
    stage = growth(active.card).stage
    if flex:
        if stage not in FLEX_STAGES[card]:
            return f"A {card_name(card)} cannot challenge a Stage {stage} card."
    elif challenge(card).growth != active.card:
        return f"{card_name(card)} does not match {name}."
    if not active.challenged and not any(growth(c).stage == stage for c in state.completed[seat]):
        return (
            f"To be the first to challenge {name} your team must have completed a Stage "
            f"{stage} Growth card."
        )
    return None


def may_flex(state: BiggieBillsState, seat: Seat) -> bool:
    """Whether ``seat`` might use a Flexible Challenge now, judged only by what everyone can
    see: it has a Flexible Challenge play left, holds Bonus cards (their number is public),
    challenges are allowed, and some card on the board is one a Flexible Challenge could
    challenge. The turn waits for such a team whatever its Bonus cards are."""
    if state.flex_left == 0 or not state.bonus[seat] or not challenges_allowed(in_force(state)):
        return False
    flex_stages = {stage for stages in FLEX_STAGES.values() for stage in stages}
    for active in state.active:
        if active.owner == seat or active.sealed or seat in active.challengers + active.blocked:
            continue
        stage = growth(active.card).stage
        if stage not in flex_stages:
            continue
        if active.challenged or any(growth(c).stage == stage for c in state.completed[seat]):
            return True
    return False


def may_play_on(state: BiggieBillsState, seat: Seat) -> bool:
    """Whether ``seat``, on its turn, might still play something, judged only by what everyone
    can see (cash, stages, the board, the plays left and how many cards of each kind it holds),
    never by which cards it holds: some Growth card it could hold that it could play, some
    active card it could challenge with that card's Challenge card, an exchange, or a Flexible
    Challenge (:func:`may_flex`). The turn ends by itself when this is False, so when it ends
    tells nothing about the hand."""
    if may_flex(state, seat) or _can_exchange(state, seat):
        return True
    if state.plays_left == 0:
        return False
    if state.growth[seat]:
        for card in catalogue().growth:
            targets: list[Seat | None] = list(state.seats) if card.id == ACQUIRE else [None]
            if any(growth_terms_problem(state, seat, card.id, t) is None for t in targets):
                return True
    if state.challenges[seat] and challenges_allowed(in_force(state)):
        for active in state.active:
            if challenge_terms_problem(state, seat, active.id, challenge_id(active.card)) is None:
                return True
    return False


def exchange_problem(state: BiggieBillsState, seat: Seat, action: Exchange) -> str | None:
    """Why ``seat`` may not exchange ``action.cards`` on its turn, or None."""
    cards = action.cards
    if state.plays_left < max_plays(state):
        return "An exchange is a whole turn: your team has already played a card this turn."
    if len(cards) != 2:
        return f"Exchange exactly two cards; you named {len(cards)}."
    growth_hand, challenge_hand = state.growth[seat], state.challenges[seat]
    for card in dict.fromkeys(cards):
        count = cards.count(card)
        held = card in growth_hand or card in challenge_hand
        if not held or (count > 1 and growth_hand.count(card) + challenge_hand.count(card) < count):
            what = card_name(card) if is_growth(card) or is_challenge(card) else f"“{card}”"
            copies = " two copies of" if count > 1 else ""
            return f"Your team does not hold{copies} {what} (only Growth and Challenge cards)."
    price = _exchange_price(state.industry)
    if price and price >= state.cash[seat]:
        return (
            f"An exchange costs {money(price)} and your team has {money(state.cash[seat])}: a "
            "team must keep more than $0 after paying."
        )
    return None


def skip_problem(state: BiggieBillsState, seat: Seat, action: Skip) -> str | None:
    """Why ``seat`` may not skip its turn, or None."""
    if state.acted:
        return "Your team has already acted this turn: end it with done."
    return None


def done_problem(state: BiggieBillsState, seat: Seat, action: Done) -> str | None:
    """Why ``seat`` may not end its turn, or None."""
    if not state.acted:
        return f"Your team has not acted yet: play a card, or skip for {money(skip_fine(state))}."
    return None


def not_challenged(state: BiggieBillsState, seat: Seat) -> str | None:
    """Why ``seat`` may not answer the pending challenge (the block decision's ``who``)."""
    owner = _pending_owner(state)
    if seat != owner:
        return (
            f"Only {state.names[owner]}, the challenged team, may block or accept this challenge."
        )
    return None


def block_problem(state: BiggieBillsState, seat: Seat, action: Block) -> str | None:
    """Why the challenged team may not block: it holds no Block a Challenge card."""
    if BLOCK not in state.bonus[seat]:
        return "Your team holds no Block a Challenge card."
    return None


def accept_problem(state: BiggieBillsState, seat: Seat, action: Accept) -> str | None:
    """The challenged team may always accept."""
    return None


PROPOSALS = (-500, 500, 1000)
"""The new targets offered as choices, relative to the target in force (any other may be
typed)."""


def propose_problem(state: BiggieBillsState, seat: Seat, action: ProposeTarget) -> str | None:
    """Why ``seat`` may not propose ``action.target`` as the new target now, or None."""
    target = action.target
    if not state.alive[seat]:
        return "Your team is out of the game."
    if state.deciding != "turn" or state.turn_seat != seat:
        return "A team proposes a new target on its own turn."
    if state.vote is not None:
        return f"A vote on a target of {money(state.vote.target)} is open already."
    if state.proposed.get(seat) == state.cycle:
        return "Your team has proposed a target this cycle already."
    if not MIN_TARGET <= target <= MAX_TARGET:
        return f"A target is from {money(MIN_TARGET)} to {money(MAX_TARGET)}."
    if target == state.target:
        return f"The target is {money(target)} already."
    richest = max(state.living(), key=lambda s: state.cash[s])
    if target <= state.cash[richest]:
        return (
            f"A new target must be above every team's cash: {state.names[richest]} has "
            f"{money(state.cash[richest])}."
        )
    return None


def vote_problem(state: BiggieBillsState, seat: Seat, action: Vote | None = None) -> str | None:
    """Why ``seat`` may not answer the open vote on a new target now, or None."""
    if state.finished:
        return "This game is over."
    if state.vote is None:
        return "No new target is being voted on."
    if seat not in state.seats:
        return "Only a seated team can do that."
    if not state.alive[seat]:
        return "Your team is out of the game."
    if seat in state.vote.agreed:
        return f"Your team has agreed to a target of {money(state.vote.target)} already."
    return None


def vote_options(state: BiggieBillsState, seat: Seat) -> list[Vote]:
    """Agree or refuse, while a vote is open."""
    return [_AGREE, _REFUSE] if state.vote is not None else []


def propose_options(state: BiggieBillsState, seat: Seat) -> list[ProposeTarget]:
    """The targets offered as choices (:data:`PROPOSALS` from the one in force), and when none
    of them may be proposed, the smallest that may: any other may be typed."""
    if state.turn_seat != seat:
        return []  # a team proposes on its own turn
    offered = [ProposeTarget(target=state.target + step) for step in PROPOSALS]
    if any(propose_problem(state, seat, a) is None for a in offered):
        return offered
    richest = max((state.cash[s] for s in state.living()), default=0)
    lowest = ProposeTarget(target=max(MIN_TARGET, richest + 1))
    return [*offered, lowest]


def propose_shape(action: ProposeTarget) -> object:
    """A proposal is one choice whatever target is typed (the offers list a few)."""
    return "target"


def excess(state: BiggieBillsState, seat: Seat) -> tuple[int, int]:
    """Growth and Challenge cards ``seat`` holds above 6 and 4."""
    return (
        max(0, len(state.growth[seat]) - GROWTH_HAND),
        max(0, len(state.challenges[seat]) - CHALLENGE_HAND),
    )


def not_returning(state: BiggieBillsState, seat: Seat) -> str | None:
    """Why ``seat`` may not return cards now (the returns decision's ``who``), or None."""
    if not state.returns:
        return "No team is returning cards now."
    if state.returns[0] != seat:
        return f"Only {state.names[state.returns[0]]} returns cards now."
    return None


def return_problem(state: BiggieBillsState, seat: Seat, action: ReturnCards) -> str | None:
    """Why ``seat`` may not return ``action.cards`` now: after an acquisition a team returns
    all its extra Growth cards at once, and all its extra Challenge cards at once (a kind at a
    time, as its two menus do)."""
    cards = action.cards
    held = Counter(state.growth[seat] + state.challenges[seat])
    wanted = Counter(cards)
    for card, count in wanted.items():
        if count > held[card]:
            copies = "that many copies of " if held[card] else ""
            return f"Your team does not hold {copies}“{card_name(card)}”."
    extra_growth, extra_challenge = excess(state, seat)
    growth_count = sum(count for card, count in wanted.items() if is_growth(card))
    challenge_count = len(cards) - growth_count
    if (
        not cards
        or growth_count not in (0, extra_growth)
        or challenge_count not in (0, extra_challenge)
    ):
        return return_hint(state, seat)
    if growth_count and challenge_count:
        return (
            "Return the extra cards of one kind at a time: the Growth cards, then the "
            f"Challenge cards ({to_return(state, seat)})."
        )
    return None


def to_return(state: BiggieBillsState, seat: Seat) -> str:
    """The extra cards ``seat`` still has to return: ``6 Growth cards and 1 Challenge card``."""
    extra_growth, extra_challenge = excess(state, seat)
    kinds = [
        plural(count, f"{kind} card")
        for count, kind in ((extra_growth, "Growth"), (extra_challenge, "Challenge"))
        if count
    ]
    return " and ".join(kinds)


def return_hint(state: BiggieBillsState, seat: Seat) -> str:
    """What ``seat`` still has to return, as a sentence."""
    return (
        f"Return exactly {to_return(state, seat)}, so that your team keeps {GROWTH_HAND} Growth "
        f"and {CHALLENGE_HAND} Challenge cards."
    )


def return_options(state: BiggieBillsState, seat: Seat) -> list[ReturnCards]:
    """Every way to return all the extra cards of one kind (copies of a card are alike)."""
    extra_growth, extra_challenge = excess(state, seat)
    options: list[ReturnCards] = []
    for hand, extra in (
        (state.growth[seat], extra_growth),
        (state.challenges[seat], extra_challenge),
    ):
        if extra:
            chosen = dict.fromkeys(combinations(sorted(hand), extra))
            options += [ReturnCards(cards=list(cards)) for cards in chosen]
    return options


def taking_turn(state: BiggieBillsState) -> list[Seat]:
    """Whom a turn waits for: the team on turn, while it may still act (skip before it has
    acted, end its turn after)."""
    return [s for s in state.seats if turn_problem(state, s) is None]


def blocking(state: BiggieBillsState) -> list[Seat]:
    """Whom a block window waits for: the challenged team (which may always accept)."""
    return [_pending_owner(state)] if state.pending is not None else []


def returning(state: BiggieBillsState) -> list[Seat]:
    """Whom the returns after an acquisition wait for: the first team still to return cards."""
    if not state.returns:
        return []
    first = state.returns[0]
    return [first] if return_options(state, first) else []


def turn_plays(state: BiggieBillsState, seat: Seat) -> list[PlayGrowth | Challenge]:
    """The Growth, Challenge and Flexible Challenge plays ``seat`` may make on its turn (the
    declared moves' offers that their checks pass)."""
    return [
        *(a for a in growth_options(state, seat) if growth_problem(state, seat, a) is None),
        *(a for a in challenge_options(state, seat) if challenge_problem(state, seat, a) is None),
    ]


def _can_exchange(state: BiggieBillsState, seat: Seat) -> bool:
    hand = state.growth[seat] + state.challenges[seat]
    return len(hand) >= 2 and exchange_problem(state, seat, Exchange(cards=hand[:2])) is None


def exchange_options(state: BiggieBillsState, seat: Seat) -> list[Exchange]:
    """Every pair of Growth and Challenge cards in the hand (copies of a card are alike), when
    the team may exchange at all (judged by its first two cards: what the pair does not decide,
    its plays and its cash)."""
    if not _can_exchange(state, seat):
        return []
    hand = sorted(state.growth[seat] + state.challenges[seat])
    pairs = dict.fromkeys(
        (hand[i], hand[j]) for i in range(len(hand)) for j in range(i + 1, len(hand))
    )
    return [_exchange(a, b) for a, b in pairs]


@cache
def _exchange(first: str, second: str) -> Exchange:
    # Made once a pair (actions are frozen: one object may be offered to every team).
    return Exchange(cards=[first, second])


def skip_options(state: BiggieBillsState, seat: Seat) -> list[Skip]:
    return [_SKIP]


def done_options(state: BiggieBillsState, seat: Seat) -> list[Done]:
    return [_DONE]


def block_options(state: BiggieBillsState, seat: Seat) -> list[Block]:
    return [_BLOCK]


def accept_options(state: BiggieBillsState, seat: Seat) -> list[Accept]:
    return [_ACCEPT]


# Offered whatever the state (actions are frozen: one object will do for every seat and game).
_SKIP, _DONE, _BLOCK, _ACCEPT = Skip(), Done(), Block(), Accept()
_AGREE, _REFUSE = Vote(agree=True), Vote(agree=False)


def answering(state: BiggieBillsState) -> list[Seat]:
    """The teams that may answer the open vote on a new target."""
    return [s for s in state.seats if vote_problem(state, s) is None]


def vote_opened(state: BiggieBillsState) -> int | None:
    """The vote stands from its proposal until it is settled."""
    return state.vote.opened if state.vote is not None else None


def seat_out(state: BiggieBillsState, seat: Seat) -> bool:
    """Bankrupt or acquired: the team has left the game."""
    return not state.alive[seat]


def absorbed(state: BiggieBillsState) -> dict[Seat, Seat]:
    """With acquired=join an acquired team's people play on for the acquirer."""
    return dict(state.acquired_by) if state.options.acquired == "join" else {}


def lobby_problem(
    options: BiggieBillsOptions, seat_sizes: list[int], seat_names: list[str]
) -> str | None:
    """Human teams too small for ``min_team_size``, or larger than the document's largest."""
    seats = list(zip(seat_names, seat_sizes, strict=True))
    small = [(name, size) for name, size in seats if 0 < size < options.min_team_size]
    if small:
        teams = join([f"{name} has {plural(size, 'person', 'people')}" for name, size in small])
        return (
            f"Every human team needs at least {options.min_team_size} people "
            f"(min_team_size): {teams}. Bot teams are fine."
        )
    large = [(name, size) for name, size in seats if size > MAX_TEAM]
    if large:
        teams = join([f"{name} has {size}" for name, size in large])
        return f"A team has at most {MAX_TEAM} people: {teams}."
    return None
