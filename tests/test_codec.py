"""Button ids: everything a press needs, in at most 100 characters, and nothing else parses."""

from __future__ import annotations

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
        placeholder="Pick", options=[], action={"type": "pick"}, field="cards", version=3, seat=0
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
