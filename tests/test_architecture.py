"""The import directions of docs/architecture.md: language <- engine <- facts <- renderers/tools.
A module may import its own layer and the layers below it, never one above."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = {"dsl": 0, "interpreter": 1, "facts": 2, "exporters": 3, "warcodex": 3, "lsp": 3}
PACKAGES = {"warcodex.dsl": "dsl", "warcodex.interpreter": "interpreter", "warcodex.facts": "facts",
            "warcodex.exporters": "exporters", "warcodex.cli": "warcodex", "warcodex.lsp": "lsp"}
# known debts, listed in docs/architecture.md; the list may only shrink
ALLOWED = {
    ("dsl/checker.py", "warcodex.interpreter.mapfile"),  # checks the map's names with the map parser
    ("interpreter/fuzzing.py", "warcodex.cli"),  # the fuzz command's output helpers
}


def _imports(path: Path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module" and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            yield node.args[0].value


def _layer(module: str) -> str | None:
    for prefix, folder in PACKAGES.items():
        if module == prefix or module.startswith(prefix + "."):
            return folder
    return None


def test_no_module_imports_a_layer_above_its_own():
    found = []
    for folder, level in LAYERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for module in _imports(path):
                target = _layer(module)
                if target is not None and LAYERS[target] > level and (rel, module) not in ALLOWED:
                    found.append(f"{rel} imports {module}")
    assert not found, "\n".join(found)


def test_the_known_debts_still_exist():
    # an allowed exception that is gone must leave the list (and docs/architecture.md)
    for rel, module in ALLOWED:
        assert module in set(_imports(ROOT / rel)), (rel, module)
