"""Who sits where once a team game is being played: join requests, out seats, absorbed seats.

A team's hand is its secret, so during play (:attr:`core.engine.Game.teams`):

- ``join <team>`` asks the team: its members (and the host) get the request privately, with
  Accept and Decline buttons (the ``admit`` command); the first yes seats the asker, who only
  then sees the team's hand. A decline, or nobody answering, leaves them out. The request is
  kept in the record (:class:`~bot.commands.record.JoinRequest`) until it is answered, replaced
  by the asker's next request, withdrawn (``leave``) or its team is out of the game.
- Each request messages every member of a team, so one person may ask at most
  :data:`MAX_REQUESTS` times in :data:`REQUEST_WINDOW_S`, and not again to a team that declined
  them within it; asking again the team already asked sends nothing. What they asked lately is
  in the record (:class:`~bot.commands.record.Asked`), so every worker counts the same.
- A team with nobody in it (a bot team) is taken over at once, as before requests existed.
- A player who left a team during play joins no other team in that game (their own may take
  them back, with the same yes as anyone).
- A seat the game says is out (:meth:`~core.engine.Game.seat_out`) takes nobody and is not
  listed among the teams playing.
- After every action, the people of a seat the game has newly absorbed
  (:meth:`~core.engine.Game.absorbed`: an acquired team) move to the seat that absorbed it, in
  the same save (:func:`absorb`, then :func:`show_moved` once the panels are drawn).

The lobby (before ``begin``) is :mod:`bot.commands.seats.lobby`; leaving and the host's moves are
:mod:`bot.commands.seats.roster`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from bot.commands.game import boardnotes
from bot.commands.game.actionlog import Entry
from bot.commands.game.play import show_board
from bot.commands.grammar import CommandError
from bot.commands.guards import (
    game_of,
    not_seated,
    require_game,
    require_room,
    running_state,
)
from bot.commands.outbox import Outbox
from bot.commands.record import Asked, GameRecord, JoinRequest, Member
from bot.commands.seats import teams
from bot.commands.step import Change, Env, Refusal, Request, Step
from core import text as markup
from core import ui
from core.engine import GameLike, GameState, Seat

__all__ = [
    "MAX_REQUESTS",
    "REQUEST_WINDOW_S",
    "Moved",
    "absorb",
    "admit",
    "board_picture",
    "join_running",
    "open_requests",
    "playing",
    "playing_list",
    "redraw",
    "require_open",
    "show_moved",
    "withdraw",
]

_NO = {"no", "decline", "deny", "refuse"}
_YES = {"yes", "accept", "ok"}
_NUMBER = re.compile(r"^#(\d+)$")
_MENTION = re.compile(r"^<@!?([A-Za-z0-9]+)(?:\|[^>]*)?>$")

MAX_REQUESTS = 3
"""How many requests to join a team one person may make within :data:`REQUEST_WINDOW_S`
(answered, withdrawn and replaced ones count): each messages every member of the team asked."""
REQUEST_WINDOW_S = 600.0
"""Ten minutes: the window of :data:`MAX_REQUESTS`, and how long a team that declined someone
is not asked by them again."""


# --- which seats play --------------------------------------------------------------------------


def playing(game: GameLike, record: GameRecord, state: GameState | None) -> list[int]:
    """The seats still in the game (every seat before the game has a state)."""
    if state is None:
        return list(range(len(record.seats)))
    return [seat for seat in range(len(record.seats)) if not game.seat_out(state, seat)]


def playing_list(
    game: GameLike, record: GameRecord, state: GameState | None, members: bool = False
) -> str:
    """``Sharks, Owls`` (with ``members``: ``Sharks (Alice, Bob); Owls (bot)``)."""
    seats = [record.seats[seat] for seat in playing(game, record, state)]
    if members:
        return teams.team_list(seats)
    return ", ".join(seat.name for seat in seats)


def require_open(game: GameLike, record: GameRecord, state: GameState, seat: int) -> None:
    """The team at ``seat`` is still in the game (nobody may join a team that is out)."""
    if game.seat_out(state, seat):
        raise Refusal(
            f"{record.seats[seat].name} is out of the game, so nobody can join it; the teams "
            f"playing are {playing_list(game, record, state)}."
        )


def _panel(
    game: GameLike,
    record: GameRecord,
    state: GameState,
    seat: int,
    note: str,
    panel: ui.Message | None = None,
) -> ui.Message:
    """The seat's private panel (``panel``, or drawn now) under a private ``note``."""
    if panel is None:
        panel = game.render_private(state, seat)
        if seat in game.waiting_for(state):
            panel = panel.model_copy(update={"deadline": record.deadline_due})
    return panel.model_copy(update={"text": f"{note}\n{panel.text}".strip()})


def board_picture(record: GameRecord, out: Outbox) -> str | None:
    """The stored state to draw the board's picture from, when the deployment draws pictures
    (``out.pictures``) and the game was begun with them; None: the board is text only."""
    return record.state_json if out.pictures and record.pictures else None


def redraw(game: GameLike, record: GameRecord, state: GameState, out: Outbox) -> None:
    """The board and prompt as they are, so that the table shows the news in the log (at the
    board's foot) now rather than at the next move (or moves the board down, for a notice)."""
    due = record.deadline_due
    prompt = game.render_prompt(state)
    out.prompt = prompt.model_copy(update={"deadline": due}) if prompt is not None else None
    out.prompt_id = game.prompt_version(state) if prompt is not None else None
    show_board(game.at(state), out, due, board_picture(record, out))
    out.board = boardnotes.with_notes(out.board, record)
    out.version = state.version


# --- joining a team that is playing ------------------------------------------------------------


def join_running(
    env: Env,
    game: GameLike,
    record: GameRecord,
    req: Request,
    current: int | None,
    target: int | None,
    out: Outbox,
) -> Change:
    """``join <team>`` once the game has begun: take over a bot team at once, or ask a team of
    people to let the requester in."""
    if not game.teams:
        raise Refusal(not_seated(record, req.user, joining=True))
    state = running_state(record)
    if current is not None:
        mine = record.seats[current].name
        if game.seat_out(state, current):
            raise Refusal(
                f"{mine} is out of the game, so you watch the rest of it; the host can move you "
                f"to a team that is playing with `/{game.name} move`."
            )
        raise Refusal(
            f"You play for {mine}; during a game the host moves players between teams with "
            f"`/{game.name} move`."
        )
    if target is None:
        raise Refusal(
            "This game has already begun, so no new team can be formed; you can ask to join one "
            f"of the teams playing: {playing_list(game, record, state)} "
            f"(`/{game.name} join <team>`)."
        )
    home = _home(game, record, state, req.user)
    if home is not None and home[1] != target:
        left, back = home
        again = (
            f"; `/{game.name} join {record.seats[back].name}` asks them to take you back"
            if back is not None
            else ""
        )
        raise Refusal(
            f"You left {record.seats[left].name} during this game, so you can't join another "
            f"team in it{again}."
        )
    require_open(game, record, state, target)
    require_room(game, record, target)
    team = record.seats[target]
    earlier = record.request_of(req.user)
    now = env.clock()
    if not team.is_bot:
        if earlier is not None and earlier.seat == target:
            raise Refusal(
                f"Your request to join {team.name} is already waiting for a yes: its members "
                f"(and the host, {record.host_name}) have it privately, so asking again would "
                f"only message them again (`/{game.name} leave` withdraws it)."
            )
        _limit(record, req.user, target, now)
    if earlier is not None:
        _settle(record, earlier, out, f"{earlier.name} withdrew this request.")
    if team.is_bot:
        # Nobody to ask: the bot's seat becomes theirs, as it always has.
        me = Member(user=req.user, name=req.name)
        team.members.append(me)
        out.say(f"{req.name} joined {team.name}, taking over from the bot.")
        out.panels[req.user] = _panel(game, record, state, target, f"You play for {team.name} now.")
        redraw(game, record, state, out)
        return Change(record=record, joined=[req.user], log=[[req.user, "join", target]])
    request = JoinRequest(
        number=record.next_request,
        user=req.user,
        name=req.name,
        seat=target,
        asked_at=now,
    )
    record.next_request += 1
    record.requests.append(request)
    record.asked.append(Asked(number=request.number, user=req.user, seat=target, asked_at=now))
    for user in _answerers(record, request):
        out.reply(user, _request_note(game, record, request, user), note=_note_key(request))
    replaced = (
        f"Your request to join {record.seats[earlier.seat].name} is replaced by this one. "
        if earlier is not None and earlier.seat != target
        else ""
    )
    members = ", ".join(m.name for m in team.members)
    out.reply(
        req.user,
        f"{replaced}I asked {team.name} to let you in: its members ({members}) have your "
        f"request privately, and any of them (or the host, {record.host_name}) can accept it. "
        "You'll hear privately when they answer; until then you are not on a team and see "
        f"nothing of its hand (`/{game.name} leave` withdraws the request).",
    )
    return Change(record=record)


def _limit(record: GameRecord, user: str, target: int, now: float) -> None:
    """Refuses a request ``user`` may not make yet: to a team that declined them lately, or one
    more than :data:`MAX_REQUESTS` in :data:`REQUEST_WINDOW_S`. Drops from the record what is
    too old to count (the record is saved with the request that follows)."""
    record.asked = [
        asked
        for asked in record.asked
        if max(asked.asked_at, asked.declined_at or 0.0) + REQUEST_WINDOW_S > now
    ]
    mine = [asked for asked in record.asked if asked.user == user]
    declined = [a.declined_at for a in mine if a.seat == target and a.declined_at is not None]
    if declined:
        raise Refusal(
            f"{record.seats[target].name} declined your request to join it; you can ask them "
            f"again {_after(max(declined) + REQUEST_WINDOW_S - now)}."
        )
    recent = sorted(a.asked_at for a in mine if a.asked_at + REQUEST_WINDOW_S > now)
    if len(recent) >= MAX_REQUESTS:
        # Asking is possible again once the oldest request that still counts is out.
        free = recent[len(recent) - MAX_REQUESTS] + REQUEST_WINDOW_S
        raise Refusal(
            f"You have asked to join a team {markup.plural(len(recent), 'time')} in the last "
            f"{_minutes(REQUEST_WINDOW_S)}, and each request messages the team's members; you "
            f"can ask again {_after(free - now)}."
        )


def _minutes(seconds: float) -> str:
    return markup.plural(max(1, math.ceil(seconds / 60)), "minute")


def _after(seconds: float) -> str:
    """``in 4 minutes`` (whole minutes, rounded up: never sooner than it is true)."""
    return f"in {_minutes(seconds)}"


def _declined(record: GameRecord, request: JoinRequest, now: float) -> None:
    """Remember that ``request`` was declined (a request made before this was kept is added)."""
    for asked in record.asked:
        if asked.number == request.number:
            asked.declined_at = now
            return
    record.asked.append(
        Asked(
            number=request.number,
            user=request.user,
            seat=request.seat,
            asked_at=request.asked_at,
            declined_at=now,
        )
    )


def _home(
    game: GameLike, record: GameRecord, state: GameState, user: str
) -> tuple[int, int | None] | None:
    """For a player who left a team during play: that seat, and the seat they may ask to take
    them back (their old team, or the team that absorbed it; None when it is out)."""
    left = record.departed.get(user)
    if left is None or left >= len(record.seats):
        return None
    back: int | None = left
    merged = game.absorbed(state)
    seen = {left}
    while back in merged and merged[back] not in seen:
        back = merged[back]
        seen.add(back)
    if back is not None and game.seat_out(state, back):
        back = None
    return left, back


def _note_key(request: JoinRequest) -> str:
    return f"request:{request.number}"


def _settle(record: GameRecord, request: JoinRequest, out: Outbox, why: str) -> None:
    """The request is no longer open: off the record, and each copy of its note (a DM to a
    member or the host) says why, without its buttons."""
    record.requests.remove(request)
    team = record.seats[request.seat].name if request.seat < len(record.seats) else "a team"
    text = f"{request.name} asked to join {team}. {why}"
    out.closed_notes[_note_key(request)] = ui.Message(text=text)


def _answerers(record: GameRecord, request: JoinRequest) -> list[str]:
    """Who may say yes to ``request``: the team's members, then the host if not one of them."""
    users = list(record.seats[request.seat].users)
    if record.host not in users and record.seat_of(record.host) is not None:
        users.append(record.host)
    return users


def _request_note(
    game: GameLike, record: GameRecord, request: JoinRequest, user: str
) -> ui.Message:
    team = record.seats[request.seat].name
    host = "" if user in record.seats[request.seat].users else " As the host you may answer too."
    return ui.Message(
        title=f"{game.title}: a request to join {team}",
        text=(
            f"{request.name} asks to join {team}. Once let in, they see your team's hand and may "
            f"act for it; the first member to answer decides.{host}"
        ),
        buttons=[
            [
                ui.Button(
                    label=f"Accept {request.name}",
                    style="success",
                    command=f"admit #{request.number}",
                ),
                ui.Button(label="Decline", style="danger", command=f"admit #{request.number} no"),
            ]
        ],
    )


def open_requests(game: GameLike, record: GameRecord, user: str) -> list[ui.Message]:
    """The open requests ``user`` may answer (their team's; every one for the host), as the
    notes they were sent: ``hand`` shows them again."""
    seat = record.seat_of(user)
    return [
        _request_note(game, record, request, user)
        for request in record.requests
        if request.seat == seat or user == record.host
    ]


# --- answering a request -----------------------------------------------------------------------


def admit(env: Env, req: Request, game: GameLike, rest: str) -> Step:
    """``admit <player>`` lets a player who asked into the requester's team; ``admit <player>
    no`` declines. A member of that team or the host may answer; the first answer counts."""
    words = rest.split()
    yes = True
    if words and words[-1].lower() in _NO | _YES:
        yes = words.pop().lower() in _YES
    who = " ".join(words)
    if not who:
        raise CommandError(
            f"Say whose request you answer: `/{game.name} admit Dave` (or "
            f"`/{game.name} admit Dave no` to decline)."
        )

    def step(record: GameRecord | None, out: Outbox) -> Change:
        record = require_game(record, game)
        if record.status != "playing":
            raise Refusal(
                "Requests to join a team are for a game being played; in the lobby anyone may "
                f"`/{game.name} join <team>`."
            )
        request = _find_request(record, who)
        team = record.seats[request.seat]
        if req.user != record.host and req.user not in team.users:
            raise Refusal(
                f"Only the members of {team.name} (or the host, {record.host_name}) can answer "
                f"{markup.possessive(request.name)} request."
            )
        running = game_of(record)
        state = running_state(record)
        if not yes:
            _declined(record, request, env.clock())
            _settle(
                record,
                request,
                out,
                f"{req.name} declined {markup.possessive(request.name)} request.",
            )
            said = f"You declined {markup.possessive(request.name)} request to join {team.name}."
            out.reply(req.user, said, in_place=True)
            out.reply(
                request.user,
                f"{team.name} declined your request to join it, so you are not on a team in "
                f"this game; you may ask {team.name} again {_after(REQUEST_WINDOW_S)}.",
            )
            return Change(record=record)
        require_open(running, record, state, request.seat)
        require_room(running, record, request.seat)
        _settle(record, request, out, f"{req.name} let {request.name} in.")
        took_over = team.is_bot
        team.members.append(Member(user=request.user, name=request.name))
        tail = ", taking over from the bot" if took_over else ""
        out.say(f"{request.name} joined {team.name}{tail}; {req.name} let them in.")
        out.reply(req.user, f"{request.name} plays for {team.name} now.", in_place=True)
        note = f"{req.name} let you into {team.name}: you play for it now."
        out.panels[request.user] = _panel(running, record, state, request.seat, note)
        redraw(running, record, state, out)
        log: list[Entry] = [[request.user, "join", request.seat]]
        return Change(record=record, joined=[request.user], log=log)

    return step


def _find_request(record: GameRecord, text: str) -> JoinRequest:
    """The open request ``text`` names: ``#7`` (a button), a mention, a user id or a name."""
    typed = text.strip()
    number = _NUMBER.match(typed)
    if number is not None:
        found = [r for r in record.requests if r.number == int(number.group(1))]
        if not found:
            raise Refusal(
                "That request is no longer open: it has been answered, withdrawn or replaced "
                "by a newer one.",
                in_place=True,  # a copy still showing Accept (`hand`'s) loses its buttons
            )
        return found[0]
    mention = _MENTION.match(typed)
    user = mention.group(1) if mention else typed.removeprefix("@")
    wanted = teams.name_key(typed.removeprefix("@"))
    shown = markup.escape(teams.normal(typed.removeprefix("@")))
    by_user = [r for r in record.requests if r.user == user]
    if by_user:
        return by_user[0]
    by_name = [r for r in record.requests if teams.name_key(markup.plain(r.name)) == wanted]
    if len(by_name) == 1:
        return by_name[0]
    if by_name:
        raise Refusal(f"Several players called {shown} have asked; mention the one you mean.")
    raise Refusal(f"{shown or 'Nobody'} has no open request to join a team here.")


def withdraw(record: GameRecord, user: str, out: Outbox) -> Change | None:
    """``leave`` by someone who is not seated: their open request is withdrawn (None: none)."""
    request = record.request_of(user)
    if request is None:
        return None
    _settle(record, request, out, f"{request.name} withdrew this request.")
    out.reply(user, f"Your request to join {record.seats[request.seat].name} is withdrawn.")
    return Change(record=record)


# --- after every action: absorbed seats and seats that are out ---------------------------------


@dataclass
class Moved:
    """What :func:`absorb` did, for :func:`show_moved` to show once the action's own story and
    panels are drawn."""

    notes: dict[str, tuple[int, str]] = field(default_factory=dict)
    """By user: the seat whose panel each moved (or left watching) player sees now, and the
    private note above it."""
    news: list[str] = field(default_factory=list)
    """Lines for the game's log."""


def absorb(
    game: GameLike,
    record: GameRecord,
    before: GameState | None,
    after: GameState,
    out: Outbox,
    log: list[Entry],
) -> Moved:
    """Move the people of every newly absorbed seat to the seat that absorbed it (as many as
    ``max_team_size`` lets in, in seating order; the others stay and watch), logging each move
    as a user entry of ``log``, and close the requests to seats that are out now (their askers
    are told privately)."""
    moved = Moved()
    if after.finished:
        return moved  # nobody plays on: the standings are the teams' as they were
    earlier = game.absorbed(before) if before is not None else {}
    merged = game.absorbed(after)
    for seat in sorted(merged):
        if seat in earlier or seat >= len(record.seats) or not record.seats[seat].members:
            continue
        target = _final(merged, seat)
        if target is None or target >= len(record.seats) or game.seat_out(after, target):
            continue
        _move_people(game, record, seat, target, moved, log)
    _close_requests_to_out(game, record, after, out)
    return moved


def _move_people(
    game: GameLike, record: GameRecord, seat: int, target: int, moved: Moved, log: list[Entry]
) -> None:
    """The people of absorbed ``seat`` go to ``target``, as many as its team size lets in."""
    old, new = record.seats[seat], record.seats[target]
    limit = game.max_team_size
    room = len(old.members) if limit is None else max(0, limit - len(new.members))
    going, staying = old.members[:room], old.members[room:]
    took_over = new.is_bot and bool(going)
    for member in going:
        old.members.remove(member)
        new.members.append(member)
        log.append([member.user, "join", target])
        moved.notes[member.user] = (
            target,
            f"{new.name} took over {old.name}: {old.name} is out of the game, and you now "
            f"play for {new.name}, whose hand is below.",
        )
    for member in staying:
        moved.notes[member.user] = (
            seat,
            f"{new.name} took over {old.name}, but {new.name} is full (a team of "
            f"{game.title} has at most {limit} people), so you watch the rest of the game.",
        )
    if going:
        names = [member.name for member in going]
        who = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
        tail = ", taking over from the bot" if took_over else ""
        moved.news.append(f"The people of {old.name} ({who}) now play for {new.name}{tail}.")


def _close_requests_to_out(
    game: GameLike, record: GameRecord, after: GameState, out: Outbox
) -> None:
    """Requests to join seats that are out now are closed; their askers are told privately."""
    for request in list(record.requests):
        if request.seat < len(record.seats) and game.seat_out(after, request.seat):
            team = record.seats[request.seat].name
            _settle(record, request, out, f"{team} is out of the game: this request is closed.")
            out.reply(
                request.user,
                f"{record.seats[request.seat].name} is out of the game, so your request to join "
                "it is closed.",
            )


def _final(merged: dict[Seat, Seat], seat: Seat) -> Seat | None:
    """Where the people of ``seat`` play now, following absorbed seats along (None: a loop)."""
    seen = {seat}
    target = merged[seat]
    while target in merged:
        if target in seen:
            return None
        seen.add(target)
        target = merged[target]
    return target


def show_moved(
    game: GameLike, record: GameRecord, after: GameState, moved: Moved, out: Outbox
) -> None:
    """After the action's story: the log says who moved, and each player :func:`absorb` moved
    (or left watching) sees their new panel under its note (the panel the Outbox already holds
    for them, if any, else drawn now)."""
    for line in moved.news:
        out.say(line)
    for user, (seat, note) in moved.notes.items():
        out.panels[user] = _panel(game, record, after, seat, note, out.panels.get(user))
