"""Production code (bot/, core/, storage/) never imports a fake, a simulated player or a bench
driver; `boardroom bench` reaches bench/ only from inside the command that runs it."""

from __future__ import annotations

import ast
from pathlib import Path

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


def test_production_code_never_imports_the_test_kit_or_a_bench_at_import_time() -> None:
    problems = []
    for package in ("bot", "core", "storage"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for module, top in _imports(ast.parse(path.read_text(encoding="utf-8"))):
                root = module.split(".")[0]
                if root == "testkit" or (root == "bench" and top):
                    problems.append(f"{path.relative_to(ROOT)} imports {module}")
    assert problems == []
    # The check can fail: the benches themselves import the test kit.
    bench = _imports(ast.parse((ROOT / "bench" / "discord.py").read_text(encoding="utf-8")))
    assert any(module.startswith("testkit") for module, _ in bench)
