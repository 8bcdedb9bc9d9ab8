"""The package's shape: no import cycles (module-level or deferred), and packages by layer (each imports only its floor or below)."""

from __future__ import annotations

import ast
from pathlib import Path

import judgebench

PACKAGE = Path(judgebench.__file__).resolve().parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """judgebench modules imported anywhere in the file (top level or inside functions)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            if base.startswith("judgebench"):
                found.add(base)
                found.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("judgebench"))
    return found


def import_graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        targets = {t for t in _imports(path) if t in modules and t != name}
        graph[name] = {t for t in targets if not (name.startswith(t + ".") or t == "judgebench")}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_import_cycles():
    graph = import_graph()
    assert len(graph) > 20
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


# The floor plan: each package imports only packages on its own floor or below (docs/design/layers.md).
LAYERS = [
    ("core",),               # records, errors, files, run directory, secrets, background work, catalogue, parsing
    ("stats",),              # resampling, ratings, exact sums, agreement, paired tests
    ("tasks",),              # task registry, loading, votes
    ("judges",),             # judge ids -> Judge objects, transports, prices
    ("calls",),              # concurrency, retries, cache, budget
    ("scoring",),            # records -> figures
    ("judging",),            # prompts, requests, pipeline, panels and shards as runs
    ("publish",),            # leaderboards, tables, plots, report, submit, export
    ("human", "kinds"),      # votes collected and used; task kinds beyond pairwise
    ("api",),                # the Python API
    ("cli", "__main__"),     # the command line
]
FLOOR = {package: floor for floor, packages in enumerate(LAYERS) for package in packages}


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "judgebench"


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """Imports (top level or deferred) that climb to a higher floor."""
    found = []
    for module, targets in graph.items():
        here = FLOOR.get(_package(module))
        for target in targets:
            there = FLOOR.get(_package(target))
            if here is not None and there is not None and there > here:
                found.append(f"{module} -> {target}")
    return sorted(found)


def test_every_module_sits_on_a_floor():
    unplaced = sorted({_package(m) for m in import_graph()} - set(FLOOR) - {"judgebench"})
    assert not unplaced, f"packages missing from LAYERS: {unplaced}"


def test_packages_import_only_their_floor_or_below():
    violations = layer_violations(import_graph())
    assert not violations, "imports that climb a floor:\n" + "\n".join(violations)


def test_the_layer_check_finds_a_climb():
    assert layer_violations({"judgebench.core.files": {"judgebench.publish.html"}}) == [
        "judgebench.core.files -> judgebench.publish.html"]
    assert layer_violations({"judgebench.publish.html": {"judgebench.core.files"}}) == []
