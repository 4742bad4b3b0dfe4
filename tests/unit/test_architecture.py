"""The map in docs/architecture.md is the import contract's: the same layers, in the same order, and every part of
the package is in one of them, so nothing escapes the contract unseen."""

from __future__ import annotations

import re
import tomllib

import pytest

from tests.conftest import ROOT

_PACKAGE = ROOT / "src" / "toolreplay"


def _contract_layers(container: str = "toolreplay") -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layered = next(c for c in contracts if c["type"] == "layers" and c["containers"] == [container])
    return [" | ".join(part.strip() for part in re.split(r"[|:]", layer)) for layer in layered["layers"]]


def _documented_layers() -> list[str]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = text.split("## Layers", 1)[1].split("```", 2)[1]
    # a layer's line begins with its name; a line that begins with a space goes on with the one before
    return [re.split(r"\s{2,}", line)[0] for line in block.strip().splitlines() if not line.startswith(" ")]


def test_the_documented_layers_are_the_contracts() -> None:
    assert _documented_layers() == _contract_layers()


@pytest.mark.parametrize("container", ["toolreplay", "toolreplay.formats"])
def test_every_part_of_the_package_is_in_a_layer(container: str) -> None:
    layered = {name for layer in _contract_layers(container) for name in layer.split(" | ")}
    package = ROOT / "src" / container.replace(".", "/")
    parts = {p.stem for p in package.glob("*.py") if p.stem not in ("__init__", "__main__")}
    parts |= {p.name for p in package.iterdir() if (p / "__init__.py").is_file()}
    assert sorted(parts - layered) == []
    assert sorted(layered - parts) == []


def test_contributing_names_only_files_that_exist() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([\w./-]+/[\w./-]*)`", text)) | set(re.findall(r"\]\(([^)]+)\)", text))
    named = {path for path in named if "NAME" not in path}  # a file to write, not one that is there
    assert len(named) > 20
    assert sorted(path for path in named if not (ROOT / path).exists()) == []
    headings = re.findall(r"^## (.+)$", text, re.M)
    for point in ("A command", "A report format", "An importer", "An analysis", "An agent kind", "A transport"):
        assert any(heading.startswith(point) for heading in headings), point


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every group of modules that import each other round (Tarjan's strongly connected components, iteratively)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    held: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in order:
            continue
        work = [(root, iter(sorted(graph[root])))]
        order[root] = low[root] = len(order)
        stack.append(root)
        held.add(root)
        while work:
            node, rest = work[-1]
            step = next(rest, None)
            if step is not None:
                if step not in order:
                    order[step] = low[step] = len(order)
                    stack.append(step)
                    held.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in held:
                    low[node] = min(low[node], order[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == order[node]:
                group = []
                while True:
                    member = stack.pop()
                    held.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_modules_import_each_other_round() -> None:
    """Every import counts, a function's own included: one made inside a function to dodge a cycle is still one.
    Only what the type checker alone reads is none (the package's own names for its lazily loaded API)."""
    import grimp  # noqa: PLC0415 - import-linter's own graph of the package

    graph = grimp.build_graph("toolreplay", exclude_type_checking_imports=True)
    edges = {module: set(graph.find_modules_directly_imported_by(module)) for module in graph.modules}
    assert _cycles(edges) == []


# What no unit test can run here, and the test that runs it end to end.
_END_TO_END_ONLY = {
    "toolreplay.replay.relayed": "starts a program as another user, as root: tests/acceptance/test_isolation.py",
}


def _imported_by_unit_tests() -> set[str]:
    """Every module a unit test imports, or names as the module it loads (``importlib.import_module``)."""
    import ast  # noqa: PLC0415

    found: set[str] = set()
    for path in (ROOT / "tests" / "unit").rglob("*.py"):
        if path.name == "test_architecture.py":  # names modules, imports none
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
            elif isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif (
                isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("toolreplay.")
            ):
                found.add(node.value)
    return found


def test_every_module_has_a_unit_test_that_imports_it() -> None:
    """So a module's failure shows beside it, not only far away in an end-to-end test (a package's ``__init__``
    holds its docstring alone)."""
    modules = {
        ".".join(path.relative_to(ROOT / "src").with_suffix("").parts)
        for path in _PACKAGE.rglob("*.py")
        if path.stem not in ("__init__", "__main__")
    }
    untested = modules - _imported_by_unit_tests()
    assert sorted(untested - set(_END_TO_END_ONLY)) == []
    assert sorted(set(_END_TO_END_ONLY) - untested) == []  # one that gained a unit test leaves the list
