"""The import directions of docs/architecture.md: language <- engine <- facts <- renderers/tools.
A module may import its own layer and the layers below it, never one above."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = {"dsl": 0, "interpreter": 1, "facts": 2, "exporters": 3, "warcodex": 3, "lsp": 3, "balance": 3}
PACKAGES = {"warcodex.dsl": "dsl", "warcodex.interpreter": "interpreter", "warcodex.facts": "facts",
            "warcodex.exporters": "exporters", "warcodex.cli": "warcodex", "warcodex.console": "warcodex",
            "warcodex.fuzz_command": "warcodex", "warcodex.lsp": "lsp",
            "warcodex.balance": "balance"}


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
                if target is not None and LAYERS[target] > level:
                    found.append(f"{rel} imports {module}")
    assert not found, "\n".join(found)


def test_reading_and_writing_files_is_beneath_every_layer():
    # warcodex.inputs (bounded, regular-file reads) and warcodex.outputs (atomic writes) serve every
    # layer, the language included, so they import nothing of Warcodex
    for name in ("inputs", "outputs"):
        inside = {m for m in _imports(ROOT / "warcodex" / f"{name}.py") if m.startswith("warcodex")}
        assert not inside, (name, inside)


def test_the_ast_is_the_bottom_of_the_language():
    # every part of the language reads the AST; the AST reads none of them (only spans)
    inside = {m for m in _imports(ROOT / "dsl" / "ast.py") if m.startswith("warcodex.")}
    assert inside <= {"warcodex.dsl.diagnostics"}, inside


# what a renderer may use of the engine: value types, compiling an engine, writing files (the
# language, maps included, it may read); everything it knows about a game comes from the facts
# package's public names. A replay's positions come from the engine replaying the log, step by step
# (`recording`), and the trace's lines are read with the engine's own reader (`explain`)
RENDERER_ENGINE_USES = {"warcodex.interpreter.values", "warcodex.interpreter.engine", "warcodex.interpreter.saves",
                        "warcodex.interpreter.recording", "warcodex.interpreter.explain"}


def test_renderers_read_the_facts_not_the_rules():
    # a feature's `command.py` is the command line's, not a renderer: it may run the engine (replay
    # a log to the positions it renders) before it hands them to the renderer beside it
    found = []
    for path in sorted((ROOT / "exporters").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if path.name == "command.py":
            continue
        for module in _imports(path):
            if module.startswith("warcodex.facts."):
                found.append(f"{rel} imports {module} (use the names `warcodex.facts` exports)")
            elif module.startswith("warcodex.interpreter") and module not in RENDERER_ENGINE_USES:
                found.append(f"{rel} imports {module}")
    assert not found, "\n".join(found)


def test_command_registration_is_one_way():
    # the CLI imports the commands that live with their feature (lazily, LAZY_COMMANDS); they share
    # warcodex.console with it and never import the CLI back
    found = []
    for folder in LAYERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel in ("warcodex/cli.py", "warcodex/__main__.py"):
                continue
            if "warcodex.cli" in set(_imports(path)):
                found.append(rel)
    assert not found, found


# the one place text becomes code: the generated Python of the checked rules (docs/engine.md,
# "How rules become Python"), compiled from the AST's own code generator, never from user text
COMPILES_CODE = {"interpreter/generated.py"}


def test_no_eval_or_exec_outside_the_code_generator():
    found = []
    for folder in (*LAYERS, "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel in COMPILES_CODE:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in ("eval", "exec"):
                    found.append(f"{rel}:{node.lineno} calls {ast.unparse(node.func)}")
    assert not found, "\n".join(found)
