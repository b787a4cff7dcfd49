"""The pages that describe the code cite only what exists.

docs/architecture.md and docs/adding-a-game.md name files, modules, classes, functions, fields,
settings and commands in backticks. Code moves under them: the architecture page once named a
``Pipeline._picture`` that no code had, and the adding-a-game page a keyword ``rank`` does not take.
Here every backticked span of those pages (outside fenced blocks; a fenced Python block that names
the file it quotes must be part of that file) is read by the first of these rules that fits it, and
a span that cites something the repository does not have is reported:

1. **A path** (it holds a ``/`` and does not start with one, or it ends in ``.py``, ``.md``,
   ``.toml`` or ``.json``): the file or directory exists, from the repository's root; a bare file
   name (``plan.py``) exists somewhere in it. ``<name>`` placeholders and ``*`` match anything. A
   command line whose first word is a path (``scripts/check``) is checked as that path. 2. **A
   storage key** (it starts with ``boardroom:`` or ``:``): every literal word of it (between the
   ``:``, ``{`` and ``}``; placeholders and ``…`` left out) is written next to a ``:`` in the code
   (``:game``, ``deadlines:``): a key the code no longer builds loses its words. 3. **A command
   line** (its first word is ``boardroom``, ``bench`` or ``simulate``, or it starts with ``--``):
   every ``--option`` in it is a quoted string in the code (argparse declares it). 4. **An HTTP
   path** (``/healthz``, or ``GET /healthz``): the path is quoted in the code. A slash command
   (``/relay start``, ``/<game> help``) is what a person types and is skipped. 5. **A setting**
   (``BOARDROOM_…`` or ``REDIS_…``, possibly ``=value``): the variable's name is a quoted string in
   the code (the settings' aliases). 6. **A Redis command** (its first word in capitals, ``XRANGE``,
   ``SET <key> "" XX``, ``MEMORY USAGE``): redis-py's client has it as a method. **A Slack Web API
   method** (``chat.update``, ``views.*``): slack_sdk's client has it (``chat_update``). 7.
   **Printed figures or keyword values** (``results=25 results_pending=0``, ``coalesce_s=0``): each
   ``name=`` is in the code's source (printed by a bench, or a parameter given). 8. **Python** (the
   span parses as an expression or a statement): every name it refers to is defined, as below.
   Referred to are the callee of each call (``Game.render_board(state, pictured=True)``:
   ``Game.render_board``) and each keyword it is given (``pictured``, a parameter of a function or a
   field of a class of that name), and the expression's own names and attribute chains
   (``Pipeline.transact``, ``version + 1``; an attribute of what a call returns,
   ``game.at(state).public``, is a member of some class), but not the arguments of a call, the index
   of a subscript or the items of a literal (examples: ``Play(check=pick_problem)`` checks ``Play``
   and ``check``, not ``pick_problem``); ``...`` elides, ``-> T`` is dropped. Literals
   (``"read-only"``, ``["challenge", 36]``) cite nothing. A dotted name resolves step by step: its
   first part is a class, a module (full, ``core.engine``, or by its last part, ``codec``), an
   instance named as in :data:`INSTANCES` (``game.at`` is ``Game.at``), a module outside the
   repository (``redis.asyncio``, ``dataclasses.replace``) or a third-party name in :data:`EXTERNAL`
   (imported, so it must exist too); each next part is a member of the class (its bases in the
   repository included: methods, fields, class attributes, ``self.x`` assignments) or an attribute
   of the module. A single name is defined anywhere in the code (a function, class, module-level or
   class-level name, attribute or parameter), is a builtin, or, a word a player types or a value the
   code writes (``hand``, ``spawn``), is a quoted string in the code, or a figure the code prints
   (``name=``). 9. **Anything else** (``pending:<token>:<n>:<since>``, ``250k``): it appears in the
   code's source text, each ``<placeholder>`` matching a short run of anything.

"The code" is the source of ``bot/``, ``core/``, ``storage/``, ``testkit/``, ``bench/`` and
``tests/team_game.py`` (Relay, the game adding-a-game.md walks through), read as text and by
:mod:`ast`; nothing is imported from the repository.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = ("docs/architecture.md", "docs/adding-a-game.md")
SOURCES = ("bot", "core", "storage", "testkit", "bench")
EXTRA_SOURCES = ("tests/team_game.py",)
MAX_ARCHITECTURE_LINES = 300

INSTANCES = {"game": "Game", "GAME": "Game", "state": "GameState", "face": "Face"}
"""Names the pages use for an instance of a class: ``game.at(state)`` is ``Game.at``."""

EXTERNAL = {
    "ImageFont": "PIL.ImageFont",
    "HTTPClient": "discord.http.HTTPClient",
    "api_call": "slack_sdk.web.async_client.AsyncWebClient.api_call",
    "quantize": "PIL.Image.Image.quantize",
}
"""Third-party names the pages cite without their module, and where each is (imported)."""

PATH_SUFFIXES = (".py", ".md", ".toml", ".json")
PLACEHOLDER = re.compile(r"<[^<>]*>")


@dataclass
class ClassInfo:
    members: set[str] = field(default_factory=set)
    bases: list[str] = field(default_factory=list)


@dataclass
class Index:
    """What the code defines, read from its source."""

    modules: dict[str, set[str]] = field(default_factory=dict)
    """Each module's dotted name and the names it defines or imports at its top."""
    classes: dict[str, list[ClassInfo]] = field(default_factory=dict)
    functions: dict[str, list[set[str]]] = field(default_factory=dict)
    """Each function's name and its parameters' names (one set per definition)."""
    names: set[str] = field(default_factory=set)
    """Every name defined anywhere: top-level, class members, parameters."""
    strings: set[str] = field(default_factory=set)
    """Every string constant (f-strings' constant parts included)."""
    text: str = ""
    """The source text, every file's, one after the other."""

    def modules_named(self, name: str) -> list[set[str]]:
        return [
            names
            for dotted, names in self.modules.items()
            if dotted == name or dotted.rsplit(".", 1)[-1] == name
        ]

    def members(self, name: str, seen: frozenset[str] = frozenset()) -> set[str]:
        """Every member of the classes called ``name``, their bases' in the code included."""
        found: set[str] = set()
        for info in self.classes.get(name, []):
            found |= info.members
            for base in info.bases:
                if base not in seen:
                    found |= self.members(base, seen | {name})
        return found

    def quoted(self, word: str) -> bool:
        """Whether ``word`` is a string constant of the code (or an f-string's constant part)."""
        return word in self.strings


def _top_level(body: list[ast.stmt]) -> Iterator[str]:
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                yield from (n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and isinstance(node.target, ast.Name):
            yield node.target.id
        elif isinstance(node, ast.Import | ast.ImportFrom):
            yield from ((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.If | ast.Try):
            yield from _top_level(node.body + node.orelse)


def _class_info(node: ast.ClassDef) -> ClassInfo:
    info = ClassInfo(bases=[ast.unparse(base).split("[")[0].split(".")[-1] for base in node.bases])
    info.members.update(_top_level(node.body))
    for inner in ast.walk(node):
        targets: list[ast.expr] = []
        if isinstance(inner, ast.Assign):
            targets = inner.targets
        elif isinstance(inner, ast.AnnAssign | ast.AugAssign):
            targets = [inner.target]
        for target in targets:
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
            ):
                info.members.add(target.attr)
    return info


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    every += [a for a in (args.vararg, args.kwarg) if a is not None]
    return {a.arg for a in every}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def index_of(files: list[Path]) -> Index:
    index = Index()
    texts: list[str] = []
    for path in files:
        source = path.read_text()
        texts.append(source)
        tree = ast.parse(source)
        top = set(_top_level(tree.body))
        index.modules[_module_name(path)] = top
        index.names |= top
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                info = _class_info(node)
                index.classes.setdefault(node.name, []).append(info)
                index.names |= info.members
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                params = _parameters(node)
                index.functions.setdefault(node.name, []).append(params)
                index.names |= params
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                index.strings.add(node.value)
    index.text = "\n".join(texts)
    return index


@cache
def code() -> Index:
    files = [p for top in SOURCES for p in sorted((ROOT / top).rglob("*.py"))]
    return index_of(files + [ROOT / extra for extra in EXTRA_SOURCES])


# --- what a page cites ---------------------------------------------------------------------------


FENCE = re.compile(r"^```.*?^```", re.S | re.M)
SPAN = re.compile(r"(?<!`)`([^`]+)`(?!`)")


def spans(page: str) -> list[str]:
    """The page's backticked spans outside fenced blocks, whitespace made single spaces."""
    text = FENCE.sub("", page)
    return [" ".join(span.replace("\\|", "|").split()) for span in SPAN.findall(text)]


def _is_path(span: str) -> bool:
    first = span.split(" ")[0]
    if first.startswith("/") or first.startswith("boardroom:") or first.startswith(":"):
        return False
    return "/" in first or first.endswith(PATH_SUFFIXES)


def _path_problem(span: str) -> str | None:
    first = span.split(" ")[0]
    pattern = PLACEHOLDER.sub("*", first).rstrip("/")
    if "/" not in first:
        found = any(
            p for p in ROOT.rglob(pattern) if ".venv" not in p.parts and ".git" not in p.parts
        )
    else:
        found = any(ROOT.glob(pattern))
    return None if found else f"no file or directory {first}"


def _key_problem(span: str, index: Index) -> str | None:
    literal = PLACEHOLDER.sub(" ", span).replace("…", " ")
    for word in re.split(r"[:{}\s]+", literal):
        if word and not (f":{word}" in index.text or f"{word}:" in index.text):
            return f"no key in the code has {word!r} (in {span})"
    return None


def _command_problem(span: str, index: Index) -> str | None:
    for option in re.findall(r"--[a-z][a-z0-9-]*", span):
        if not index.quoted(option):
            return f"no option {option} in the code"
    return None


def _redis_command(span: str) -> bool:
    import redis.asyncio

    words = span.split(" ")
    if not re.fullmatch(r"[A-Z]+", words[0]):
        return False
    names = [words[0].lower()]
    if len(words) > 1 and re.fullmatch(r"[A-Z]+", words[1]):
        names.append(f"{words[0]}_{words[1]}".lower())
    return any(hasattr(redis.asyncio.Redis, name) for name in names)


def _slack_method(span: str) -> bool:
    """Whether ``span`` is a Slack Web API method slack_sdk's client has (``chat.update``;
    ``views.*``: any of the family)."""
    from slack_sdk.web.async_client import AsyncWebClient

    if not re.fullmatch(r"[a-z]+\.([a-zA-Z]+|\*)", span):
        return False
    name = span.replace(".", "_")
    if name.endswith("*"):
        return any(method.startswith(name[:-1]) for method in dir(AsyncWebClient))
    return hasattr(AsyncWebClient, name)


def _external_object(dotted: list[str]) -> object | None:
    """What ``dotted`` names outside the repository, imported (None: nothing)."""
    head, rest = dotted[0], dotted[1:]
    if head in EXTERNAL:
        head, *more = EXTERNAL[head].split(".")
        rest = more + rest
    parts = [head, *rest]
    if head in {m.split(".")[0] for m in code().modules}:
        return None
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            if not hasattr(found, part):
                return None
            found = getattr(found, part)
        return found
    return None


def _external(dotted: list[str]) -> bool:
    """Whether ``dotted`` names something importable outside the repository."""
    return _external_object(dotted) is not None


def _resolves(dotted: list[str], index: Index) -> bool:
    """Whether the dotted name is defined (see the module's docstring, rule 7)."""
    head, rest = dotted[0], dotted[1:]
    if not rest:
        return (
            head in index.names
            or head in index.classes
            or bool(index.modules_named(head))
            or hasattr(builtins, head)
            or index.quoted(head)
            or f"{head}=" in index.text
            or _external(dotted)
        )
    for cls in (head, INSTANCES.get(head)):
        if cls is not None and cls in index.classes and _walk("class", cls, rest, index):
            return True
    for cut in range(len(dotted) - 1, 0, -1):
        module = ".".join(dotted[:cut])
        if module in index.modules and _walk("module", module, dotted[cut:], index):
            return True
    for module in index.modules:
        if module.rsplit(".", 1)[-1] == head and _walk("module", module, rest, index):
            return True
    return _external(dotted)


def _walk(kind: str, name: str, parts: list[str], index: Index) -> bool:
    """Whether ``parts`` are found one in the other from the module or class ``name``."""
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if kind == "module" and f"{name}.{part}" in index.modules:
            name = f"{name}.{part}"
            continue
        defined = index.modules[name] if kind == "module" else index.members(name)
        if part not in defined:
            return False
        if not last:
            if part not in index.classes:
                return False
            kind, name = "class", part
    return True


def _dotted(node: ast.expr) -> list[str] | None:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else [*inner, node.attr]
    return None


def _keywords_of(callee: list[str], index: Index) -> set[str] | None:
    """The keywords ``callee`` takes: a class's members, a function's parameters (every
    definition of that name), a third-party function's by its signature, or None when that
    cannot be told (not checked)."""
    outside = _external_object(callee)
    if outside is not None:
        if not callable(outside):
            return None
        try:
            parameters = inspect.signature(outside).parameters.values()
        except (TypeError, ValueError):
            return None
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
            return None
        return {p.name for p in parameters}
    name = callee[-1]
    if name not in index.classes and name not in index.functions:
        return None
    taken = index.members(name)
    for params in index.functions.get(name, []):
        taken |= params
    return taken


def _python_problems(tree: ast.AST, index: Index) -> Iterator[str]:
    def refer(node: ast.expr) -> Iterator[str]:
        if isinstance(node, ast.Call):
            callee = _dotted(node.func)
            if callee is None:
                yield from refer(node.func)
                return
            if not _resolves(callee, index):
                yield f"no {'.'.join(callee)} in the code"
                return
            taken = _keywords_of(callee, index)
            for keyword in node.keywords:
                if taken is not None and keyword.arg is not None and keyword.arg not in taken:
                    yield f"{'.'.join(callee)} takes no {keyword.arg}="
            for argument in [*node.args, *(k.value for k in node.keywords)]:
                yield from calls(argument)
        elif (dotted := _dotted(node)) is not None:
            if not _resolves(dotted, index):
                yield f"no {'.'.join(dotted)} in the code"
        elif isinstance(node, ast.Attribute):  # of what a call returns: any class's member
            yield from refer(node.value)
            if node.attr not in index.names:
                yield f"no {node.attr} in the code"
        elif isinstance(node, ast.Subscript):
            yield from refer(node.value)
        elif isinstance(node, ast.BinOp):
            yield from refer(node.left)
            yield from refer(node.right)
        elif isinstance(node, ast.Compare):
            for part in [node.left, *node.comparators]:
                yield from refer(part)
        elif isinstance(node, ast.UnaryOp):
            yield from refer(node.operand)
        else:
            yield from calls(node)

    def calls(node: ast.AST) -> Iterator[str]:
        """In arguments and literals only the calls are checked (their other names are
        examples)."""
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call):
                yield from refer(inner)
                return

    if isinstance(tree, ast.Expression):
        yield from refer(tree.body)
        return
    assert isinstance(tree, ast.Module)
    for statement in tree.body:
        if isinstance(statement, ast.Expr):
            yield from refer(statement.value)
        elif isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
            if isinstance(statement, ast.Assign):
                for target in statement.targets:
                    if not isinstance(target, ast.Name):
                        yield from refer(target)
            yield from refer(statement.value)


def _parsed(span: str) -> ast.AST | None:
    """The span as Python: ``…`` is ``...``, an elided item (``f(a=1, ...)``, ``{"k": v,
    ...}``) is left out and a signature's return (``-> list[Event]``) is dropped."""
    source = span.replace("…", "...").split(" -> ")[0]
    source = re.sub(r",\s*\.\.\.(?=\s*[)}\]])", "", source)
    for mode in ("eval", "exec"):
        try:
            return ast.parse(source, mode=mode)
        except SyntaxError:
            continue
    return None


def problems(span: str, index: Index) -> list[str]:
    """Why ``span`` cites what the code does not have (empty: it cites what exists)."""
    first = span.split(" ")[0]
    if _is_path(span):
        problem = _path_problem(span)
    elif first.startswith("boardroom:") or first.startswith(":"):
        problem = _key_problem(span, index)
    elif first in ("boardroom", "bench", "simulate") or first.startswith("--"):
        problem = _command_problem(span, index)
    elif re.fullmatch(r"(GET |POST )?/[a-z]+", span):
        path = span.split(" ")[-1]
        problem = None if index.quoted(path) else f"no {path} in the code"
    elif first.startswith("/"):
        problem = None  # a slash command, as a person types it
    elif re.fullmatch(r"(BOARDROOM|REDIS)_[A-Z_]+(=\S+)?", span):
        name = span.split("=")[0]
        problem = None if index.quoted(name) else f"no setting {name} in the code"
    elif _redis_command(span) or _slack_method(span):
        problem = None
    elif re.fullmatch(r"\w+=\S*( \w+=\S*)*", span):
        missing = [w for w in re.findall(r"(\w+)=", span) if f"{w}=" not in index.text]
        problem = f"no {', '.join(missing)} printed or passed in the code" if missing else None
    elif not re.fullmatch(r"\w+(-\w+)+", span) and (tree := _parsed(span)) is not None:
        return list(_python_problems(tree, index))
    else:
        pattern = ".{0,40}?".join(re.escape(part) for part in PLACEHOLDER.split(span))
        problem = None if re.search(pattern, index.text) else f"{span!r} is nowhere in the code"
    return [problem] if problem is not None else []


# --- the tests ------------------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES)
def test_every_name_a_page_cites_exists(page: str) -> None:
    index = code()
    cited = spans((ROOT / page).read_text())
    assert len(cited) > 50, f"{page} cites almost nothing: is the page read?"
    found = [f"`{span}`: {why}" for span in cited for why in problems(span, index)]
    assert not found, f"{page} cites what the code does not have:\n" + "\n".join(found)


def test_the_architecture_page_is_short() -> None:
    lines = (ROOT / "docs/architecture.md").read_text().splitlines()
    assert len(lines) <= MAX_ARCHITECTURE_LINES, f"{len(lines)} lines"


PLANTED_MISSING = [
    "Pipeline._picture",
    "Pipeline.transacts",
    "rank(names, seats, key, score, shown=...)",
    "Game(name=..., phases=...)",
    "FLOW = Flow(decisions={}, stages=...)",
    "game.at(state).publics",
    "core.engine.NoSuchThing",
    "bot/table/pacing.py",
    "core/games/<game>/nothing.py",
    "nothing_here.py",
    "BOARDROOM_NO_SUCH_SETTING",
    "NO_SUCH_CONSTANT",
    "no_such_function_anywhere",
    "bench --adapter discord --no-such-option",
    "boardroom:{<platform>:<channel>}:nosuchkey",
    "GET /nosuchpath",
    "pending:<token>:nosuch",
    "ImageFont.no_such_font",
    "ImageFont.load_default(no_such=1)",
    "chat.no_such_method",
    "results=25 no_such_figure=0",
    "legal_moves",
]
PLANTED_PRESENT = [
    "Pipeline.transact",
    "Table._picture",
    "play.show_board",
    "Budget.take",
    "codec.bind",
    "rank(names, seats, key, score, note=...)",
    "Game.render_board(state, pictured=True)",
    "game.at(state)",
    "Face.public",
    "state.decision",
    "ui.Message.picture_key",
    "core.engine.open_decision(state, 'pick')",
    "bot/table/plan.py",
    "core/games/<game>/picture.py",
    "plan.py",
    "BOARDROOM_FINISHED_TTL_HOURS",
    "COALESCE_S",
    "XRANGE",
    'SET <never-set key> "" XX',
    "bench --adapter discord --real-clock",
    "boardroom:{<platform>:<channel>}:refs",
    "GET /healthz",
    "pending:<token>:<n>:<since>",
    "redis.asyncio",
    "ImageFont.load_default(size=...)",
    '["challenge",36,"challenge_ipo"]',
    "/relay start",
    "chat.update",
    "views.*",
    "results=25 results_pending=0",
    "dataclasses.replace(GAME, name=...)",
    "Flow(decisions={'pick': Decision(plays={Pick: Play(check=..., apply=...)}, ...), ...})",
    "apply(state, ...) -> list[Event]",
    "forget-me",
]


@pytest.mark.parametrize("span", PLANTED_MISSING)
def test_the_checker_reports_a_name_that_does_not_exist(span: str) -> None:
    page = f"# A page\n\nIt cites `Game.apply` and `{span}`, and `core/engine.py`.\n"
    found = {cited: problems(cited, code()) for cited in spans(page)}
    assert list(found) == ["Game.apply", span, "core/engine.py"]
    assert found[span] != [] and found["Game.apply"] == found["core/engine.py"] == [], found


@pytest.mark.parametrize("span", PLANTED_PRESENT)
def test_the_checker_accepts_what_exists(span: str) -> None:
    assert problems(span, code()) == []


QUOTE = re.compile(r"^( *)```python\n\1# (\S+)\n(.*?)^\1```", re.S | re.M)


def quotes(page: str) -> list[tuple[str, str]]:
    """The fenced Python blocks of ``page`` that name the file they quote on their first line
    (``# tests/team_game.py``): that file, and the code, unindented as the block is."""
    found = []
    for indent, path, body in QUOTE.findall(page):
        lines = [line.removeprefix(indent) for line in body.splitlines()]
        found.append((path, "\n".join(lines).strip("\n")))
    return found


def test_the_code_adding_a_game_shows_is_the_code() -> None:
    """Each quoted block of adding-a-game.md is, line for line, a part of the file it names
    (Relay's declaration, as the page walks through it)."""
    shown = quotes((ROOT / "docs/adding-a-game.md").read_text())
    assert len(shown) >= 3
    for path, block in shown:
        assert block in (ROOT / path).read_text(), (
            f"adding-a-game.md's block is not {path}:\n{block}"
        )


def test_a_quoted_block_that_differs_is_found() -> None:
    page = "1. It:\n\n   ```python\n   # tests/team_game.py\n   TARGET = 11\n   ```\n"
    assert quotes(page) == [("tests/team_game.py", "TARGET = 11")]
    assert "TARGET = 11" not in (ROOT / "tests/team_game.py").read_text()
    assert "TARGET = 10" in (ROOT / "tests/team_game.py").read_text()


def test_a_fenced_block_is_not_read_and_a_span_may_break_lines() -> None:
    page = "```\n`Nowhere.at_all`\n```\nThe `Pipeline.\ntransact` step.\n"
    assert spans(page) == ["Pipeline. transact"]


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation gone, spaces hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def broken_links(page: Path) -> list[str]:
    """The relative links of ``page`` to a file that is missing or a heading it lacks (read
    from where ``page`` really is: a game's rules page is linked into docs/games/)."""
    broken = []
    for target in LINK.findall(FENCE.sub("", page.read_text())):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.resolve().parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", FENCE.sub("", linked.read_text()), re.M)
            if anchor not in {slug(h) for h in headings}:
                broken.append(target)
    return broken


@pytest.mark.parametrize(
    "page", ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md"))]
)
def test_every_relative_link_of_the_docs_lands(page: str) -> None:
    assert broken_links(ROOT / page) == []


def test_a_link_to_a_heading_that_moved_is_found(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\n## Where to change what\n")
    page = tmp_path / "b.md"
    page.write_text("[ok](a.md#where-to-change-what) [moved](a.md#budgets) [gone](c.md)\n")
    assert broken_links(page) == ["a.md#budgets", "c.md"]
