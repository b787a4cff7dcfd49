"""What the authority hands back to an adapter: messages to send and the live board to refresh."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from core import ui

__all__ = ["Delivery", "Form", "Outbox"]


class Delivery(BaseModel):
    """One message for one audience.

    ``channel``: a public post. ``ephemeral``: a private reply to the user who sent the command
    (only they see it). ``dm``: a direct message to ``user`` (private information for a player
    who did not send the command, e.g. new cards dealt after someone else's move).
    """

    to: Literal["channel", "ephemeral", "dm"]
    user: str | None = None
    message: ui.Message


class Form(BaseModel):
    """A form for the presser to fill in (a modal): its answer completes ``command``, which is
    then sent to the game of ``channel`` as if typed (``/<game> <command> <answer>``)."""

    game: str
    channel: str
    command: str
    ask: ui.Ask


class Outbox(BaseModel):
    """Everything one command produced for one channel."""

    platform: str
    channel: str
    game: str | None = None
    table: str | None = None
    """Which game of the channel this is (the game and its first version): adapters keep facts
    that hold for one game, such as "told once that your DMs are closed", under it."""
    deliveries: list[Delivery] = Field(default_factory=list)
    board: ui.Message | None = None
    """When set, the channel's live board message should show this (edited in place)."""
    version: int | None = None
    """The game state's version the board shows; adapters draw a board only if no newer one
    was drawn (``GameStore.claim_board``), so concurrent deliveries never leave an old board."""
    board_fresh: bool = False
    """A game has just begun: post a new board message rather than editing the last one."""
    unavailable: bool = False
    """Storage could not be reached; nothing was applied."""
    duplicate: bool = False
    """The delivery was seen before (a platform retry or a double submit) and was not applied."""
    form: Form | None = None
    """Open this form for the presser (and nothing else: a modal must be the first answer)."""

    def post(self, message: ui.Message) -> None:
        self.deliveries.append(Delivery(to="channel", message=message))

    def reply(self, user: str, message: ui.Message | str) -> None:
        self.deliveries.append(Delivery(to="ephemeral", user=user, message=_as_message(message)))

    def dm(self, user: str, message: ui.Message | str) -> None:
        self.deliveries.append(Delivery(to="dm", user=user, message=_as_message(message)))

    def private(self, requester: str | None, user: str, message: ui.Message | str) -> None:
        """A private message: an ephemeral reply to the requester, a DM to anyone else."""
        if user == requester:
            self.reply(user, message)
        else:
            self.dm(user, message)

    @property
    def public(self) -> list[ui.Message]:
        return [d.message for d in self.deliveries if d.to == "channel"]


def _as_message(message: ui.Message | str) -> ui.Message:
    return message if isinstance(message, ui.Message) else ui.Message(text=message)
