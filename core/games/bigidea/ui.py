"""Platform-neutral messages: the public board, a seat's private panel, the venture prompt."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from core import ui
from core.engine import Seat
from core.games.bigidea.actions import (
    PITCH_LIMIT,
    Action,
    Invest,
    Pass,
    Pick,
    Pitch,
    Point,
    Withdraw,
)
from core.games.bigidea.cards import product_name, product_sentence
from core.games.bigidea.legal import can_pick, has_pick_option, invest_cost, may_pitch
from core.games.bigidea.rules import FLOW
from core.games.bigidea.state import BigIdeaState
from core.games.bigidea.text import join, money, pick_line, plural, point_line
from core.games.bigidea.view import BigIdeaView, ProductView, seat_view
from core.text import clip, possessive

__all__ = ["describe_action", "render_board", "render_private", "render_prompt"]

_PHASE_TITLES = {
    "pick": "Seed phase: everyone picks a product in secret",
    "venture": "Venture phase: everyone points in secret",
    "mezzanine": "Mezzanine phase: invest, withdraw or pass in turn",
    "over": "Game over",
}


def _chit_owners(public: BigIdeaView, chits: list[int]) -> str:
    names = [p.name for p in public.players]
    return ", ".join(f"{names[s]} {n}" for s, n in enumerate(chits) if n) or "none"


_HEADING = "Products on the table:"


def _product_line(public: BigIdeaView, p: ProductView, sentence: bool, owners: bool) -> str:
    """One product on the board: its number, owner and name (a pitch is a post of its own, so
    the board only says there is one), then at most its sentence and whose chits are on it."""
    pitched = p.new and p.pitch is not None  # (an old pitch is old news)
    tags = [tag for tag, shown in (("new", p.new), ("pitched", pitched)) if shown]
    line = f"#{p.id} {possessive(public.players[p.owner].name)} {p.name}"
    line += f" ({', '.join(tags)})" if tags else ""
    line += f": {p.sentence}" if sentence else "."
    if owners:
        return f"{line} Chits {p.total_chits}: {_chit_owners(public, p.chits)}."
    return f"{line} Chits {p.total_chits}."


def _products(public: BigIdeaView, room: int, owners: bool = True) -> str:
    """The products in at most ``room`` characters, whatever the names and however many.

    Each step drops the least important detail left until the list fits: the sentences of the
    older products (the story told them at their reveal), then every sentence (the pointing
    prompt spells out the new ones), then whose chits are where (the invest buttons give the
    prices). Failing all that (two dozen products of players with the longest names), the
    oldest products are counted rather than listed.
    """
    if not public.products:
        return "No products."
    # (Which products show their sentence, whether chit owners are named.)
    steps: list[tuple[Literal["all", "new", "none"], bool]] = [
        ("all", True),
        ("new", True),
        ("none", True),
        ("none", False),
    ]
    if not owners:  # (the picture shows them, and each product's cards)
        steps = [("new", False), ("none", False)]
    lines: list[str] = []
    for sentences, owners in steps:
        lines = [
            _product_line(public, p, sentences == "all" or (sentences == "new" and p.new), owners)
            for p in public.products
        ]
        text = "\n".join([_HEADING, *lines])
        if len(text) <= room:
            return text
    # The newest products (this round's among them) matter most: keep those that fit.
    kept: list[str] = []
    for index, line in enumerate(reversed(lines)):
        left = len(lines) - index  # this line and those older than it
        older = [] if left == 1 else [f"… and {plural(left - 1, 'older product')}."]
        if len("\n".join([_HEADING, *older, line, *kept])) > room:
            # (The line before made sure that this count fits before it.)
            kept.insert(0, f"… and {plural(left, 'older product')}.")
            break
        kept.insert(0, line)
    return clip("\n".join([_HEADING, *kept]), room)


def render_board(state: BigIdeaState, public: BigIdeaView, pictured: bool = False) -> ui.Message:
    """The live board, built from the public view only; its text fits :data:`ui.MAX_BOARD`
    whatever the names, the pitches and the number of products. ``pictured``: the board's
    picture draws each player's money, chits and cards and each product's cards and chits, so
    the text leaves out the players' lines, whose chits are where and the sentences of the
    older products (the story told them); each product keeps its number (for a typed move) and
    a new one its sentence, which the picture does not give."""
    names = [p.name for p in public.players]
    head = [f"Round {public.round} of {public.rounds} · Dealer: {names[public.dealer]}"]
    head.append(_PHASE_TITLES[public.phase])
    if public.outcome:
        head.append(public.outcome.summary)
    elif public.waiting_for and public.phase != "venture":
        # (While pointing, the pointing prompt says whom the phase waits for.)
        head.append("Waiting for " + join([names[s] for s in public.waiting_for]) + ".")
    foot = (
        f"Deck: {plural(public.deck_size, 'card')} · "
        f"Discards: {plural(public.discard_size, 'card')}"
    )
    # Everything but the products is short by design (at most six names): they get the rest.
    room = ui.MAX_BOARD - len("\n".join([*head, foot])) - 2
    text = "\n".join([*head, _products(public, room, owners=not pictured), foot])
    fields = []
    for p in [] if pictured else public.players:
        value = f"{p.money_text} · {plural(p.chits, 'chit')} · {plural(p.hand_size, 'card')}"
        if public.turn == p.seat:
            value += " · to play"
        fields.append(ui.Field_(name=p.name, value=value))
    return ui.Message(title="The Big Idea", text=clip(text, ui.MAX_BOARD), fields=fields)


def render_private(state: BigIdeaState, seat: Seat) -> ui.Message:
    """The seat's hand, its pending pick or vote, and the controls for its legal actions."""
    # The seat's own part of the view; money and chits are public anyway.
    own = seat_view(state, seat)
    hand = own.hand
    kinds = {1: "item", 2: "description"}
    lines = ["Your hand:"] + [f"• {c.name} ({kinds[c.type]}): {c.text}" for c in hand]
    lines.append(f"You have {money(state.money[seat])} and {plural(state.chits[seat], 'chit')}.")
    selects: list[ui.Select] = []
    buttons: list[ui.Button] = []
    opts = state.options
    legal = FLOW.asked(state, seat) if state.deciding == "mezzanine" else []
    if state.deciding == "pick" and not state.finished and has_pick_option(state, seat):
        if own.pick:
            lines.append(pick_line(own.pick))
        wanted = (
            f"one item and up to {opts.max_pick - 1} descriptions"
            if opts.larger_products
            else "two cards: an item and a description"
        )
        selects.append(
            ui.Select(
                placeholder=f"Pick {wanted}",
                options=[
                    ui.SelectOption(label=c.name, value=c.id, description=ui.fit(c.text))
                    for c in hand
                ],
                action=Pick(cards=[]).model_dump(mode="json"),
                field="cards",
                version=state.version,
                seat=seat,
                min_values=opts.min_pick,
                max_values=min(opts.max_pick, len(hand)),
            )
        )
    elif state.deciding == "venture":
        if own.voted:
            target = own.vote
            lines.append(point_line("nobody" if target is None else state.names[target]))
        if may_pitch(state, seat):
            # The pointing is revealed the moment the last player points, pitched or not: say
            # so plainly, so that an owner who wants to pitch does it first.
            when = (
                "Pitches close as soon as everyone has pointed."
                if own.voted
                else "Pitch before you point: the pointing is revealed (and pitches close) as "
                "soon as everyone has pointed."
            )
            lines.append(
                f"You may pitch your new product to the table (up to {PITCH_LIMIT} characters): "
                f"press Pitch it, or type `/bigidea pitch <text>`. {when}"
            )
            buttons.append(ui.Button(label="Pitch it…", style="primary", command="pitch", ask=True))
    elif state.deciding == "mezzanine" and legal:
        lines.append("Your turn: invest a chit, withdraw one of yours, or pass.")
        # Too many choices for buttons: a menu per kind, Pass stays a button.
        buttons, selects = ui.controls(
            legal,
            lambda a: _button(state, seat, a),
            lambda a: None if isinstance(a, Pass) else type(a).__name__,
            lambda _kind, members: _menus(state, seat, members),
        )
    elif state.deciding == "pick" and not can_pick(state, seat):
        lines.append("You have too few cards to make a product this round.")
    elif state.deciding == "mezzanine":
        lines.append(ui.idle())
    return ui.Message(
        title=f"The Big Idea: {state.names[seat]}",
        text="\n".join(lines),
        buttons=ui.rows(buttons),
        selects=selects,
    )


PITCH_FORM = ui.Ask(
    title="Your pitch",
    label="Sell your new product to the table",
    placeholder="It keeps your beer cold and your heart warm…",
    max_length=PITCH_LIMIT,
    long=True,
)


def _button(state: BigIdeaState, seat: Seat, action: Action) -> ui.Button:
    return ui.Button(
        label=ui.fit(describe_action(state, action)),
        style="primary" if isinstance(action, Invest) else "secondary",
        action=action.model_dump(mode="json"),
        version=state.version,
        seat=seat,
    )


def _menus(state: BigIdeaState, seat: Seat, legal: Sequence[Action]) -> list[ui.Select]:
    menus = []
    for kind, placeholder in (
        (Invest, "Invest a chit in..."),
        (Withdraw, "Withdraw a chit from..."),
    ):
        options = [
            ui.SelectOption(label=ui.fit(describe_action(state, a)), value=str(a.product))
            for a in legal
            if isinstance(a, kind)
        ]
        action = {"type": kind.model_fields["type"].default}
        menus += ui.menus(placeholder, options, action, "product", state.version, seat)
    return menus


def render_prompt(state: BigIdeaState) -> ui.Message | None:
    """During the venture phase: one public message with a button per new product."""
    if state.deciding != "venture":
        return None
    buttons = []
    for product in state.products:
        if not product.new:
            continue
        owner = state.names[product.owner]
        buttons.append(
            ui.Button(
                label=ui.fit(f"Point at {owner}: {product_sentence(product.cards)}"),
                style="primary",
                action=Point(seat=product.owner).model_dump(mode="json"),
                version=state.version,
            )
        )
    buttons.append(
        ui.Button(
            label="Point at nobody",
            action=Point(seat=None).model_dump(mode="json"),
            version=state.version,
        )
    )
    to_point = [state.names[s] for s in state.seats if s not in state.votes]
    lines = [
        "Point in secret at the player whose new product gets your chit. Owners may pitch "
        "until everyone has pointed."
    ]
    # Labels may be cut to fit a button, so the full products are spelled out here.
    lines += [
        f"• {state.names[p.owner]}: {product_sentence(p.cards)}" for p in state.products if p.new
    ]
    closed = "\n".join([*lines, "Pointing is over: everyone has pointed or time ran out."])
    if to_point:
        lines.append(f"Waiting for {join(to_point)} to point.")
    return ui.Message(
        title="Venture phase",
        text="\n".join(lines),
        buttons=ui.rows(buttons),
        closed_text=closed,
    )


def describe_action(state: BigIdeaState, action: Action) -> str:
    """A short label. Secret choices (pick, pointing) are described without their content,
    because labels may reach a public log."""
    if isinstance(action, Pick):
        return f"Pick {plural(len(action.cards), 'card')}"
    if isinstance(action, Point):
        return "Point in secret"
    if isinstance(action, Pitch):
        return "Pitch"
    if isinstance(action, Pass):
        return "Pass"
    if isinstance(action, Invest | Withdraw):
        product = state.product(action.product)
        name = product_name(product.cards) if product else f"product #{action.product}"
        owner = f"{possessive(state.names[product.owner])} " if product else ""
        if isinstance(action, Withdraw):
            return f"Withdraw from {owner}{name}"
        seat = state.turn_seat
        price = ""
        if product is not None and seat is not None:
            price = f" ({money(sum(invest_cost(state, product, seat)))})"
        return f"Invest in {owner}{name}{price}"
    return "Time is up"
