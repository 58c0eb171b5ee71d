"""The import cycles among hive's own modules, read from the source with ``ast`` (nothing is imported).

Two graphs: *runtime* counts the imports that run when a module is loaded (module level, outside
``if TYPE_CHECKING:``); *all* adds those inside functions and the typing-only ones. A cycle is a
strongly connected group of two or more modules. Run ``python benchmarks/support/import_cycles.py``.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "hive_cli")
Graph = dict[str, set[str]]


def module_name(path: Path) -> str:
    """``engine/agent.py`` → ``engine.agent``; a package's ``__init__.py`` is the package."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(node: ast.Import | ast.ImportFrom, modules: set[str]) -> Iterator[str]:
    """The project's modules an import statement loads (``from a import b``: ``a``, and ``a.b`` when that is one)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        names = [f"{base}.{alias.name}" for alias in node.names] + [base]
    for name in names:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name:
            yield name


def is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def runtime_imports(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """The imports run when the module loads: module level, in ``try``/``if`` blocks but not TYPE_CHECKING ones."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and not is_type_checking(node):
            yield from runtime_imports(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            yield from runtime_imports(node.body + node.orelse + node.finalbody)


def graphs() -> tuple[Graph, Graph]:
    """The runtime graph and the graph of every import."""
    files = {module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}
    modules = set(files)
    runtime: Graph = {name: set() for name in modules}
    every: Graph = {name: set() for name in modules}
    for name, path in files.items():
        tree = ast.parse(path.read_text(), str(path))
        for node in runtime_imports(tree.body):
            runtime[name].update(m for m in imported(node, modules) if m != name)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                every[name].update(m for m in imported(node, modules) if m != name)
    return runtime, every


def cycles(graph: Graph) -> list[list[str]]:
    """The strongly connected groups of two or more modules (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return sorted(found)


def main() -> int:
    runtime, every = graphs()
    for label, graph in (("runtime", runtime), ("all", every)):
        found = cycles(graph)
        print(f"{label} imports: {len(found)} cycle(s)")
        for group in found:
            print(f"  {len(group)} modules: {', '.join(group)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
