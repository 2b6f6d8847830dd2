"""A cache of parsed files, so re-checking or re-running an unchanged game skips parsing.

Entries are keyed by the file's text and by the source of the grammar, parser and AST modules, so
any change to either makes a new key (stale entries are never used). They live in
`$WARCODEX_CACHE_DIR`, else `$XDG_CACHE_HOME/warcodex`, else `~/.cache/warcodex`; set
`WARCODEX_NO_CACHE=1` to disable. A cache that cannot be read or written is ignored silently:
it is an optimisation, never a source of errors.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import tempfile
from importlib import resources
from pathlib import Path

from warcodex.dsl import ast


@functools.lru_cache(maxsize=1)
def _toolchain_key() -> bytes:
    digest = hashlib.sha256()
    for name in ("warcodex.lark", "parser.py", "ast.py"):
        digest.update(resources.files("warcodex.dsl").joinpath(name).read_bytes())
    return digest.digest()


def cache_dir() -> Path | None:
    if os.environ.get("WARCODEX_NO_CACHE"):
        return None
    if os.environ.get("WARCODEX_CACHE_DIR"):
        return Path(os.environ["WARCODEX_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "warcodex"


def _entry(text: str, path: str) -> Path | None:
    folder = cache_dir()
    if folder is None:
        return None
    digest = hashlib.sha256(_toolchain_key() + path.encode() + b"\0" + text.encode("utf-8")).hexdigest()
    return folder / f"{digest}.ast"


def get(text: str, path: str) -> ast.Module | None:
    entry = _entry(text, path)
    if entry is None:
        return None
    try:
        with open(entry, "rb") as f:
            module = pickle.load(f)
        return module if isinstance(module, ast.Module) else None
    except Exception:  # noqa: BLE001 - a bad cache entry is a cache miss
        return None


def put(text: str, path: str, module: ast.Module) -> None:
    entry = _entry(text, path)
    if entry is None:
        return
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            pickle.dump(module, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, entry)
    except Exception:  # noqa: BLE001 - an unwritable cache is no cache
        pass


def lark_cache_file(name: str, grammar: str) -> str | bool:
    """Where Lark may keep a grammar's compiled parse tables (its `cache=` option), or False."""
    folder = cache_dir()
    if folder is None:
        return False
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    digest = hashlib.sha256(grammar.encode("utf-8")).hexdigest()[:20]
    return str(folder / f"{name}-{digest}.lark-tables")
