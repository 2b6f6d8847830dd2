"""Run an exported module (and optionally a saved game) in a real VASSAL 3.7 under Xvfb.

VASSAL is not on any package registry: `../shared/tools/vassal/build.sh DIR` builds VASSAL 3.7.26
from its source with javac (see that folder's README). It is looked for, in order, in
`$WARCODEX_VASSAL_BUILD` (the folder holding `vassal-app.jar` and `classpath.txt`) and in
`<cache>/vassal-3.7.26/build`, where <cache> is `$WARCODEX_CACHE`, else `$XDG_CACHE_HOME/warcodex`,
else `~/.cache/warcodex` (`.ci/run` builds it there). It is never part of the repository.

`WcCheck.java` (next to this file) is our check, compiled once per source version into the cache.
It prints lines `WC KIND<TAB>field...` which `run()` parses into a `Report`; VASSAL's own log lines
start with `LOG LEVEL`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

VASSAL_VERSION = "3.7.26"
HERE = Path(__file__).resolve().parent
SOURCE = HERE / "WcCheck.java"
LOGBACK = HERE / "logback.xml"
SCREEN = "1600x1000x24"


def cache_dir() -> Path:
    if os.environ.get("WARCODEX_CACHE"):
        return Path(os.environ["WARCODEX_CACHE"])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "warcodex"


def build_dir() -> Path:
    if os.environ.get("WARCODEX_VASSAL_BUILD"):
        return Path(os.environ["WARCODEX_VASSAL_BUILD"])
    return cache_dir() / f"vassal-{VASSAL_VERSION}" / "build"


@dataclass(frozen=True)
class Vassal:
    build: Path  # vassal-app.jar, classpath.txt

    @property
    def classpath(self) -> str:
        return f"{self.build / 'vassal-app.jar'}:{(self.build / 'classpath.txt').read_text().strip()}"


def find_vassal() -> Vassal | str:
    """The built VASSAL, or the reason it cannot be used here (for a test's skip message)."""
    build = build_dir()
    if not (build / "vassal-app.jar").is_file() or not (build / "classpath.txt").is_file():
        return (f"no VASSAL {VASSAL_VERSION} build in {build} (build it with "
                f"../shared/tools/vassal/build.sh {build.parent}, or set WARCODEX_VASSAL_BUILD)")
    for tool in ("java", "javac", "Xvfb"):
        if shutil.which(tool) is None:
            return f"'{tool}' is not installed (../shared/tools/vassal/build.sh installs it)"
    missing = [j for j in (build / "classpath.txt").read_text().strip().split(":") if j and not Path(j).exists()]
    if missing:
        return f"VASSAL's jars are missing: {', '.join(missing[:3])}"
    return Vassal(build)


def harness_classes(vassal: Vassal) -> Path:
    """WcCheck compiled against this VASSAL, once per source version (cached)."""
    key = hashlib.sha1(SOURCE.read_bytes() + str((vassal.build / "vassal-app.jar").stat().st_mtime).encode())
    target = cache_dir() / f"wccheck-{key.hexdigest()[:12]}"
    if (target / "WcCheck.class").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="wccheck-", dir=target.parent))
    result = subprocess.run(["javac", "-nowarn", "-encoding", "UTF-8", "-cp", vassal.classpath, "-d", str(tmp),
                             str(SOURCE)], capture_output=True, text=True)
    if result.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise RuntimeError(f"javac WcCheck.java failed:\n{result.stderr}")
    try:
        tmp.rename(target)
    except OSError:  # compiled meanwhile by another run
        shutil.rmtree(tmp, ignore_errors=True)
    return target


@dataclass
class Report:
    """What WcCheck saw. Counters are multisets of (map, location, piece name)."""

    returncode: int
    output: Path
    lines: list[str]
    problems: list[str] = field(default_factory=list)
    uncaught: list[str] = field(default_factory=list)
    log_problems: list[str] = field(default_factory=list)  # VASSAL's WARN and ERROR log lines
    validation: list[str] = field(default_factory=list)
    expected: Counter = field(default_factory=Counter)
    pieces: Counter = field(default_factory=Counter)  # after the New Game, or the loaded save
    final: Counter = field(default_factory=Counter)  # after stepping through a loaded log
    stepped: tuple[int, bool] | None = None  # (steps played, steps left)
    hexes: list[tuple[str, str, str, bool]] = field(default_factory=list)  # id, HexGrid name, Map name, centre ok
    regions: list[tuple[str, bool]] = field(default_factory=list)
    decks: dict[str, tuple[str, bool, bool, int]] = field(default_factory=dict)  # name -> map, face down, drawn face up, cards
    slots: int = 0
    turns: list[tuple[str, str]] = field(default_factory=list)  # ("now" | "next", tracker text)
    menus: list[tuple[str, str, str]] = field(default_factory=list)
    steps: list[tuple[str, str]] = field(default_factory=list)
    chat: list[str] = field(default_factory=list)
    screenshots: list[Path] = field(default_factory=list)
    windows: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)  # title -> x, y, w, h on screen
    ended: bool = False

    def failures(self) -> list[str]:
        """Everything a module must never show in VASSAL."""
        out = [f"problem: {p}" for p in self.problems]
        out += [f"uncaught exception: {u}" for u in self.uncaught]
        out += [f"VASSAL log: {w}" for w in self.log_problems]
        out += [f"validation: {v}" for v in self.validation]
        if not self.ended:
            out.append(f"the check did not finish (exit {self.returncode}); see {self.output}")
        return out


def parse(text: str, returncode: int, output: Path) -> Report:
    lines = text.splitlines()
    r = Report(returncode, output, lines)
    for line in lines:
        if line.startswith(("LOG WARN", "LOG ERROR")):
            r.log_problems.append(line)
        if not line.startswith("WC "):
            continue
        kind, *f = line[3:].split("\t")
        if kind == "PROBLEM":
            r.problems.append(f[0])
        elif kind == "UNCAUGHT":
            r.uncaught.append(f[0])
        elif kind == "VALIDATION":
            r.validation.append(f[0])
        elif kind == "EXPECT":
            r.expected[tuple(f[:3])] += 1
        elif kind == "PIECE":
            r.pieces[tuple(f[:3])] += 1
        elif kind == "FINAL":
            r.final[tuple(f[:3])] += 1
        elif kind == "STEPPED":
            r.stepped = (int(f[0]), f[1] == "true")
        elif kind == "HEX":
            r.hexes.append((f[0], f[1], f[2], f[3] == "true"))
        elif kind == "DECK":
            r.decks[f[1]] = (f[0], f[2] == "true", f[3] == "true", int(f[4]))
        elif kind == "REGION":
            r.regions.append((f[0], f[1] == "true"))
        elif kind == "SLOT":
            r.slots += 1
        elif kind == "TURN":
            r.turns.append((f[0], f[1]))
        elif kind == "MENU":
            r.menus.append((f[0], f[1], f[2]))
        elif kind == "STEP":
            r.steps.append((f[0], f[1]))
        elif kind == "CHAT":
            r.chat.append(f[0])
        elif kind == "WINDOW":
            r.windows[f[0]] = tuple(int(v) for v in f[1:5])
        elif kind == "SCREENSHOT":
            r.screenshots.append(Path(f[0]))
        elif kind == "END":
            r.ended = True
    return r


def run(vassal: Vassal, module: Path, out_dir: Path, tag: str, *, hexes: list[tuple[str, float, float]] = (),
        save: Path | None = None, turns: int = 0, dice: bool = False, screenshots: bool = False,
        dump: Path | None = None, steps: int = 0, tiles: bool = True, timeout: float = 300) -> Report:
    """Load `module` (then `save`, if given) in VASSAL under a private Xvfb display; the report and
    VASSAL's files go to out_dir (TAG.out, TAG-*.png, conf-TAG/). `tiles=False` skips slicing the
    images into map tiles as VASSAL's ModuleManager does before a module opens (a large board takes
    half a minute): a check that paints nothing needs no tiles."""
    classes = harness_classes(vassal)
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    conf = out_dir / f"conf-{tag}"
    shutil.rmtree(conf, ignore_errors=True)
    conf.mkdir()
    args = [str(out_dir), tag]
    if hexes:
        tsv = out_dir / f"{tag}-hexes.tsv"
        tsv.write_text("".join(f"{h}\t{x:.3f}\t{y:.3f}\n" for h, x, y in hexes), encoding="utf-8")
        args += ["--hex", str(tsv)]
    if save is not None:
        args += ["--save", str(Path(save).resolve())]
    if turns:
        args += ["--turns", str(turns)]
    if dice:
        args.append("--dice")
    if screenshots:
        args.append("--screenshots")
    if not tiles:
        args.append("--no-tiles")
    if steps:  # press a loaded log's Step button this many times (or until it is played)
        args += ["--steps", str(steps)]
    if dump is not None:  # what VASSAL's File > Save would write (the savedGame entry, decoded)
        args += ["--dump", str(Path(dump).resolve())]
    args += ["--load", str(Path(module).resolve())]
    output = out_dir / f"{tag}.out"
    with _xvfb() as display, open(output, "w", encoding="utf-8") as out:
        env = dict(os.environ, DISPLAY=display, WC_ERRORLOG=str(out_dir / f"{tag}-errorLog"))
        cmd = ["java", "-Xmx1500m", f"-Dwc.timeout={int(max(timeout - 30, 30))}", f"-DVASSAL.conf={conf}", f"-Duser.home={conf}", f"-Djava.util.prefs.userRoot={conf}",
               f"-Dlogback.configurationFile={LOGBACK}", "-cp", f"{vassal.classpath}:{classes}", "WcCheck", *args]
        try:
            # java.class.path holds every jar: VASSAL starts its tiler as a child JVM with it
            rc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=out_dir, env=env,
                                timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            rc = -1
    return parse(output.read_text(encoding="utf-8", errors="replace"), rc, output)


class _xvfb:
    """A private X server: Xvfb picks a free display number and writes it to a pipe (-displayfd)."""

    def __enter__(self) -> str:
        read, write = os.pipe()
        self.proc = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", SCREEN, "-nolisten", "tcp"],
                                     pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as f:
            number = f.readline().strip()
        if not number:
            self.proc.kill()
            raise RuntimeError("Xvfb did not start")
        return f":{number}"

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
