"""Every function of the bot, the core and storage stays readable: radon's cyclomatic
complexity (each branch, loop, boolean operator and comprehension a reader has to follow) is
at most 20 (rank C or better), and the authority's transaction reads as its steps, none over
10 (issue 38)."""

from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Function

ROOT = Path(__file__).resolve().parent.parent
MOST = 20
STEPS = 10
PIPELINE_STEPS = ("transact", "_once", "_load", "_decide", "_prepare", "_save", "_recorded")


def _functions(path: Path) -> list[Function]:
    found: list[Function] = []
    for block in cc_visit(path.read_text()):
        if isinstance(block, Function):
            found.append(block)
        else:  # a class: its methods
            found.extend(block.methods)
    return found


def over(limit: int, source: str) -> list[str]:
    """The functions of ``source`` (Python text) whose complexity is over ``limit``."""
    blocks: list[Function] = []
    for block in cc_visit(source):
        blocks.extend([block] if isinstance(block, Function) else block.methods)
    return [f"{b.fullname} {b.complexity}" for b in blocks if b.complexity > limit]


def test_no_function_of_bot_core_or_storage_is_over_20() -> None:
    found = []
    for package in ("bot", "core", "storage"):
        for path in sorted((ROOT / package).rglob("*.py")):
            found += [f"{path.relative_to(ROOT)}: {f}" for f in over(MOST, path.read_text())]
    assert not found, "over a complexity of 20:\n" + "\n".join(found)


def test_the_transaction_reads_as_steps_none_over_10() -> None:
    steps = {
        f.name: f.complexity
        for f in _functions(ROOT / "bot/commands/pipeline.py")
        if f.classname == "Pipeline"
    }
    assert set(PIPELINE_STEPS) <= set(steps), sorted(steps)
    assert {name: steps[name] for name in PIPELINE_STEPS if steps[name] > STEPS} == {}


def test_the_measure_sees_what_a_reader_follows() -> None:
    """A function of 21 branches is reported; its two halves are not (the test can fail)."""
    branches = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(20))
    assert over(MOST, f"def f(x):\n{branches}\n    return -1\n") == ["f 21"]
    half = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(10))
    assert over(MOST, f"def f(x):\n{half}\n    return g(x)\n") == []
