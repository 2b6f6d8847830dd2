"""Language server latency: diagnostics after an edit in a Stalingrad file (issue #20 target: under
300 ms).

    .venv/bin/python bench/lsp_latency.py [--edits 15] [--json out.json]

Two measures, each against a baseline measured in the same run:
  * in process: `GameProject.refresh()` after an edit of one file (only that file re-parsed, the
    map's board cached), against a full `check_path` of the same game (what `warcodex check` does:
    every file loaded from the parse cache, the map loaded);
  * end to end: `warcodex lsp` in a subprocess, the time from sending `didChange` to receiving the
    edited file's `publishDiagnostics` (the pause before checking, `WARCODEX_LSP_DEBOUNCE`, set to 0
    here so the figure is the work, not the wait).
Edits alternate between a misspelt property (an error appears) and the original text (it goes).
Wall time on a shared machine depends on what else runs, so the CPU time spent is shown too (of
this process in process; of the server's process end to end): the latency on an idle core.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "games" / "stalingrad42"
FILES = ("combat.wcx", "units.wcx", "movement.wcx")  # the largest rules file, the unit types, a middle one


def _edit(text: str, i: int) -> str:
    """An edit that changes the diagnostics: every other one misspells a property on the last line."""
    return text + (f"\nfunction bench_edit_{i}(u: unit): int \"bench\" §1 = u.atack\n" if i % 2 else f"\n# edit {i}\n")


def in_process(edits: int) -> dict:
    from warcodex.dsl.checker import check_path
    from warcodex.lsp.project import GameProject, norm

    from warcodex.lsp.server import settle_memory

    project = GameProject(GAME)
    project.refresh()
    settle_memory()  # as the server does after a game's first check
    out = {}
    for name in FILES:
        path = norm(GAME / name)
        text = Path(path).read_text(encoding="utf-8")
        times, cpu = [], []
        for i in range(edits):
            project.buffers[path] = _edit(text, i)
            t0, c0 = time.perf_counter(), time.process_time()
            project.refresh()
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        project.buffers.pop(path)
        project.refresh()
        out[name] = times
        out[name + " cpu"] = cpu
    check_path(GAME)  # the parse cache filled
    baseline = []
    for _ in range(max(3, edits // 3)):
        t0 = time.perf_counter()
        check_path(GAME)
        baseline.append(time.perf_counter() - t0)
    return {"edits": out, "baseline_full_check": baseline}


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def end_to_end(edits: int) -> tuple[list[float], list[float]]:
    from lsprotocol import types as T
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("warcodex-bench", "1")
    published: asyncio.Queue = asyncio.Queue()

    @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: T.PublishDiagnosticsParams) -> None:
        published.put_nowait(params)

    env = dict(os.environ, WARCODEX_LSP_DEBOUNCE="0")
    await client.start_io(sys.executable, "-m", "warcodex", "lsp", env=env)
    await client.initialize_async(T.InitializeParams(capabilities=T.ClientCapabilities(), root_uri=GAME.as_uri()))
    client.initialized(T.InitializedParams())
    path = GAME / "combat.wcx"
    uri, text = path.as_uri(), path.read_text(encoding="utf-8")

    async def diagnostics_of(version: int) -> T.PublishDiagnosticsParams:
        while True:  # every file with diagnostics is published: wait for this very text's
            params = await asyncio.wait_for(published.get(), 60)
            if params.uri == uri and params.version == version:
                return params

    client.text_document_did_open(T.DidOpenTextDocumentParams(text_document=T.TextDocumentItem(
        uri=uri, language_id="warcodex", version=1, text=text)))
    await diagnostics_of(1)
    times, cpu = [], []
    pid = client._server.pid
    for i in range(edits):
        t0, c0 = time.perf_counter(), _cpu_seconds(pid)
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=i + 2),
            content_changes=[T.TextDocumentContentChangeWholeDocument(text=_edit(text, i))]))
        params = await diagnostics_of(i + 2)
        times.append(time.perf_counter() - t0)
        cpu.append(_cpu_seconds(pid) - c0)
        errors = [d for d in params.diagnostics if d.severity == T.DiagnosticSeverity.Error]
        assert bool(errors) == bool(i % 2), errors  # the edit's error appears, then goes
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return times, cpu


def _ms(xs: list[float]) -> str:
    xs = sorted(xs)
    p90 = xs[min(len(xs) - 1, int(round(0.9 * (len(xs) - 1))))]
    return f"median {statistics.median(xs) * 1000:6.1f} ms   p90 {p90 * 1000:6.1f} ms   max {xs[-1] * 1000:6.1f} ms"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edits", type=int, default=15)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    report = in_process(args.edits)
    base = statistics.median(report["baseline_full_check"])
    print(f"baseline: full check of stalingrad42 (warcodex check, parse cache warm): {_ms(report['baseline_full_check'])}")
    for name in FILES:
        times = report["edits"][name]
        print(f"edit {name:14} re-check in process: wall {_ms(times)}   ratio to baseline "
              f"{statistics.median(times) / base:.2f}")
        print(f"{'':37} cpu  {_ms(report['edits'][name + ' cpu'])}")
    e2e, cpu = asyncio.run(end_to_end(args.edits))
    report["end_to_end_combat"], report["end_to_end_combat_server_cpu"] = e2e, cpu
    print(f"edit combat.wcx over stdio, didChange -> publishDiagnostics: wall {_ms(e2e)}   "
          f"ratio to baseline {statistics.median(e2e) / base:.2f}")
    print(f"{'':59} server cpu {_ms(cpu)}")
    print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
