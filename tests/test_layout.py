"""The tree keeps its floors (STYLE.md §2, §12): imports point down, never in a circle, never inside a function.

Read from the source with `ast`, nothing imported: every module of the project, its module-level
imports, and any import statement inside a function body.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("lib", "introspect", "ledger", "waysweb", "sample", "bench", "tests")
# Inside an app, top → bottom. A module may import its own layer or one below it, never one above.
APP_LAYERS = {
    "views": 0,
    "management": 0,
    "templatetags": 0,
    "urls": 0,
    "apps": 0,
    "forms": 0,
    "queries": 1,
    "documents": 2,
    "services": 3,
    # Which database `serve` uses: reads the models, read by the commands.
    "served_database": 3,
    "derive": 4,
    "importer": 5,
    "files": 5,
    "models": 7,
    "migrations": 7,
    # Pure functions over plain values, no Django: introspect's upstream algorithms, ledger's ADR formats.
    "rules": 8,
    "records": 8,
}
# Imports inside a function are allowed only for these, each with its reason:
LOCAL_IMPORT_ALLOWED = {
    # Optional dependencies: installed for PostgreSQL and for the browser tests only.
    "psycopg": "optional (the postgres extra)",
    "playwright": "optional (the browser-test group)",
    # Imported on first use, so that `ingest`'s start skips them: a no-op re-run parses no front
    # matter and watches nothing (issue 29; tests/waysweb/management/test_ingest_start.py).
    "yaml": "first use (lib/frontmatter.py)",
    "watchfiles": "first use, --follow only (introspect/importer/watch.py)",
}


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "home" in path.relative_to(ROOT).parts[:2] and package == "sample":
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


MODULES = modules()


def imported(node: ast.AST, module: str) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        return [
            f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in MODULES else node.module
            for alias in node.names
        ]
    return []


def project_module(name: str) -> str | None:
    """The project module `name` refers to (a module, or the package holding a name), else None."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def top_level_imports(path: Path, module: str) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in tree.body:
        nodes = [node]
        if isinstance(node, ast.If):  # `if TYPE_CHECKING:` and similar guards still count
            nodes += node.body + node.orelse
        for item in nodes:
            for name in imported(item, module):
                target = project_module(name)
                if target and target != module:
                    found.add(target)
    return found


GRAPH = {module: top_level_imports(path, module) for module, path in MODULES.items()}


APPS = ("introspect", "ledger")


def layer(module: str) -> tuple[str, int] | None:
    """(app, layer) of an app module; None for lib, the project, the rest and a folder no layer names."""
    parts = module.split(".")
    if parts[0] not in APPS or len(parts) < 2 or parts[1] not in APP_LAYERS:
        return None
    return parts[0], APP_LAYERS[parts[1]]


def unplaced(modules: list[str]) -> list[str]:
    """The app modules whose folder (or top module) APP_LAYERS does not name: no layer, so unchecked."""
    return [
        module
        for module in modules
        if module.split(".")[0] in APPS and module.count(".") >= 1 and layer(module) is None
    ]


def test_every_module_of_an_app_sits_on_a_layer_it_names():
    """A new folder in an app is placed on purpose: added to APP_LAYERS, or this fails."""
    assert unplaced(sorted(MODULES)) == []


def test_a_folder_it_does_not_place_is_reported_not_put_on_the_top_layer():
    assert unplaced(["introspect.newfolder.thing", "ledger.stray", "introspect.views.detail", "lib.x"]) == [
        "introspect.newfolder.thing",
        "ledger.stray",
    ]
    assert layer("introspect.newfolder.thing") is None
    assert layer("introspect.views.detail") == ("introspect", 0)


def test_every_python_folder_of_the_project_is_read():
    """A new top-level package is read for its imports too: PACKAGES names it, or this fails."""
    holding_python = {
        folder.name
        for folder in ROOT.iterdir()
        if folder.is_dir() and not folder.name.startswith(".") and next(folder.rglob("*.py"), None)
    }
    assert holding_python <= set(PACKAGES)


def test_no_module_imports_from_a_layer_above_it():
    upward = []
    for module, targets in GRAPH.items():
        here = layer(module)
        if here is None:
            continue
        for target in targets:
            there = layer(target)
            if there is not None and there[1] < here[1]:
                upward.append(f"{module} -> {target}")
    assert upward == []


def test_introspect_never_imports_ledger_and_the_ground_imports_no_app():
    wrong = [
        f"{module} -> {target}"
        for module, targets in GRAPH.items()
        for target in targets
        if (module.startswith("introspect") and target.split(".")[0] in ("ledger", "waysweb"))
        or (module.startswith("ledger") and target.split(".")[0] == "waysweb")
        or (module.startswith("lib") and target.split(".")[0] in ("introspect", "ledger", "waysweb"))
    ]
    assert wrong == []


def test_there_is_no_import_cycle():
    cycles, state, stack = [], {}, []

    def visit(module: str) -> None:
        state[module] = "open"
        stack.append(module)
        for target in sorted(GRAPH.get(module, ())):
            if state.get(target) == "open":
                cycles.append([*stack[stack.index(target) :], target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[module] = "done"

    for module in sorted(GRAPH):
        if module not in state:
            visit(module)
    assert cycles == []


def local_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            in_ready = node.name == "ready" and path.name == "apps.py"
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)) and not in_ready:
                    names = (
                        [alias.name for alias in inner.names]
                        if isinstance(inner, ast.Import)
                        else [inner.module or ""]
                    )
                    if not all(name.split(".")[0] in LOCAL_IMPORT_ALLOWED for name in names):
                        found.append(f"{path.relative_to(ROOT)}:{inner.lineno}: {ast.unparse(inner)}")
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_no_function_local_imports(package):
    """Imports sit at the top of a module; the app registry's `ready()` (Django's contract: models
    cannot be imported while apps load) and the optional dependencies are the only exceptions."""
    found = [
        line
        for module, path in MODULES.items()
        if module.split(".")[0] == package
        for line in local_imports(path)
    ]
    assert found == []


# Past this a module is two jobs more often than one; one that stays longer says why at its top.
LONG_MODULE_LINES = 500


@pytest.mark.parametrize("app", ["introspect", "ledger"])
def test_a_module_longer_than_500_lines_says_why_at_its_top(app):
    unexplained = []
    for path in sorted((ROOT / app).rglob("*.py")):
        if "migrations" in path.parts:
            continue
        source = path.read_text()
        if source.count("\n") <= LONG_MODULE_LINES:
            continue
        docstring = ast.get_docstring(ast.parse(source)) or ""
        if "Why" not in docstring:
            unexplained.append(f"{path.relative_to(ROOT)} ({source.count(chr(10))} lines)")
    assert not unexplained, "split these, or say at the top why one module: " + ", ".join(unexplained)
