"""Playing a batch of seeded games: one game per seed, on local worker processes or Ray tasks.

A game is a pure function of (rules, scenario, options, agents, seed): `play_one` plays it to its
end with the invariants checked and returns its record (winner, length, score variables by turn,
the rules it fired, or the failure; its log when it failed or the batch keeps every log). Records
are appended to `DIR/games.jsonl` as they arrive, one JSON object a line, so an interrupted batch
continues where it stopped; the aggregate (stats.py) is computed from the records sorted by seed,
so it does not depend on the backend or the number of workers.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

RESULTS = "games.jsonl"
RUN_FILE = "run.json"
LOGS = "logs"  # DIR/logs/seed-N.jsonl: every game's log, with `--logs`
LOCK_FILE = ".lock"  # held by the run writing the folder: two runs would play the same seeds twice
REFERENCE_GAMES = 3  # Tiny Front random games timed by each worker: the same-run baseline


class RunMismatch(Exception):
    """The output folder holds a batch of other settings: continuing it would mix two batches."""


@dataclass
class BatchConfig:
    """Everything a worker needs to play any seed of the batch (picklable)."""

    game: str  # the game's name (from its rules)
    game_dir: str | None  # the rules folder, for workers on this machine
    files: dict[str, bytes] = field(default_factory=dict)  # or the rules themselves (Ray: another node)
    overlays: list[str] = field(default_factory=list)  # overlay paths (relative to the shipped files when shipped)
    scenario: str = ""
    agents: list[str] = field(default_factory=list)  # one spec per side
    options: dict = field(default_factory=dict)
    fingerprint: str = ""  # of the rules: the run's identity
    check_invariants: bool = True
    keep_logs: bool = False  # every game's log travels back with its record (`--logs`), not only a failure's

    def identity(self) -> dict:
        """What makes two batches the same batch (the number of games may grow)."""
        return {"game": self.game, "rules": self.fingerprint, "scenario": self.scenario, "agents": self.agents,
                "options": self.options, "check_invariants": self.check_invariants}


# ---------------------------------------------------------------- one game (in a worker)
_engines: dict = {}
_reference: dict = {}


def _materialize(config: BatchConfig) -> tuple[Path, list[Path]]:
    """The shipped rules written once per worker machine, in a folder named by their hash."""
    digest = hashlib.sha256()
    for rel in sorted(config.files):
        digest.update(rel.encode() + b"\0" + config.files[rel])
    root = Path(tempfile.gettempdir()) / "warcodex-balance" / digest.hexdigest()[:16]
    if not (root / ".complete").exists():
        for rel, data in config.files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        (root / ".complete").write_text("")
    return root / "game", [root / o for o in config.overlays]


def _engine(config: BatchConfig):
    key = (config.game_dir, config.fingerprint, tuple(config.overlays))
    engine = _engines.get(key)
    if engine is None:
        from warcodex.console import settled_if_single_job
        from warcodex.dsl.checker import check_path
        from warcodex.interpreter.engine import Engine

        if config.files:
            game_dir, overlays = _materialize(config)
        else:
            game_dir, overlays = Path(config.game_dir), [Path(o) for o in config.overlays]
        gamedef, diags = check_path(game_dir, overlays)
        if gamedef is None or diags.errors:
            raise RuntimeError("the rules do not check on this worker:\n" + "\n".join(d.render() for d in diags.errors))
        # in a process that only plays (the `warcodex` command, a spawned or Ray worker), the
        # compiled rules (and the reference game's, built before) are never freed: the cyclic
        # collector's full passes would scan them again and again during play
        # (docs/balance-studies.md, s8 and s9); not in a process that goes on (tests)
        engine = _engines[key] = settled_if_single_job(Engine(gamedef).for_scenario(config.scenario))
    return engine


def reference_seconds() -> float:
    """Seconds per Tiny Front random game (untraced), measured once per worker process: the
    baseline the batch's own speed is reported against, measured in the same run."""
    if "s" not in _reference:
        from warcodex.console import bundled_games
        from warcodex.dsl.checker import check_path
        from warcodex.interpreter.engine import Engine
        from warcodex.interpreter.play import play

        gamedef, _ = check_path(bundled_games() / "tiny")
        engine = Engine(gamedef)
        play(engine, "meeting", seed=0, trace=False)  # warm-up
        t0 = time.perf_counter()
        for s in range(1, REFERENCE_GAMES + 1):
            play(engine, "meeting", seed=s, trace=False)
        _reference["s"] = (time.perf_counter() - t0) / REFERENCE_GAMES
    return _reference["s"]


def as_number(value):
    """A value a chart or a report can hold: a number (a bool as 0 or 1, a fraction as a float), else None."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, Fraction):
        return float(value)
    return None


def score_variables(engine, scenario: str) -> list[tuple[str, str]]:
    """The game's score variables, as (scope, name): the numeric global and side variables (from
    the game's facts) that its evaluation reads (`s.vp`, `baku_vp`), directly or through the
    game's functions it calls, or, for a game without an
    evaluation, every numeric side variable. Hidden ones are left out."""
    from warcodex.dsl import ast
    from warcodex.facts import facts_of

    facts = facts_of(engine, scenario)
    numeric = [v for v in facts.variables if v.scope in ("var", "side_var") and v.type in ("int", "num") and not v.hidden]
    evaluation = next(iter(engine.evaluations.values()), None)
    if evaluation is None:
        return [(v.scope, v.name) for v in numeric if v.scope == "side_var"]
    from warcodex.dsl.checker import _iter_nodes as _nodes

    # the names the evaluation reads, through the game's functions it calls (`soviet_vp_total()`)
    functions = {f.name: f for f in engine.game.of_kind(ast.Function)}
    read, pending, seen = set(), [evaluation.decl], set()
    while pending:
        for node in _nodes(pending.pop()):
            if isinstance(node, ast.Name):
                read.add(node.id)
            elif isinstance(node, ast.Attr):
                read.add(node.name)
            elif isinstance(node, ast.Call) and node.func in functions and node.func not in seen:
                seen.add(node.func)
                pending.append(functions[node.func])
    return [(v.scope, v.name) for v in numeric if v.name in read]


def snapshot_series(engine, state, variables, evaluation) -> dict:
    """The score variables (and each side's evaluation) in `state`: {"vp:axis": 3, ...}."""
    from warcodex.interpreter.context import Context

    out = {}
    for scope, name in variables:
        if scope == "var":
            v = as_number(state.vars.get(name))
            if v is not None:
                out[name] = v
        else:
            for side in engine.side_entities:
                v = as_number(engine.attribute(Context(engine, state), side, name, None))
                if v is not None:
                    out[f"{name}:{side.name}"] = v
    if evaluation is not None:
        ctx = Context(engine, state)
        for side in engine.side_entities:
            out[f"evaluation:{side.name}"] = float(evaluation.score(ctx, side))
    return out


def play_one(config: BatchConfig, seed: int) -> dict:
    """One game to its end, invariants checked; never raises: a failure is part of the record."""
    from warcodex.interpreter.play import agents_for, start
    from warcodex.interpreter.saves import log_header
    from warcodex.interpreter.rule_coverage import RuleCounter, game_counts_key, rule_index
    from warcodex.interpreter.values import RuleError

    record: dict = {"seed": seed}
    reference = reference_seconds()
    engine = _engine(config)
    t0 = time.perf_counter()
    game = None
    try:
        game = start(engine, config.scenario, seed, agents_for(engine, config.agents, seed), options=config.options,
                     check_invariants=config.check_invariants, trace=True)
        state = game.state
        first, last = engine.first_turn(state), engine.last_turn(state)
        variables = score_variables(engine, config.scenario)
        evaluation = next(iter(engine.evaluations.values()), None)
        series: dict[str, dict[str, float]] = {}
        turn = first
        while not state.ended and turn <= last:
            game.run(until_turn=turn)
            shown = min(state.position.turn, last) if state.ended else turn
            for name, value in snapshot_series(engine, state, variables, evaluation).items():
                series.setdefault(name, {})[str(shown)] = value
            turn += 1
        if not state.ended:
            game.run()
        end = next((e for e in reversed(game.log) if e.get("k") == "end"), {})
        record.update(ok=True, winner=state.winner, reason=state.win_reason, sudden_death=bool(end.get("sudden_death")),
                      turns_played=min(state.position.turn, last) - first + 1,
                      actions=sum(1 for e in game.log if e.get("k") == "action"), series=series)
    except Exception as exc:  # noqa: BLE001 - rules errors, broken invariants, engine bugs: all reported
        where = str(exc.span) if isinstance(exc, RuleError) and exc.span is not None else None
        record.update(ok=False, error=f"{type(exc).__name__}: {exc}", where=where,
                      traceback=None if isinstance(exc, RuleError) else traceback.format_exc(limit=12))
    if game is not None and (config.keep_logs or not record["ok"]):
        # the header and entries of `play --log`'s format (interpreter/saves.py), a failed game's cut
        # at the failure; the parent names its own rules folder and overlays in the header and
        # writes the file (`Results.add`): a Ray worker's folder is no use to the driver
        record["log"] = {"header": {**log_header(engine, game, config.options, len(game.log)),
                                    "agents": list(config.agents)},
                         "entries": game.log}
    record["seconds"] = time.perf_counter() - t0
    record["reference_s"] = reference
    if game is not None:  # what each search agent's decisions cost (GreedyAgent.stats)
        stats = {side: agent.stats() for side, agent in game.agents.items() if hasattr(agent, "stats")}
        if stats:
            record["agents"] = stats
    if game is not None:
        counter = RuleCounter(_rule_index(engine, config.scenario, rule_index))
        record["rules"] = {game_counts_key(k, key): n for (k, key), n in sorted(counter.count_log(game.log).items())}
    return record


def _rule_index(engine, scenario, build):
    key = ("rule_index", scenario)
    found = engine.derived_cache.get(key)
    if found is None:
        found = engine.derived_cache[key] = build(engine, scenario)
    return found


# ---------------------------------------------------------------- backends
def _init_worker(config: BatchConfig) -> None:
    global _config
    _config = config


def _start_worker(config: BatchConfig) -> None:
    """A spawned worker process: it plays the batch's games and nothing else."""
    from warcodex.console import single_job

    single_job()
    _init_worker(config)


def _play_seed(seed: int) -> dict:
    return play_one(_config, seed)


def run_local(config: BatchConfig, seeds: list[int], workers: int, on_record) -> None:
    """Play `seeds` on `workers` local processes; `on_record(record)` as each game ends."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    if workers <= 1:
        _init_worker(config)
        for seed in seeds:
            on_record(_play_seed(seed))
        return
    # spawned workers build their own engine (no state of this process leaks into a game)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_start_worker, initargs=(config,))
    try:
        futures = [pool.submit(_play_seed, seed) for seed in seeds]
        for fut in as_completed(futures):
            on_record(fut.result())
    except BaseException:
        # the games under way are abandoned (they are played again when the batch continues):
        # their workers are stopped now, not left to finish games nobody will record (a SIGTERM
        # reaches this process only, not its workers as Ctrl-C does)
        if hasattr(pool, "terminate_workers"):  # Python 3.14: terminates, then shuts down
            pool.terminate_workers()
        else:
            processes = list((pool._processes or {}).values())  # shutdown forgets them
            pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()
        raise
    pool.shutdown()


def _ray_play(config: BatchConfig, seed: int) -> dict:
    from warcodex.console import single_job

    single_job()  # a Ray worker process, running this batch's tasks
    return play_one(config, seed)


def run_ray(config: BatchConfig, seeds: list[int], address: str, workers: int, on_record) -> None:
    """Play `seeds` as Ray tasks. `address`: "local" starts a Ray instance on this machine with
    `workers` CPUs (stopped at the end); anything else is given to `ray.init(address=...)`
    ("auto" finds a running cluster, or "ray://HOST:10001"). The rules are shipped with the
    tasks, so the nodes need Warcodex installed but not the game's folder."""
    # no usage report to Ray's servers: a balance run talks to its own workers only
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        import ray
    except ImportError:
        raise RuntimeError("--ray needs Ray: pip install 'warcodex[ray]'") from None
    shipped = ship(config)
    started = not ray.is_initialized()
    if started:
        if address == "local":
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, configure_logging=False)
        else:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
    try:
        remote = ray.remote(num_cpus=1, max_retries=2)(_ray_play)
        ref = ray.put(shipped)
        pending = [remote.remote(ref, seed) for seed in seeds]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for d in done:
                on_record(ray.get(d))
    finally:
        if started:
            ray.shutdown()


def ship(config: BatchConfig) -> BatchConfig:
    """The config with the rules folder's files (and overlays) in it, for workers elsewhere."""
    root = Path(config.game_dir)
    files = {f"game/{p.relative_to(root).as_posix()}": p.read_bytes()
             for p in sorted(root.rglob("*")) if p.is_file() and p.suffix in (".wcx", ".wcmap")}
    overlays = []
    for i, o in enumerate(config.overlays):
        rel = f"overlays/{i}/{Path(o).name}"
        files[rel] = Path(o).read_bytes()
        overlays.append(rel)
    return BatchConfig(config.game, None, files, overlays, config.scenario, list(config.agents), dict(config.options),
                       config.fingerprint, config.check_invariants, config.keep_logs)


# ---------------------------------------------------------------- the results file
class Results:
    """`DIR/games.jsonl` (one record a line) and `DIR/run.json` (the batch's identity)."""

    def __init__(self, out_dir: Path, config: BatchConfig) -> None:
        self.dir = Path(out_dir)
        self.path = self.dir / RESULTS
        self.config = config
        self.records: dict[int, dict] = {}
        self.dropped_partial = False

    def open(self) -> None:
        """Lock the folder, check it holds this batch (or nothing), and read the records already
        played."""
        from filelock import FileLock, Timeout

        self.dir.mkdir(parents=True, exist_ok=True)
        self._lock = FileLock(self.dir / LOCK_FILE)
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            raise RunMismatch(f"{self.dir} is being written by another run of a batch: wait for it to end, "
                              "or choose another output folder (-o)") from None
        try:
            self._open()
        except BaseException:
            self._lock.release()
            raise

    def _open(self) -> None:
        from warcodex.interpreter.saves import write_atomic

        run_file = self.dir / RUN_FILE
        identity = self.config.identity()
        if run_file.exists():
            try:
                before = json.loads(run_file.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise RunMismatch(f"{run_file} is not a batch description ({exc}); choose another output folder") from None
            if before != identity:
                changed = ", ".join(k for k in identity if before.get(k) != identity[k])
                raise RunMismatch(f"{self.dir} holds a batch with other settings ({changed} differ); "
                                  "choose another output folder (-o), or delete it to start over")
        elif self.path.exists() or any(p.name != LOCK_FILE for p in self.dir.iterdir()):
            raise RunMismatch(f"{self.dir} is not empty and holds no batch ({RUN_FILE} is missing): "
                              "choose another output folder (-o)")
        else:
            write_atomic(run_file, json.dumps(identity, indent=1, sort_keys=True) + "\n")
        if self.path.exists():
            text = self.path.read_text(encoding="utf-8")
            lines = text.split("\n")
            complete, partial = lines[:-1], lines[-1]
            if partial.strip():  # the last game was being written when the run stopped
                self.dropped_partial = True
                write_atomic(self.path, "".join(line + "\n" for line in complete))
            for line in complete:
                if line.strip():
                    record = json.loads(line)
                    self.records[record["seed"]] = record
        self._file = open(self.path, "a", encoding="utf-8")

    def add(self, record: dict) -> None:
        """Append one game's record; its log is written first (DIR/logs/seed-N.jsonl with `--logs`,
        DIR/failures/ when it failed), so a record in games.jsonl always has its log: a run
        stopped between the two plays the game again and writes the same log again."""
        from warcodex.interpreter.saves import log_file_text, write_atomic

        log = record.pop("log", None)
        if log is not None:
            # this run's rules folder and overlays, so that `warcodex replay --check-invariants`
            # and `warcodex view` load them (the workers' may be a Ray node's temporary copy)
            header = {**log["header"], "game_dir": self.config.game_dir, "overlays": list(self.config.overlays)}
            text = log_file_text(header, log["entries"])
            if self.config.keep_logs:
                write_atomic(self.dir / LOGS / f"seed-{record['seed']}.jsonl", text)
            if not record["ok"]:
                path = self.dir / "failures" / f"{self.config.scenario}-seed-{record['seed']}.jsonl"
                write_atomic(path, text)
                record["log_file"] = str(path.relative_to(self.dir))
        self.records[record["seed"]] = record
        self._file.write(json.dumps(record, sort_keys=True) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        if getattr(self, "_file", None) is not None:
            self._file.close()
            self._file = None
        if getattr(self, "_lock", None) is not None:
            self._lock.release()
            self._lock = None
