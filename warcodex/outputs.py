"""Writing the user's outputs (logs, saves, reports, aids, modules, formatted rules) so that nothing
is torn, nothing the user had is lost silently, and every failure is a message, not a traceback.

* `write_atomic(path, content)`: a temporary file in the target's folder, flushed, then renamed
  over the target: readers see the old file or the new one, never half of one. The new file gets
  the mode of the file it replaces, or the usual mode for a new file under the user's umask
  (`mkstemp` alone would leave every output 0600).
* `output_folder(target)`: a set of files written as a whole. The set is written into a
  temporary folder beside the target, which then replaces the target: a run killed half-way
  leaves the previous set intact, never a mix of new and old files. A folder is only replaced if
  it is empty or was written as a set by Warcodex (it holds the `MARKER` file); a folder holding
  anything else is refused, so `-o .` never deletes the user's files.
* Every OSError (a read-only folder, a full disk, a path through a file) becomes an
  `OutputError` naming the path and the reason.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path

MARKER = ".warcodex-output"  # in a folder written as a set: what wrote it, and which files


class OutputError(Exception):
    """An output that cannot be written; the message names the path and the reason."""


def _reason(exc: OSError) -> str:
    if exc.errno == errno.EEXIST or isinstance(exc, FileExistsError):
        return "a file of that name is in the way"
    if exc.errno == errno.ENOTDIR:
        return "a part of the path is a file, not a folder"
    return exc.strerror or str(exc)


def failure(path, exc: OSError, doing: str = "write") -> OutputError:
    """An OutputError for an OSError met while writing `path`."""
    return OutputError(f"cannot {doing} {path}: {_reason(exc)}")


def umask() -> int:
    """The process umask, read without changing it where the system allows (Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # elsewhere: set and restore (not thread-safe, but outputs are written from one thread)
    os.umask(mask)
    return mask


def file_mode(path: Path) -> int:
    """The mode a file written at `path` should get: that of the file it replaces, else 0666
    less the umask (what `open()` would give a new file)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~umask()


def make_folder(folder: Path) -> None:
    """Create `folder` and its parents; OutputError if that is impossible."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError as exc:  # a file stands where a folder should be
        raise OutputError(f"cannot create the folder {folder}: {exc.filename or folder} is a file") from None
    except OSError as exc:
        raise failure(folder, exc, "create the folder") from None


def write_atomic(path: str | Path, content: str | bytes) -> None:
    """Write a file so that readers see the old or the new content, never a half-written one
    (text is written as UTF-8). OutputError if it cannot be written."""
    path = Path(path)
    if path.is_dir():
        raise OutputError(f"cannot write {path}: it is a folder")
    make_folder(path.parent)
    data = content.encode("utf-8") if isinstance(content, str) else content
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise failure(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, file_mode(path))
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise failure(path, exc) from None
        raise


# ------------------------------------------------------------------ folders written as a whole
def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def _leftovers(target: Path):
    """Temporary folders of runs of `target` killed before they finished: (path, kind)."""
    pattern = re.compile(re.escape(f".{target.name}.") + r"(new|old)-(\d+)-")
    try:
        entries = list(target.parent.iterdir())
    except OSError:
        return
    for entry in entries:
        m = pattern.match(entry.name)
        if m and entry.is_dir() and not _alive(int(m.group(2))):
            yield entry, m.group(1)


def _tidy(target: Path) -> None:
    """Finish what a killed run left: a new set never renamed is deleted; an old set moved aside
    just before the new one was renamed in is put back if the new one is not there."""
    for entry, kind in _leftovers(target):
        try:
            if kind == "old" and not target.exists():
                os.rename(entry, target)
            else:
                shutil.rmtree(entry)
        except OSError:
            pass


def _check_replaceable(target: Path) -> None:
    if not target.exists():
        return
    if not target.is_dir():
        raise OutputError(f"cannot write the folder {target}: a file of that name is in the way")
    try:
        names = sorted(p.name for p in target.iterdir())
    except OSError as exc:
        raise failure(target, exc, "read the folder") from None
    if names and MARKER not in names:
        shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        raise OutputError(f"{target} holds files Warcodex did not write ({shown}); give a new or empty folder "
                          "(an output folder is replaced as a whole)")


@contextmanager
def output_folder(target: str | Path, what: str = "warcodex"):
    """Yield a fresh folder to write a set of files into; when the block ends without error, the
    set replaces `target` as a whole (the previous set, if any, is removed). On error nothing
    changes. OutputError if the target cannot be replaced (see the module's docstring)."""
    target = Path(target)
    _tidy(target)
    _check_replaceable(target)
    make_folder(target.parent)
    try:
        tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.new-{os.getpid()}-"))
        os.chmod(tmp, 0o777 & ~umask())  # mkdtemp makes 0700
    except OSError as exc:
        raise failure(target, exc, "create the folder") from None
    try:
        yield tmp
        files = sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*") if p.is_file())
        (tmp / MARKER).write_text(json.dumps({"written_by": what, "files": files}, indent=1) + "\n", encoding="utf-8")
        os.chmod(tmp / MARKER, 0o666 & ~umask())
        if target.exists():
            old = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.old-{os.getpid()}-"))
            os.rmdir(old)
            os.rename(target, old)  # from here to the next line, the old set waits under `old`
            os.rename(tmp, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, target)
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, OSError):
            raise failure(target, exc) from None
        raise
