"""Platform-neutral messages: the live team progress board and a team's private panel."""

from __future__ import annotations

from collections.abc import Sequence

from core import ui
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
from core.games.biggiebills.cards import BONUS_NAMES, FLEX_STAGES, card_name, exchange_price, growth
from core.games.biggiebills.hand import card_marks, card_summary, hand_text, unplayable
from core.games.biggiebills.legal import (
    cost_of,
    excess,
    in_force,
    payoff_of,
    penalty_of,
    return_hint,
    skip_fine,
    vote_problem,
)
from core.games.biggiebills.rules import FLOW
from core.games.biggiebills.state import BiggieBillsState
from core.games.biggiebills.text import join, money, plural, possessive
from core.games.biggiebills.view import ActiveView, BiggieBillsView, TeamView

__all__ = ["TARGET_FORM", "describe_action", "render_board", "render_private", "render_prompt"]


def render_board(
    state: BiggieBillsState, public: BiggieBillsView, pictured: bool = False
) -> ui.Message:
    """The live team progress board, built from the public view only. ``pictured``: the
    board's picture draws the race (each team's money toward the target, its completed stages
    and bonus cards), so each team's line is its money and whether it is to play or out; the
    Growth cards in play keep their numbers, penalties and protection, which the picture does
    not give."""
    names = [t.name for t in public.teams]
    grown = f" · payoffs {public.payoff_percent}%" if public.payoff_percent != 100 else ""
    head = [f"Business Cycle {public.cycle} · target {money(public.target)}{grown}"]
    industry = public.industry
    head.append(
        f"Industry Rules: {industry.name}. {industry.text}"
        if industry
        else "Industry Rules: none in force."
    )
    if public.order:
        head.append("Order: " + " → ".join(names[s] for s in public.order) + " (twice)")
    if public.vote is not None and not public.outcome:
        vote = public.vote
        waiting = [t.name for t in public.teams if t.alive and t.seat not in vote.agreed]
        head.append(
            f"Vote on a new target of {money(vote.target)} ({possessive(names[vote.proposer])} "
            f"proposal): agreed {join([names[s] for s in vote.agreed])}; waiting for "
            f"{join(waiting)}."
        )
    whose = _whose_move(public, names)
    if whose:
        head.append(whose)
    lines = [_active_line(a, names) for a in public.active]
    head.append("Active Growth cards:\n" + "\n".join(lines) if lines else "No active Growth cards.")
    fields = [_team_field(public, t, pictured) for t in public.teams]
    return ui.Message(title="BiggieBills$$$", text="\n".join(head), fields=fields)


def _whose_move(public: BiggieBillsView, names: list[str]) -> str:
    """The result, or whom the game waits for (a block, returns, a team's turn)."""
    if public.outcome:
        return public.outcome.summary
    if public.phase == "block" and public.pending:
        pending = public.pending
        owner = next(a.owner for a in public.active if a.id == pending.active)
        return (
            f"Waiting for {names[owner]} to block or accept "
            f"{possessive(names[pending.challenger])} challenge."
        )
    if public.phase == "returns":
        return f"Waiting for {names[public.returns[0]]} to return extra cards."
    if public.turn is not None:
        return (
            f"Turn {public.turn_index + 1} of {2 * len(public.order)}: "
            f"{names[public.turn]} to play."
        )
    return ""


def _active_line(a: ActiveView, names: list[str]) -> str:
    """An active Growth card: its owner, target, stage, payoff, penalty, challengers."""
    status = ""
    if a.challengers:
        status = " · challenged by " + join([names[s] for s in a.challengers])
    if a.sealed:
        status += " · protected"
    target = f" → {names[a.target]}" if a.target is not None else ""
    return (
        f"#{a.id} {names[a.owner]}: {a.name}{target} (S{a.stage}, pays "
        f"{money(a.payoff)}, penalty {money(a.penalty)}){status}"
    )


def _team_field(public: BiggieBillsView, t: TeamView, pictured: bool) -> ui.Field_:
    """A team's line: out, or its money (and, unless the picture shows them, its stages and
    bonus cards), and whether it is to play."""
    if not t.alive:
        return ui.Field_(name=t.name, value=f"{t.cash_text} · out ({t.out})")
    playing = " · to play" if public.turn == t.seat and public.phase == "turn" else ""
    if pictured:
        return ui.Field_(name=t.name, value=t.cash_text + playing)
    stages = " ".join(f"S{i + 1}:{n}" for i, n in enumerate(t.stages))
    value = (
        f"{t.cash_text} · completed {stages} · bonus cards {t.bonus_cards}"
        f" (earned {t.bonus_earned})"
    )
    return ui.Field_(name=t.name, value=value + playing)


def render_private(state: BiggieBillsState, seat: Seat) -> ui.Message:
    """The team's hand and a control for each of its legal actions (for every member)."""
    lines = [hand_text(state, seat), f"Your team has {money(state.cash[seat])}."]
    if state.vote is not None and vote_problem(state, seat) is None:
        vote = state.vote
        lines.append(
            f"{state.names[vote.proposer]} proposes a new target of {money(vote.target)}: agree "
            "or refuse on the vote in the game's thread (typed: `target yes` or `target no`)."
        )
    legal = FLOW.legal_actions(state, seat)
    # A vote on a new target is answered on the public prompt, not here.
    proposals = [a for a in legal if isinstance(a, ProposeTarget)]
    legal = [a for a in legal if not isinstance(a, Vote | ProposeTarget)]
    title = f"BiggieBills$$$: {state.names[seat]}"
    if state.deciding == "returns" and legal:
        lines.append(f"Your acquisition is complete. {return_hint(state, seat)}")
        return ui.Message(title=title, text="\n".join(lines), selects=_return_menus(state, seat))
    asked = _asked_line(state, seat, legal)
    if asked:
        lines.append(asked)
    buttons, selects = _private_controls(state, seat, legal, proposals)
    rows = ui.rows(buttons)
    return ui.Message(title=title, text="\n".join(lines), buttons=rows, selects=selects)


def _asked_line(state: BiggieBillsState, seat: Seat, legal: list[Action]) -> str:
    """What the team is asked: a challenge to block or accept, its turn, or to wait."""
    if state.deciding == "block" and legal:
        pending = state.pending
        assert pending is not None
        challenger = state.names[pending.challenger]
        if any(isinstance(a, Block) for a in legal):
            return (
                f"{challenger} challenges your card: block it (they pay you "
                f"{money(pending.penalty)}) or accept (you pay them {money(pending.penalty)})."
            )
        return (
            f"{challenger} challenges your card. Your team holds no Block a Challenge card, "
            f"so accept it (you pay them {money(pending.penalty)}); the channel is not told."
        )
    if legal:
        return _turn_line(state, seat, legal)
    if not state.finished and state.alive[seat]:
        return _waiting(state)
    return ""


def _private_controls(
    state: BiggieBillsState, seat: Seat, legal: list[Action], proposals: list[ProposeTarget]
) -> tuple[list[ui.Button], list[ui.Select]]:
    """The team's choices as buttons and menus, within the platforms' limits."""
    exchanges = [a for a in legal if isinstance(a, Exchange)]
    others = [a for a in legal if not isinstance(a, Exchange)]
    # Too many for buttons: the simple answers and acquisitions stay buttons, Growth plays and
    # challenges become a menu each, beside the exchange menu.
    # With no card to play, ending the turn (or skipping) is what the team is asked for.
    stuck = not any(isinstance(a, PlayGrowth | Challenge) for a in legal)
    buttons, selects = ui.controls(
        others,
        lambda a: _button(state, seat, a, stuck),
        lambda a: (
            type(a).__name__
            if isinstance(a, PlayGrowth | Challenge) and getattr(a, "target", None) is None
            else None
        ),
        lambda _kind, members: _menus(state, seat, members),
        other_menus=1 if exchanges else 0,
    )
    if exchanges:
        selects.append(
            ui.Select(
                placeholder=f"Exchange two cards ({money(_exchange_price(state))})",
                options=_tagged(state, seat, state.growth[seat] + state.challenges[seat]),
                action={"type": "exchange", "cards": []},
                field="cards",
                version=state.version,
                seat=seat,
                min_values=2,
                max_values=2,
            )
        )
    if proposals and len(buttons) < (ui.MAX_ROWS - len(selects)) * ui.ROW:
        # A new target: an amount of the team's own, as a form (the typed `target 2500`).
        buttons.append(ui.Button(label="Propose a new target…", command="target", ask=True))
    return buttons, selects


TARGET_FORM = ui.Ask(
    title="A new target",
    label="The new target in $ millions (2000 = $2B)",
    placeholder="2000",
    max_length=12,
)
"""The form a target button opens (``target <amount>``)."""


def _turn_line(state: BiggieBillsState, seat: Seat, legal: list[Action]) -> str:
    """What the team on turn is asked: its plays left, or, when no card in its hand can be
    played, why not and what the game waits for."""
    flexible = any(c in FLEX_STAGES for c in state.bonus[seat])
    if any(isinstance(a, PlayGrowth | Challenge) for a in legal):
        plays = f"Your turn: {plural(state.plays_left, 'Growth/Challenge play')} left"
        if flexible:
            plays += f" and {plural(state.flex_left, 'Flexible Challenge play')}"
        return plays + "."
    why = "; ".join(unplayable(state, seat))
    nothing = f"Nothing in your hand can be played now: {why}." if why else "Your hand is empty."
    exchange = any(isinstance(a, Exchange) for a in legal)
    price = money(_exchange_price(state))
    if not state.acted:
        if exchange:
            return f"{nothing} Exchange two cards ({price}) or skip the turn ({_fine(state)})."
        return f"{nothing} Skip the turn ({_fine(state)})."
    # The turn waits, though nothing can be played: the other teams must not learn that.
    secret = (
        "that your team holds no Flexible Challenge it can use"
        if state.plays_left == 0
        else "that nothing in your hand can be played"
    )
    end = f"Exchange two cards ({price}) or end your turn" if exchange else "End your turn"
    return (
        f"{nothing} The game does not end your turn by itself, since the other teams would "
        f"learn from it {secret}. {end} when you are ready."
    )


def _fine(state: BiggieBillsState) -> str:
    fine = skip_fine(state)
    return f"a {money(fine)} fine" if fine else "no fine this cycle"


def _waiting(state: BiggieBillsState) -> str:
    """What a team not asked anything reads: no name, since the panel is not redrawn as the
    turns pass (the board says whose turn it is)."""
    if state.deciding == "block":
        return "Nothing for your team to do: a challenged team is deciding (see the board)."
    if state.deciding == "returns":
        return "Nothing for your team to do: an acquirer is returning extra cards."
    return ui.idle(team=True)


def _tagged(state: BiggieBillsState, seat: Seat, cards: list[str]) -> list[ui.SelectOption]:
    """Menu options for cards in a hand, each described as the hand describes it (stage, cost,
    payoffs, penalty, marks); two copies of a card are told apart as ``id#1``, ``id#2`` (the
    action drops the tags)."""
    seen: dict[str, int] = {}
    options = []
    for card, marks in zip(cards, card_marks(state, seat, cards), strict=True):
        seen[card] = seen.get(card, 0) + 1
        described = " · ".join([card_summary(state, card), *(m.split(":")[0] for m in marks)])
        options.append(
            ui.SelectOption(
                label=ui.fit(card_name(card)),
                value=f"{card}#{seen[card]}",
                description=ui.fit(described),
            )
        )
    return options[: ui.MAX_OPTIONS]


def _return_menus(state: BiggieBillsState, seat: Seat) -> list[ui.Select]:
    """After an acquisition: one menu per kind of card the team holds too many of."""
    extra_growth, extra_challenge = excess(state, seat)
    menus = []
    for kind, hand, extra in (
        ("Growth", state.growth[seat], extra_growth),
        ("Challenge", state.challenges[seat], extra_challenge),
    ):
        if extra:
            menus.append(
                ui.Select(
                    placeholder=f"Return {plural(extra, f'{kind} card')}",
                    options=_tagged(state, seat, hand),
                    action={"type": "return", "cards": []},
                    field="cards",
                    version=state.version,
                    seat=seat,
                    min_values=extra,
                    max_values=extra,
                )
            )
    return menus


def _exchange_price(state: BiggieBillsState) -> int:
    return exchange_price(in_force(state))


def _button(state: BiggieBillsState, seat: Seat, action: Action, stuck: bool) -> ui.Button:
    """``stuck``: no card can be played, so End turn is the prominent button."""
    style: ui.Style = "secondary"
    if isinstance(action, PlayGrowth | Block) or (stuck and isinstance(action, Done)):
        style = "primary"
    elif isinstance(action, Challenge):
        style = "danger"
    return ui.Button(
        label=ui.fit(describe_action(state, action)),
        style=style,
        action=action.model_dump(mode="json"),
        version=state.version,
        seat=seat,
    )


def _menus(state: BiggieBillsState, seat: Seat, actions: Sequence[Action]) -> list[ui.Select]:
    """A menu of Growth plays and a menu of challenges (more menus past 25 options)."""
    plays = [
        ui.SelectOption(label=ui.fit(describe_action(state, a)), value=a.card)
        for a in actions
        if isinstance(a, PlayGrowth)
    ]
    challenges = [
        ui.SelectOption(label=ui.fit(describe_action(state, a)), value=f"{a.active}|{a.card}")
        for a in actions
        if isinstance(a, Challenge)
    ]
    return [
        *ui.menus("Play a Growth card", plays, {"type": "play"}, "card", state.version, seat),
        *ui.menus(
            "Challenge an active card",
            challenges,
            {"type": "challenge"},
            "choice",
            state.version,
            seat,
        ),
    ]


def render_prompt(state: BiggieBillsState) -> ui.Message | None:
    """The open vote on a new target, answered in public by every team still in the game
    (every other decision is one team's, in its private panel)."""
    vote = state.vote
    if vote is None or state.finished:
        return None
    target = money(vote.target)
    agreed = [state.names[s] for s in vote.agreed]
    waiting = [state.names[s] for s in state.living() if s not in vote.agreed]
    head = (
        f"{state.names[vote.proposer]} proposes a new target of {target} (now "
        f"{money(state.target)}). It takes effect when every team still in the game agrees; "
        "one refusal, or the end of this cycle, ends the vote."
    )
    lines = [head, f"Agreed: {join(agreed)}."]
    closed = "\n".join([head, "The vote is over."])
    if waiting:
        lines.append(f"Waiting for {join(waiting)}.")
    buttons = [
        ui.Button(
            label=describe_action(state, Vote(agree=agree)),
            style="primary" if agree else "secondary",
            action=Vote(agree=agree).model_dump(mode="json"),
            version=vote.opened,
        )
        for agree in (True, False)
    ]
    return ui.Message(
        title=f"A new target of {target}?",
        text="\n".join(lines),
        buttons=[buttons],
        closed_text=closed,
    )


def describe_action(state: BiggieBillsState, action: Action) -> str:
    """A short label for buttons and the log. A hand card is named only in the labels a team
    sees privately; plays name cards that the play makes public anyway."""
    if isinstance(action, PlayGrowth):
        card = growth(action.card)
        if action.target is not None and 0 <= action.target < len(state.names):
            return f"Acquire {state.names[action.target]} ({money(cost_of(state, action.card))})"
        return (
            f"Play {card.name} (S{card.stage}, {money(cost_of(state, action.card))} → "
            f"{money(payoff_of(state, action.card))})"
        )
    if isinstance(action, Challenge):
        active = state.find_active(action.active)
        if active is None:
            return f"Challenge #{action.active}"
        flex = " (Flexible)" if action.card in BONUS_NAMES else ""
        return (
            f"Challenge {possessive(state.names[active.owner])} {card_name(active.card)}{flex} "
            f"(+{money(penalty_of(state, active.card))})"
        )
    if isinstance(action, Exchange):
        return "Exchange " + join([card_name(c) for c in action.cards])
    if isinstance(action, Skip):
        return "Skip (pay the fine)"
    if isinstance(action, Done):
        return "End turn"
    if isinstance(action, Block):
        return "Block the challenge"
    if isinstance(action, Accept):
        return "Accept the challenge"
    if isinstance(action, ReturnCards):
        return "Return " + join([card_name(c) for c in action.cards])
    if isinstance(action, ProposeTarget):
        return f"Propose a target of {money(action.target)}"
    if isinstance(action, Vote):
        vote = state.vote
        target = f" {money(vote.target)}" if vote is not None else ""
        return f"Agree to the{target} target" if action.agree else f"Refuse the{target} target"
    return "Time is up"
