"""Reading the user's files (rules, maps, overlays, saves, logs) without hanging, exhausting memory
or echoing files the user never meant to show.

Every input goes through `read_text`, which

* reads regular files only: the file is opened non-blocking and checked with `fstat` before any
  read, so a FIFO never blocks, `/dev/zero` is never read, a folder or a socket is refused;
* refuses a file larger than its bound before reading it (`MAX_RULES_BYTES`...);
* reports invalid UTF-8 at its line and column (not as a byte offset);
* turns every OSError (permissions, symlink loops, names too long, NUL bytes) into an
  `InputError` naming the file and the reason.

`confine(path, roots)` refuses a path that resolves, symbolic links followed, outside the folders a
game may read (its own folder, and roots the user names explicitly with `--include-root`).
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

# Bounds on what one file may hold: far above any real game (Stalingrad '42's rules are 0.4 MB,
# its map 0.1 MB), low enough that a mistaken or hostile file is refused before it costs minutes.
MAX_RULES_BYTES = 32 * 1024 * 1024
MAX_MAP_BYTES = 64 * 1024 * 1024
MAX_RECORD_BYTES = 512 * 1024 * 1024  # saves and logs: a long campaign's traced log is large


@dataclass
class InputError(Exception):
    """A file that cannot be used as input; `line` and `column` locate bad text when known."""

    path: str
    message: str
    line: int | None = None
    column: int | None = None
    hint: str | None = None
    text: str | None = None  # the file's text with bad bytes replaced, to show the line

    def __str__(self) -> str:
        """The message; a located one starts with `path:line:column:` (unlocated ones name the
        path in their words)."""
        return f"{self.path}:{self.line}:{self.column}: {self.message}" if self.line is not None else self.message


_KIND = {stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
         stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a folder"}


def os_reason(exc: OSError) -> str:
    """The reason of an OSError in words, without Python's decoration."""
    if exc.errno == errno.ELOOP:
        return "a loop of symbolic links"
    return exc.strerror or str(exc)


def read_bytes(path: str | Path, limit: int, what: str = "file") -> bytes:
    """The bytes of a regular file of at most `limit` bytes; InputError otherwise."""
    name = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(name, f"{what} not found: {name}") from None
    except IsADirectoryError:
        raise InputError(name, f"cannot read {name}: it is a folder, not a {what}") from None
    except OSError as exc:
        raise InputError(name, f"cannot read {name}: {os_reason(exc)}") from None
    except ValueError:  # a NUL byte in the name
        shown = name.replace("\0", "\\0")
        raise InputError(shown, f"cannot read {shown}: the name holds a NUL byte") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = _KIND.get(stat.S_IFMT(info.st_mode), "not a regular file")
            raise InputError(name, f"cannot read {name}: it is {kind}, not a regular file")
        if info.st_size > limit:
            raise InputError(name, f"cannot read {name}: {info.st_size:,} bytes, more than the {limit:,} a {what} may hold")
        chunks, total = [], 0
        while True:  # a file that grows while read is still bounded
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise InputError(name, f"cannot read {name}: more than the {limit:,} bytes a {what} may hold")
        return b"".join(chunks)
    except OSError as exc:
        raise InputError(name, f"cannot read {name}: {os_reason(exc)}") from None
    finally:
        os.close(fd)


def decode(data: bytes, path: str) -> str:
    """UTF-8 text; invalid bytes are reported at their line and column (1-based, in characters)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        start = data.rfind(b"\n", 0, exc.start) + 1
        column = len(data[start:exc.start].decode("utf-8", errors="replace")) + 1
        raise InputError(path, f"invalid UTF-8 (byte 0x{data[exc.start]:02x}): the file must be UTF-8 text",
                         line, column, hint="save the file as UTF-8",
                         text=data.decode("utf-8", errors="replace")) from None
    return text[1:] if text.startswith("\ufeff") else text  # a byte-order mark is not text


def read_text(path: str | Path, limit: int, what: str = "file") -> str:
    """The UTF-8 text of a regular file of at most `limit` bytes; InputError otherwise."""
    return decode(read_bytes(path, limit, what), str(path))


def resolve(path: str | Path) -> Path:
    """The absolute path with symbolic links followed; InputError for a loop or a bad name."""
    try:
        return Path(path).resolve(strict=False)
    except RuntimeError:  # Python < 3.13 reports a symlink loop this way
        raise InputError(str(path), f"cannot read {path}: a loop of symbolic links") from None
    except OSError as exc:
        raise InputError(str(path), f"cannot read {path}: {os_reason(exc)}") from None
    except ValueError:
        shown = str(path).replace("\0", "\\0")
        raise InputError(shown, f"cannot read {shown}: the name holds a NUL byte") from None


def inside(path: Path, roots) -> bool:
    """True if the resolved `path` is one of `roots` or below one of them (roots resolved too)."""
    return any(path == root or root in path.parents for root in roots)


def confine(path: str | Path, roots, what: str = "file") -> Path:
    """The resolved path, if it lies inside one of the (resolved) `roots`; InputError otherwise."""
    resolved = resolve(path)
    if not inside(resolved, roots):
        shown = ", ".join(str(r) for r in roots)
        raise InputError(str(path), f"{path}: the {what} lies outside the game's folder ({shown})",
                         hint="a game reads only its own folder; name another folder with --include-root if you mean it")
    return resolved
