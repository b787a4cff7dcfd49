"""The table's plan on its own: what a delivery does to each surface, with no platform, no store
and no clock but the one it is given (bot/table/plan.py is pure)."""

from __future__ import annotations

from bot.commands.outbox import GAME_OVER, Changes, Mode, Outbox
from bot.table import MAX_BELOW, MOVE_AT, PENDING_S, YOUR_MOVE, Place, Refs, Shown, digest, plan
from bot.table.plan import (
    COALESCE_S,
    Context,
    Delete,
    Dm,
    Edit,
    Held,
    Plan,
    Post,
    Reply,
    StartThread,
    Update,
    flush,
)
from core import ui

CHANNEL = "C1"
NOW = 1_000_000.0


def out(version: int | None = 1, **surfaces: object) -> Changes:
    return Changes.model_validate(
        {"platform": "test", "channel": CHANNEL, "game": "g", "table": "g:0", "version": version}
        | surfaces
    )


def ctx(room: int = 5, user: str | None = None, pressed: Shown | None = None) -> Context:
    return Context(
        token="t",
        now=NOW,
        free=lambda where: room,
        user=user,
        pressed=(pressed.where, pressed.id) if pressed is not None else None,
    )


def board(text: str) -> ui.Message:
    return ui.Message(title="Board", text=text)


def shown(ident: str, message: ui.Message | None = None, where: str = "T1") -> Shown:
    return Shown(where=where, id=ident, digest=digest(message) if message is not None else "")


def playing(below: int = 0, drawn: ui.Message | None = None) -> Refs:
    """The refs of a game under way in thread T1: its card, and its board with ``below``
    messages under it."""
    drawn = drawn or board("0")
    return Refs(
        table="g:0",
        version=1,
        card=shown("c", ui.Message(text="playing"), where=CHANNEL),
        thread="T1",
        board=shown("b", drawn),
        board_message=drawn,
        board_source=drawn,
        below=[f"m{n}" for n in range(below)],
    )


def kinds(planned: Plan) -> list[str]:
    return [type(op).__name__ for op in planned.ops]


def test_the_card_is_posted_once_then_edited_and_an_unchanged_one_costs_nothing() -> None:
    first = plan(Refs(table="g:0"), out(card=ui.Message(text="lobby 1/4")), ctx())
    (post,) = first.ops
    assert isinstance(post, Post) and post.slot == "card"
    card = first.refs.card
    assert card is not None and card.reserved and card.id == first.reserved[0]
    refs = first.refs.model_copy(update={"card": shown("c", ui.Message(text="lobby 1/4"))})
    second = plan(refs, out(card=ui.Message(text="lobby 2/4")), ctx())
    assert kinds(second) == ["Edit"]
    again = plan(second.refs, out(card=ui.Message(text="lobby 2/4")), ctx())
    assert again.ops == [] and not again.touches


def test_the_game_begins_in_a_thread_started_from_the_card() -> None:
    refs = Refs(table="g:0", card=shown("c", ui.Message(text="lobby"), where=CHANNEL))
    begun = plan(refs, out(2, begun=True, card=ui.Message(text="playing"), board=board("0")), ctx())
    assert kinds(begun) == ["Edit", "StartThread", "Post"]
    thread, post = begun.ops[1], begun.ops[2]
    assert isinstance(thread, StartThread) and isinstance(post, Post)
    assert post.place.thread == thread.id == begun.refs.thread  # the board goes to the thread


def test_a_press_on_the_panel_is_answered_by_updating_it() -> None:
    panel = ui.Message(text="hand 1")
    refs = playing()
    refs.panels["bob"] = shown("p", panel, where="D1")
    pressed = refs.panels["bob"]
    planned = plan(
        refs, out(2, panels={"bob": ui.Message(text="hand 2")}), ctx(user="bob", pressed=pressed)
    )
    assert kinds(planned) == ["Update"]
    assert isinstance(planned.ops[0], Update) and planned.ops[0].slot == "panel:bob"


def test_the_board_moves_down_after_three_below_when_the_place_is_free() -> None:
    refs = playing(below=MOVE_AT)
    moved = plan(refs, out(2, board=board("1")), ctx(room=5))
    assert kinds(moved) == ["Post", "Delete"]
    post, delete = moved.ops
    assert isinstance(post, Post) and isinstance(delete, Delete) and delete.after == post.id
    assert moved.refs.below == [] and moved.refs.board is not None and moved.refs.board.reserved
    # At its post limit the move waits for a later change: edited in place meanwhile.
    waits = plan(refs, out(2, board=board("1")), ctx(room=0))
    assert kinds(waits) == ["Edit"]
    # Never further up than MAX_BELOW, even when the post must wait for a slot.
    far = plan(playing(below=MAX_BELOW), out(2, board=board("1")), ctx(room=0))
    assert kinds(far) == ["Post", "Delete"]


def test_a_turn_notice_is_the_board_posted_anew_mentioning_only_whom_it_names() -> None:
    noticed = plan(playing(), out(2, board=board("bob's turn"), notify=["bob"]), ctx())
    post = noticed.ops[0]
    assert isinstance(post, Post) and post.mention == ["bob"] and post.ping
    assert post.message.text.startswith(YOUR_MOVE)
    # A press answered while the place is at its limit: no ping now, the board edited.
    pressed = plan(
        playing(), out(2, board=board("bob's turn"), notify=["bob"]), ctx(room=0, user="al")
    )
    assert kinds(pressed) == ["Edit"]


def test_what_another_delivery_is_posting_is_not_posted_again() -> None:
    """A board reserved by another delivery a moment ago: this one does not post or edit it,
    it says what it must show once posted."""
    refs = playing()
    refs.board = Shown(where="T1", id=f"pending:other:1:{NOW - 1:.3f}", digest="x")
    planned = plan(refs, out(2, board=board("newer")), ctx())
    assert planned.ops == []
    assert planned.refs.wanted["board"] == board("newer")
    assert planned.refs.board is not None and planned.refs.board.digest == digest(board("newer"))


def test_a_reservation_that_never_landed_is_nobody_s_after_a_while() -> None:
    refs = playing()
    refs.board = Shown(where="T1", id=f"pending:dead:1:{NOW - PENDING_S - 1:.3f}", digest="x")
    refs.wanted["board"] = board("old")
    planned = plan(refs, out(2, board=board("newer")), ctx())
    assert kinds(planned) == ["Post"] and "board" not in planned.refs.wanted


def test_an_older_delivery_leaves_the_board_alone_but_its_story_joins_the_latest() -> None:
    refs = playing().model_copy(update={"version": 5})
    late = plan(refs, out(4, board=board("4"), log=["a late line"]), ctx())
    assert kinds(late) == ["Edit"]
    edit = late.ops[0]
    assert isinstance(edit, Edit) and edit.message.text.startswith("0")  # the newest board
    assert "a late line" in edit.message.text and late.refs.version == 5


def test_a_panel_is_a_dm_once_and_a_reply_for_a_requester_whose_dms_are_closed() -> None:
    refs = playing()
    first = plan(refs, out(2, panels={"bob": ui.Message(text="hand")}), ctx())
    assert kinds(first) == ["Dm"] and isinstance(first.ops[0], Dm)
    refs.closed.append("al")
    closed = plan(refs, out(2, panels={"al": ui.Message(text="hand")}), ctx(user="al"))
    assert kinds(closed) == ["Reply"]


def test_the_end_closes_the_prompt_and_every_panel_and_posts_the_result() -> None:
    prompt = ui.Message(text="Point!", buttons=[[ui.Button(label="Nobody", action={"t": 1})]])
    refs = playing()
    refs.prompt, refs.prompt_id, refs.prompt_message = shown("q", prompt), 1, prompt
    refs.panels["bob"] = shown("p", ui.Message(text="hand"), where="D1")
    ended = plan(refs, out(9, ended=True, result=ui.Message(text="Game over.")), ctx())
    texts = {getattr(op, "slot", ""): getattr(op, "message", None) for op in ended.ops}
    closed = texts["prompt"]
    assert closed is not None and not closed.buttons
    over = texts["panel:bob"]
    assert over is not None and over.text == GAME_OVER
    result = ended.ops[-1]
    assert isinstance(result, Post) and result.slot == "result" and result.place.thread is None
    assert ended.refs.ended


def test_private_answers_come_first_and_a_deadline_s_go_by_dm() -> None:
    filled = Outbox.model_validate(out(2, board=board("1")).model_dump())
    filled.reply("al", "Done.")
    answered, _context = filled.handed()
    planned = plan(playing(), answered, ctx(user="al"))
    assert isinstance(planned.ops[0], Reply)
    by_clock = plan(playing(), answered, ctx())  # nobody asked: a DM (a note) instead
    assert type(by_clock.ops[0]).__name__ == "Note"


# --- board pictures within the window ----------------------------------------------------------


def pictured(text: str, key: str) -> ui.Message:
    return ui.Message(title="Board", text=text, picture_key=key)


def coalescing(now: float = NOW, shows: bool = True, mode: Mode = Mode.STEP) -> Context:
    return Context(
        token="t",
        now=now,
        free=lambda where: 5,
        coalesce_s=COALESCE_S,
        shows=lambda key: shows,
        mode=mode,
    )


def showing(key: str = "k1", at: float = NOW - 1.0) -> Refs:
    """A board showing picture ``key`` since ``at``."""
    refs = playing(drawn=pictured("0", key))
    refs.picture_at = at
    return refs


def test_a_picture_sooner_than_the_window_waits_and_the_text_does_not() -> None:
    held = plan(showing(), out(2, board=pictured("1", "k2")), coalescing())
    (edit,) = held.ops
    assert isinstance(edit, Edit) and edit.message.text == "1"  # the text now
    assert edit.message.picture_key == "k1"  # the picture it had
    assert held.held == Held(key="k2", version=2, due=NOW - 1.0 + COALESCE_S)
    assert held.refs.picture_at == NOW - 1.0  # the picture shown did not change
    later = plan(showing(), out(2, board=pictured("1", "k2")), coalescing(NOW + COALESCE_S))
    (edit,) = later.ops
    assert isinstance(edit, Edit) and edit.message.picture_key == "k2" and later.held is None
    assert later.refs.picture_at == NOW + COALESCE_S


def test_the_catch_up_gives_the_held_version_s_board_its_newest_picture_and_nothing_else() -> None:
    held = plan(showing(), out(2, board=pictured("1", "k2")), coalescing())
    refs = held.refs
    refs.pending = ["a line shown under Latest"]
    catch = out(2, board=pictured("1", "k2"))
    caught = plan(refs, catch, coalescing(NOW + COALESCE_S, mode=Mode.CATCH_UP))
    (edit,) = caught.ops
    assert isinstance(edit, Edit) and edit.slot == "board"
    assert edit.message.picture_key == "k2" and edit.message.text == "1"
    assert caught.refs.picture_at == NOW + COALESCE_S and caught.refs.version == 2
    # A newer state drawn meanwhile (by any worker) shows or holds its own: nothing to do.
    newer = plan(held.refs, out(3, board=pictured("2", "k3")), coalescing(NOW + 0.5))
    assert plan(newer.refs, catch, coalescing(NOW + COALESCE_S, mode=Mode.CATCH_UP)).ops == []
    # Never a post: a board that is not there any more is not the catch-up's to post.
    gone = held.refs.model_copy(update={"board": None})
    assert plan(gone, catch, coalescing(NOW + COALESCE_S, mode=Mode.CATCH_UP)).ops == []


def test_the_end_and_a_board_posted_anew_never_hold_their_picture() -> None:
    ended = plan(showing(), out(9, ended=True, board=pictured("over", "k9")), coalescing())
    edits = [op for op in ended.ops if isinstance(op, Edit) and op.slot == "board"]
    assert [e.message.picture_key for e in edits] == ["k9"] and ended.held is None
    moved = plan(showing(), out(2, board=pictured("1", "k2"), notify=["bob"]), coalescing())
    posts = [op for op in moved.ops if isinstance(op, Post) and op.slot == "board"]
    assert [p.message.picture_key for p in posts] == ["k2"] and moved.held is None
    # A worker that never showed the board's picture cannot keep it there: the newest goes.
    other = plan(showing(), out(2, board=pictured("1", "k2")), coalescing(shows=False))
    assert other.held is None and other.refs.board_message is not None
    assert other.refs.board_message.picture_key == "k2"


def test_an_older_delivery_keeps_the_picture_the_newer_one_shows_or_holds() -> None:
    refs = showing()
    refs.version = 5
    refs.board_source = pictured("5", "k5")
    stale = plan(refs, out(4, board=pictured("4", "k4"), log=["a line"]), coalescing())
    assert stale.held is None
    assert stale.refs.board_message is not None
    assert stale.refs.board_message.picture_key == "k1"


def _mutable_parts(value: object, path: str) -> list[tuple[str, object]]:
    """Every list, dict and model inside ``value`` but messages (values nothing changes in
    place), with where it is."""
    if isinstance(value, ui.Message):
        return []
    found: list[tuple[str, object]] = []
    if isinstance(value, list):
        found.append((path, value))
        for i, item in enumerate(value):
            found += _mutable_parts(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        found.append((path, value))
        for key, item in value.items():
            found += _mutable_parts(item, f"{path}[{key!r}]")
    elif isinstance(value, Refs | Shown):
        found.append((path, value))
        for name in type(value).model_fields:
            found += _mutable_parts(getattr(value, name), f"{path}.{name}")
    return found


def test_a_plan_changes_a_copy_of_the_refs_that_shares_only_messages() -> None:
    """The plan's working copy is the refs, sharing no list, dict or record of a shown message
    with them, whatever field the refs have (a field added later and not copied fails here),
    and a plan that changes every surface leaves the refs it was given as they were."""
    message = ui.Message(text="m")
    refs = playing(below=2)
    refs.prompt, refs.prompt_id, refs.prompt_message = shown("p", message), 3, message
    refs.board_source, refs.pending = board("0"), ["a line"]
    refs.panels = {"U1": shown("d1", message, where="D1")}
    refs.closed, refs.hinted = ["U2"], ["U2"]
    refs.notes = {"request:7": {"U3": shown("n", message, where="D3")}}
    refs.wanted, refs.waiting = {"board": board("wanted")}, ["U1"]
    unset = [name for name in Refs.model_fields if getattr(refs, name) in (None, [], {})]
    assert unset == [], "give every field of the refs a value here"
    copy = refs.working_copy()
    assert copy == refs and copy.rev == refs.rev
    originals = {id(part): where for where, part in _mutable_parts(refs, "refs")}
    shared = [where for where, part in _mutable_parts(copy, "refs") if id(part) in originals]
    assert shared == []

    before = refs.model_dump_json()
    done = plan(
        refs,
        out(2, board=board("1"), prompt=ui.Message(text="vote"), panels={"U1": message}),
        ctx(),
    )
    assert done.ops and refs.model_dump_json() == before


def test_a_deferred_edit_waits_in_the_refs_and_a_newer_one_replaces_it() -> None:
    """An edit the budget deferred stands in the refs (:attr:`Refs.wanted`) until it is made;
    a newer delivery that shows that surface replaces it, and one that does not leaves it."""
    refs = playing()
    refs.panels = {"U1": shown("d1", ui.Message(text="old hand"), where="D1")}
    refs.wanted = {"panel:U1": ui.Message(text="hand v2")}
    refs.panels["U1"].digest = ""  # (what a deferred edit leaves: the message shows older)
    untouched = plan(refs, out(2, board=board("2")), ctx())
    assert untouched.refs.wanted == {"panel:U1": ui.Message(text="hand v2")}
    newer = plan(refs, out(3, board=board("3"), panels={"U1": ui.Message(text="hand v3")}), ctx())
    assert newer.refs.wanted == {}
    assert [
        op.message.text for op in newer.ops if isinstance(op, Edit) and op.slot == "panel:U1"
    ] == ["hand v3"]


def test_a_board_posted_anew_drops_the_deferred_edit_of_the_old_one() -> None:
    """An edit of the board the budget deferred, then a newer delivery moves the board down:
    the new board shows the newer state, and nothing later edits the older one onto it."""
    refs = playing(below=MOVE_AT)
    assert refs.board is not None
    refs.board.digest = ""
    refs.wanted = {"board": board("v2, deferred")}
    moved = plan(refs, out(3, board=board("v3"), notify=["bob"]), ctx())
    assert kinds(moved)[:2] == ["Post", "Delete"]
    assert "board" not in moved.refs.wanted
    assert flush(moved.refs, ctx()).ops == []


def test_the_flush_shows_the_board_first_then_whom_the_game_waits_for() -> None:
    refs = playing()
    refs.panels = {
        "U1": shown("d1", where="D1"),
        "U2": shown("d2", where="D2"),
        "U3": Shown(where="", id=f"pending:other:1:{NOW}"),  # still being posted: its poster's
    }
    refs.waiting = ["U2"]
    refs.wanted = {
        "panel:U1": ui.Message(text="hand 1"),
        "panel:U3": ui.Message(text="hand 3"),
        "board": board("newest"),
        "panel:U2": ui.Message(text="hand 2"),
    }
    planned = flush(refs, ctx())
    assert [(op.slot, op.message.text) for op in planned.ops if isinstance(op, Edit)] == [
        ("board", "newest"),
        ("panel:U2", "hand 2"),
        ("panel:U1", "hand 1"),
    ]
    assert list(planned.refs.wanted) == ["panel:U3"]
    assert planned.refs.board_message == board("newest")
    assert planned.refs.panels["U1"].digest == digest(ui.Message(text="hand 1"))
    assert refs.wanted and len(refs.wanted) == 4  # (the refs given are left as they were)


# --- settling what a delivery learned (bot/table/plan.settle) ----------------------------------


def test_settling_swaps_each_reservation_for_what_was_posted_or_drops_it() -> None:
    from bot.table.plan import Done, settle

    refs = playing()
    refs.board = Shown(where="", id=f"pending:t:1:{NOW}", digest=digest(board("1")))
    refs.below = ["pending:t:2:1.0"]
    refs.panels = {"U1": Shown(where="", id="pending:t:3:1.0"), "U2": shown("d2", where="D2")}
    done = Done(
        version=2,
        posted={
            f"pending:t:1:{NOW}": Shown(where="T1", id="b2"),
            "pending:t:2:1.0": Shown(where="T1", id="log1"),
            "pending:t:3:1.0": None,  # the DM could not be sent
        },
        failed_edits=[("panel:U2", "d2")],
    )
    settled = settle(refs, done, ctx(), CHANNEL)
    assert settled.refs.board == Shown(where="T1", id="b2", digest=digest(board("1")))
    assert settled.refs.below == ["log1"]
    assert "U1" not in settled.refs.panels  # not posted: the next delivery posts it
    assert settled.refs.panels["U2"].digest == ""  # its edit failed: shown again next time
    assert settled.ops == [] and refs.board.reserved  # (the refs given are left as they were)


def test_merging_deletes_a_post_whose_reservation_was_taken_over_and_edits_what_is_wanted() -> None:
    """Another delivery wrote between: this delivery's prompt reservation was taken over (its
    message is a double), and its board, posted, is wanted to show something newer."""
    from bot.table.plan import Done, settle

    newer = playing()
    newer.board = Shown(where="", id="pending:t:1:1.0", digest=digest(board("3")))
    newer.wanted = {"board": board("3")}
    newer.prompt = shown("p-theirs")  # (another delivery posted the prompt itself)
    done = Done(
        version=2,
        posted={
            "pending:t:1:1.0": Shown(where="T1", id="b2"),
            "pending:t:2:1.0": Shown(where="T1", id="p-mine"),
        },
        slots={"pending:t:1:1.0": "board", "pending:t:2:1.0": "prompt"},
    )
    settled = settle(newer, done, ctx(), CHANNEL, merging=True)
    assert settled.refs.board is not None and settled.refs.board.id == "b2"
    assert settled.refs.wanted == {}
    deletes = [op for op in settled.ops if isinstance(op, Delete)]
    edits = [op for op in settled.ops if isinstance(op, Edit)]
    assert [op.shown.id for op in deletes] == ["p-mine"]
    assert [(op.slot, op.shown.id, op.message) for op in edits] == [("board", "b2", board("3"))]
    # Not merging (the refs are this delivery's own): nothing is deleted or edited.
    assert settle(newer, done, ctx(), CHANNEL).ops == []


def test_a_deleted_surface_is_posted_anew_once_or_left_to_whoever_posts_it() -> None:
    from bot.table.plan import Done, Missing, settle

    # Still gone in the refs: reserved and posted anew (and the old one, stuck, deleted).
    refs = playing()
    stuck = Missing("board", "b", board("2"), "board", stuck=shown("b"))
    settled = settle(refs, Done(version=2, gone=[stuck]), ctx(), CHANNEL)
    pending = settled.claims["board"]
    assert settled.refs.board is not None and settled.refs.board.id == pending
    assert kinds(Plan(refs, settled.ops)) == ["Post", "Delete"]
    post, delete = settled.ops
    assert isinstance(post, Post) and post.place == Place(channel=CHANNEL, thread="T1")
    assert isinstance(delete, Delete) and delete.after == pending

    # Another delivery posted it anew already: this one, newer, edits it to what it drew...
    refs = playing()
    refs.board = shown("b-theirs", board("1"))
    gone = Missing("board", "b", board("2"), "board")
    settled = settle(refs, Done(version=2, gone=[gone]), ctx(), CHANNEL)
    assert settled.ended == ["board"] and settled.claims == {}
    assert [(op.slot, op.message) for op in settled.ops if isinstance(op, Edit)] == [
        ("board", board("2"))
    ]
    assert len(settled.ops) == 1
    # ... or says what it must show once posted, when the other is still posting it.
    refs.board = Shown(where="", id=f"pending:other:1:{NOW}", digest=digest(board("1")))
    settled = settle(refs, Done(version=2, gone=[gone]), ctx(), CHANNEL)
    assert settled.ops == [] and settled.refs.wanted == {"board": board("2")}
    # An older delivery leaves a newer one's board alone.
    refs.version = 5
    assert settle(refs, Done(version=2, gone=[gone]), ctx(), CHANNEL).refs.wanted == {}
    # A panel is posted anew by DM.
    refs = playing()
    refs.panels = {"U1": shown("d1", where="D1")}
    settled = settle(
        refs, Done(gone=[Missing("panel:U1", "d1", ui.Message(text="hand"), "panel")]), ctx(), "C"
    )
    assert [type(op).__name__ for op in settled.ops] == ["Dm"]
