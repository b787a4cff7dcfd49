"""Production code (bot/, core/, storage/) never imports a fake, a simulated player or a bench
driver, not even lazily; `boardroom bench` is an entry point of bench/. No module of bot/,
core/ or storage/ imports itself through others."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _imports(tree: ast.AST) -> list[tuple[str, bool]]:
    """(module, at module level) of every import in ``tree``."""
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = top and not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import):
                found.extend((alias.name, top) for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and not child.level:
                found.append((child.module, top))
            visit(child, inner)

    visit(tree, True)
    return found


FORBIDDEN = ("testkit", "bench", "tests")


def test_production_code_never_imports_the_test_kit_a_bench_or_a_fake() -> None:
    """Every import in bot/, core/ and storage/, at module level or inside a function alike."""
    problems = []
    for package in ("bot", "core", "storage"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for module, _top in _imports(ast.parse(path.read_text(encoding="utf-8"))):
                root = module.split(".")[0]
                # fakeredis is the embedded store, a production dependency; our own fakes
                # live in testkit/.
                if root in FORBIDDEN:
                    problems.append(f"{path.relative_to(ROOT)} imports {module}")
            text = path.read_text(encoding="utf-8")
            # importlib.import_module("bench....") would hide an import from the walk.
            for root in FORBIDDEN:
                if f'import_module("{root}' in text or f"import_module('{root}" in text:
                    problems.append(f"{path.relative_to(ROOT)} imports {root} by name")
    assert problems == []
    # The check can fail: the benches themselves import the test kit, lazily too.
    bench = _imports(ast.parse((ROOT / "bench" / "cli.py").read_text(encoding="utf-8")))
    assert any(module.startswith("bench.") and not top for module, top in bench)
    assert not (ROOT / "storage" / "local_server.py").exists()


def test_boardroom_bench_is_an_entry_point_of_the_bench_package() -> None:
    """`boardroom bench` is found through the ``boardroom.commands`` entry point, so the bot
    names no bench module."""
    from importlib.metadata import entry_points

    points = {point.name: point.value for point in entry_points(group="boardroom.commands")}
    assert points == {"bench": "bench.cli"}
    from bot.cli import _parser

    args = _parser().parse_args(["bench", "--adapter", "slack", "--hostile"])
    assert (args.command, args.adapter, args.hostile) == ("bench", "slack", True)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported_modules(tree: ast.AST, name: str, is_package: bool, known: set[str]) -> set[str]:
    """The modules of ``known`` that the module ``name`` imports anywhere: at module level,
    inside functions and under ``if TYPE_CHECKING:`` alike (relative imports resolved)."""
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            # `from pkg import mod` imports the module pkg.mod; `from mod import name`, mod.
            # (Like `import pkg.mod`, the first counts pkg.mod only: a package is always
            # imported before its modules, which is no cycle of theirs.)
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            # `import a.b.c` runs a.b.c; the innermost known module is what it depends on.
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The shortest cycle through each module that lies on one, each written once as a path
    back to its start (Tarjan's strongly connected sets, then a breadth-first search in each)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group: set[str] = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            connect(node)
    cycles: set[tuple[str, ...]] = set()
    for group in groups:
        for start in group:
            # Breadth-first inside the group from `start` back to it: its shortest cycle,
            # written from its smallest name so that each cycle is named once.
            paths = {start: [start]}
            queue = [start]
            while queue:
                node = queue.pop(0)
                if start in graph[node]:
                    cycle = paths[node]
                    first = cycle.index(min(cycle))
                    cycles.add(tuple(cycle[first:] + cycle[:first]))
                    break
                for target in sorted(graph[node] & group):
                    if target not in paths:
                        paths[target] = [*paths[node], target]
                        queue.append(target)
    return sorted([*cycle, cycle[0]] for cycle in cycles)


@pytest.mark.parametrize("package", ["bot", "core", "storage"])
def test_no_module_imports_itself_through_others(package: str) -> None:
    """No import cycle among the modules of bot/, core/ or storage/, counting imports inside
    functions and under ``if TYPE_CHECKING:``: a type needed only for checking is a Protocol
    where it is used; games are listed by ``core.games.builtin_games``, never registered by
    their own import."""
    paths = {_module_name(path): path for path in sorted((ROOT / package).rglob("*.py"))}
    known = set(paths)
    graph = {
        name: _imported_modules(
            ast.parse(path.read_text(encoding="utf-8")), name, path.name == "__init__.py", known
        )
        for name, path in paths.items()
    }
    cycles = [" -> ".join(cycle) for cycle in _cycles(graph)]
    assert cycles == [], f"import cycles in {package}/:\n" + "\n".join(cycles)
    # The check can fail: a module importing its importer is a cycle.
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]


def test_importing_a_game_registers_nothing() -> None:
    """The registry lists the built-in games explicitly: importing a game's package (in a fresh
    interpreter) leaves the registry as it was."""
    probe = (
        "import core.registry as r, core.games.bigidea; "
        "assert r._GAMES == {}, r._GAMES; "
        "assert [g.name for g in r.all_games()] == ['biggiebills', 'bigidea', 'businessgo']"
    )
    subprocess.run([sys.executable, "-c", probe], check=True, cwd=ROOT)


ENCODERS = {"encode_button", "encode_select", "MessageIds"}
"""What turns a control into its id: the codec's own, used through :func:`codec.bind` only."""


def _codec_names(tree: ast.AST) -> set[str]:
    """The names of ``bot.commands.codec`` a module uses: imported from it, or read as
    ``codec.<name>`` (lazy imports included)."""
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "bot.commands.codec":
            used.update(alias.name for alias in node.names)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "codec"
        ):
            used.add(node.attr)
    return used


def test_ids_are_bound_by_the_table_and_renderers_draw_them() -> None:
    """Controls are bound to ids once, by the codec's layer (the table's executor binds each
    message for where it goes); no adapter or renderer encodes one, nor binds it again."""
    problems = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        relative = path.relative_to(ROOT)
        if relative == Path("bot/commands/codec.py"):
            continue
        used = _codec_names(ast.parse(path.read_text(encoding="utf-8")))
        if used & ENCODERS:
            problems.append(f"{relative} encodes ids itself: {sorted(used & ENCODERS)}")
        if "bind" in used and relative.parts[:2] != ("bot", "table"):
            problems.append(f"{relative} binds ids outside the table")
    assert problems == []
    # The check can fail: the table does bind, through the codec.
    assert "bind" in _codec_names(ast.parse((ROOT / "bot/table/deliver.py").read_text()))


def _assembled_ids(tree: ast.AST, prefix: str) -> list[int]:
    """Lines of ``tree`` holding a string (plain, an f-string's part, a pattern) that starts or
    matches an id of the codec's grammar, or reaching for the codec's own prefix: an id
    assembled, or read, by hand."""
    marks = (f"{prefix}|", f"{prefix}\\|")
    lines = set()
    for node in ast.walk(tree):
        spelled = isinstance(node, ast.Constant) and any(mark in str(node.value) for mark in marks)
        reached = (isinstance(node, ast.Attribute) and node.attr == "_PREFIX") or (
            isinstance(node, ast.ImportFrom) and any(a.name == "_PREFIX" for a in node.names)
        )
        if spelled or reached:
            lines.add(getattr(node, "lineno", 0))
    return sorted(lines)


def test_ids_are_built_and_read_by_the_codec_alone() -> None:
    """No module of bot/ but the codec spells an id of its grammar, in any form: a literal, an
    f-string assembling one, a pattern matching one (Discord's handlers take the codec's
    patterns; a form's name is the codec's, for Discord and Slack alike)."""
    from bot.commands import codec

    prefix = codec._PREFIX
    problems = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        relative = path.relative_to(ROOT)
        if relative == Path("bot/commands/codec.py"):
            continue
        for lineno in _assembled_ids(ast.parse(path.read_text(encoding="utf-8")), prefix):
            problems.append(f"{relative}:{lineno}")
    assert problems == []
    # The check can fail: an id assembled by hand, as an f-string or a pattern, is caught.
    planted = (
        'custom_id = f"br1|a|{game}|{channel}|{version}||{action}"\n'
        'FORM = re.compile(r"br1\\|f\\|(.*)")\n'
        "def name(game):\n"
        '    return "br1|c|" + game\n'
        'ask = f"{codec._PREFIX}|q|{game}"\n'
    )
    assert _assembled_ids(ast.parse(planted), prefix) == [1, 2, 4, 5]
