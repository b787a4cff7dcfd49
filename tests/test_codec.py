"""Button ids: everything a press needs, in at most 100 characters, and nothing else parses."""

from __future__ import annotations

import logging

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.commands import codec
from core import ui


def test_button_round_trip_with_and_without_channel() -> None:
    button = ui.Button(label="Invest", action={"type": "invest", "product": 12}, version=57, seat=2)
    for channel in (None, "1234567890123456789"):
        press = codec.decode(codec.encode_button("bigidea", button, channel))
        assert press is not None
        assert (press.game, press.channel, press.version, press.seat) == ("bigidea", channel, 57, 2)
        assert press.resolved_action() == {"type": "invest", "product": 12}


def test_select_fills_its_field() -> None:
    select = ui.Select(
        placeholder="Pick",
        options=[ui.SelectOption(label=c, value=c) for c in ("cat", "frozen")],
        action={"type": "pick"},
        field="cards",
        version=3,
        seat=0,
    )
    press = codec.decode(codec.encode_select("bigidea", select, "C1"), ["cat", "frozen"])
    assert press is not None and press.channel == "C1"
    assert press.resolved_action() == {"type": "pick", "cards": ["cat", "frozen"]}


def test_command_button() -> None:
    press = codec.decode(codec.encode_button("bigidea", ui.Button(label="Join", command="join")))
    assert press is not None and press.command == "join" and press.action is None


def test_too_long_is_refused_at_encoding() -> None:
    button = ui.Button(label="x", action={"type": "pitch", "text": "y" * 100}, version=1)
    try:
        codec.encode_button("bigidea", button)
    except ValueError as error:
        assert "longer than 100" in str(error)
    else:
        raise AssertionError("a 100+ character id was accepted")


@given(st.text(max_size=120))
def test_garbage_never_raises(text: str) -> None:
    press = codec.decode(text)
    assert press is None or text.startswith("br1|")
    assert codec.seat_of(text) is None or text.startswith("br1|")


def test_the_seat_is_read_without_decoding_the_action_and_agrees_with_decode() -> None:
    select = ui.Select(
        placeholder="Bid",
        options=[ui.SelectOption(label="$100,000", value="100000")],
        action={"type": "bid"},
        field="amount",
        version=4,
    )
    ids = [
        codec.encode_button(
            "businessgo", ui.Button(label="Roll", action={"type": "roll"}, version=4)
        ),
        codec.encode_button(
            "businessgo", ui.Button(label="Roll", action={"type": "roll"}, version=4, seat=3)
        ),
        codec.encode_select("businessgo", select.model_copy(update={"seat": 12}), "C1"),
        codec.encode_select("businessgo", select),
        codec.encode_button("businessgo", ui.Button(label="Bid…", command="bid", ask=True)),
    ]
    seats = [codec.seat_of(i) for i in ids]
    assert seats == [None, 3, 12, None, None]
    assert seats == [p.seat if (p := codec.decode(i)) is not None else None for i in ids]


def test_an_id_too_long_as_json_is_written_compactly_and_decodes_the_same() -> None:
    # BiggieBills' longest choices: a Stage 4 challenge, in a DM (the id names a 19-digit
    # channel), at a 5-digit version; as JSON these ids run past 100 characters.
    challenge = {"active": 136, "card": "challenge_international_expansion", "type": "challenge"}
    play = {"card": "initial_public_offering", "target": None, "type": "play"}
    for action in (challenge, play):
        button = ui.Button(label="x", action=action, version=99_999, seat=7)
        for channel in (None, "1234567890123456789", "C0123456789"):
            custom_id = codec.encode_button("biggiebills", button, channel)
            assert len(custom_id) <= codec.MAX_ID_LENGTH
            press = codec.decode(custom_id)
            assert press is not None
            assert (press.channel, press.version, press.seat) == (channel, 99_999, 7)
            # A trailing default (target=None) is left out; the action model fills it back in.
            assert {"target": None, **(press.resolved_action() or {})} == {"target": None, **action}


def test_ids_use_the_compact_form_and_old_json_ids_still_decode() -> None:
    button = ui.Button(label="x", action={"type": "roll"}, version=5, seat=0)
    custom_id = codec.encode_button("businessgo", button, "1234567890123456789")
    assert custom_id == 'br1|a|businessgo|~9do1sj396nf9|5|0|["roll"]'
    # A button posted before the compact form existed still works.
    old = 'br1|a|businessgo|1234567890123456789|5|0|{"type":"roll"}'
    for posted in (custom_id, old):
        press = codec.decode(posted)
        assert press is not None and press.resolved_action() == {"type": "roll"}
        assert press.channel == "1234567890123456789"


def test_a_compact_tail_of_an_unknown_action_is_garbage() -> None:
    assert codec.decode('br1|a|biggiebills||3|0|["no-such-action",1]') is None
    assert codec.decode('br1|a|biggiebills||3|0|["skip",1,2,3]') is None
    assert codec.decode('br1|a|biggiebills|~!!|3|0|["skip"]') is None


def test_one_message_never_holds_two_equal_ids() -> None:
    # Busine$$ GO's Travel Agency shows 26 countries as two menus of one choice.
    menu = ui.Select(
        placeholder="Go to",
        options=[ui.SelectOption(label="Japan", value="japan")],
        action={"type": "x"},
        field="to",
        version=4,
    )
    ids = codec.MessageIds("bigidea", "123456789012345678")
    made = [ids.select(menu), ids.select(menu), ids.select(menu)]
    assert len(set(made)) == 3
    for custom_id in made:
        press = codec.decode(custom_id, ["Japan"])
        assert press is not None and press.field == "to" and press.values == ["Japan"]
        assert press.channel == "123456789012345678" and press.version == 4
    button = ui.Button(label="Join", command="join")
    first, second = ids.button(button), ids.button(button)
    assert first != second and codec.decode(second) == codec.decode(first)


def test_a_slot_is_digits_only() -> None:
    good = codec.encode_button("bigidea", ui.Button(label="Join", command="join"), slot=2)
    assert codec.decode(good) is not None
    assert codec.decode(good.replace("|c2|", "|cx|")) is None


@given(
    depth=st.integers(min_value=0, max_value=20_000),
    opening=st.sampled_from(["[", '{"a":', '["play",']),
    kind=st.sampled_from(["a|bigidea||1||", "s|bigidea||1||cards|"]),
)
def test_an_id_nested_or_long_past_anything_made_here_decodes_to_nothing(
    depth: int, opening: str, kind: str
) -> None:
    """A press carries whatever the sender wrote: reading it is bounded (the length, then the
    depth), and json's recursion is never reached."""
    closing = "}" if opening.startswith("{") else "]"
    custom_id = f"br1|{kind}{opening * depth}1{closing * depth}"
    press = codec.decode(custom_id)
    if len(custom_id) > codec.MAX_DECODED_LENGTH or depth > codec.MAX_DEPTH:
        assert press is None
    assert codec.seat_of(custom_id) is None or custom_id.startswith("br1|")


# --- binding: the ids of one message where it is shown ---------------------------------------


def _panel() -> ui.Message:
    """A message with two buttons and two menus of one meaning each (as Busine$$ GO's Travel
    Agency shows 26 countries), and a button of another meaning."""
    join = ui.Button(label="Join", command="join")
    menu = ui.Select(
        placeholder="Go to",
        options=[ui.SelectOption(label="Japan", value="japan")],
        action={"type": "x"},
        field="to",
        version=4,
        seat=1,
    )
    invest = ui.Button(label="Invest", action={"type": "invest", "product": 12}, version=57)
    return ui.Message(text="Choose.", buttons=[[join, join], [invest]], selects=[menu, menu])


def _ids(message: ui.Message) -> list[str | None]:
    return [b.custom_id for b in message.all_buttons()] + [s.custom_id for s in message.selects]


def test_binding_gives_every_control_its_own_id_in_its_place() -> None:
    message = _panel()
    bound = codec.bind(message, "bigidea")
    ids = _ids(bound)
    assert None not in ids and len(set(ids)) == len(ids)  # twins get slots of their own
    presses = [codec.decode(custom_id or "", ["japan"]) for custom_id in ids]
    assert [p.command if p else None for p in presses[:2]] == ["join", "join"]
    assert presses[2] is not None and presses[2].action == {"type": "invest", "product": 12}
    assert all(p is not None and p.field == "to" and p.seat == 1 for p in presses[3:])
    assert all(p is not None and p.channel is None for p in presses)
    # The message given is not changed, and the ids are not content: a digest is the same.
    assert _ids(message) == [None] * 5
    from bot.table import digest

    assert digest(bound) == digest(message)


def test_a_message_bound_outside_its_channel_acts_on_that_channel() -> None:
    """Shown in a DM (or a private answer), pressing acts on the game of the channel named."""
    bound = codec.bind(_panel(), "bigidea", "123456789012345678")
    for custom_id in _ids(bound):
        press = codec.decode(custom_id or "", ["japan"])
        assert press is not None and press.channel == "123456789012345678"
        assert press.game == "bigidea"


def test_a_control_whose_id_cannot_fit_is_left_unbound_and_said(
    caplog: pytest.LogCaptureFixture,
) -> None:
    long = ui.Button(label="Pitch", action={"type": "pitch", "text": "y" * 80}, version=1)
    message = ui.Message(text="Go.", buttons=[[ui.Button(label="Join", command="join"), long]])
    with caplog.at_level(logging.WARNING, logger="bot.commands.codec"):
        bound = codec.bind(message, "bigidea", limit=60)
    assert bound.buttons[0][0].custom_id == "br1|c|bigidea||join"
    assert bound.buttons[0][1].custom_id is None
    assert "'Pitch' of bigidea does not fit an id of 60 characters" in caplog.text
    # Within a wider limit (Slack's) it fits.
    assert codec.bind(message, "bigidea", limit=249).buttons[0][1].custom_id is not None


def test_a_message_without_controls_is_bound_as_it_is() -> None:
    message = ui.Message(text="Nothing to press.")
    assert codec.bind(message, "bigidea", "C1") is message
