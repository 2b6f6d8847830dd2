"""`warcodex balance`: batches of seeded games, their aggregate, resuming, failures, rule coverage."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from warcodex.balance.command import run_batch
from warcodex.balance.stats import aggregate, decisive_rules, wilson
from warcodex.cli import UserError
from warcodex.dsl.checker import check_path
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import play
from warcodex.interpreter.rule_coverage import RuleCounter, rule_index

ROOT = Path(__file__).resolve().parent.parent
FAILING = ROOT / "tests" / "data" / "overlays" / "tiny_fails_on_turn_3.wcx"


def test_wilson_interval_matches_the_published_formula():
    # Wilson (1927); values as in Newcombe, Stat. Med. 17 (1998), table I: 0/10 and 5/10 at 95%
    low, high = wilson(0, 10)
    assert low == 0 and high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson(5, 10)
    assert (low, high) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))
    low, high = wilson(81, 263)
    assert (low, high) == (pytest.approx(0.2553, abs=1e-4), pytest.approx(0.3662, abs=1e-4))


def _record(seed, winner, turns=6, rules=None):
    return {"seed": seed, "ok": True, "winner": winner, "reason": f"{winner} wins", "sudden_death": False,
            "turns_played": turns, "actions": 10, "series": {"vp:a": {"1": seed, "2": seed * 2}},
            "rules": rules or {}, "seconds": 1.0 / seed, "reference_s": 0.1}


def test_aggregate_depends_on_the_records_not_their_order_or_timings():
    records = [_record(s, "a" if s % 3 else "b") for s in range(1, 13)]
    shuffled = list(reversed(records))
    for r in shuffled:
        r = dict(r)
    again = aggregate([{**r, "seconds": 99} for r in shuffled], ["a", "b"])
    assert aggregate(records, ["a", "b"]) == again
    agg = again
    assert agg["win_rates"]["a"]["count"] == 8 and agg["win_rates"]["b"]["count"] == 4
    assert agg["series"]["vp:a"][0] == {"turn": 1, "games": 12, "p10": pytest.approx(2.1), "p25": 3.75, "median": 6.5,
                                        "p75": 9.25, "p90": pytest.approx(10.9), "mean": 6.5}


def test_alliance_wins_count_for_their_members():
    records = [_record(1, "allies"), _record(2, "axis"), _record(3, "germany"), _record(4, None)]
    agg = aggregate(records, ["germany", "soviet_union"], {"germany": "axis", "soviet_union": "allies"})
    rates = agg["win_rates"]
    assert (rates["germany"]["count"], rates["soviet_union"]["count"], rates["axis"]["count"],
            rates["allies"]["count"], rates["draw"]["count"]) == (2, 1, 2, 1, 1)


def test_decisive_rules_find_the_rule_that_goes_with_winning():
    records = []
    for s in range(1, 21):
        wins = s % 2 == 0
        records.append(_record(s, "a" if wins else "b", rules={"modifier\tcrt: armor": 3 if wins else 0,
                                                              "action\tmove": 10}))
    top = decisive_rules(records, ["a", "b"])
    assert top[0]["rule"] == "crt: armor" and abs(top[0]["difference"]) == 1.0
    assert all(r["rule"] != "move" for r in top)  # fired equally in every game: splits nothing
    # one side won every game (random Fall Blau): no rule goes with winning, none is listed
    swept = [_record(s, "b", rules={"action\tattack": s % 3}) for s in range(1, 21)]
    assert decisive_rules(swept, ["a", "b"]) == []


@pytest.fixture(scope="module")
def tiny():
    game, diags = check_path(ROOT / "games" / "tiny")
    return Engine(game)


def test_rule_coverage_counts_what_the_traces_show(tiny):
    index = rule_index(tiny, "meeting")
    counter = RuleCounter(index)
    game = play(tiny, "meeting", 1)
    counts = counter.count_log(game.log)
    text = json.dumps(game.log)
    lookups = text.count('"what": "Combat Results Table: column ')
    assert lookups > 0
    assert sum(n for (kind, key), n in counts.items() if kind == "table cell" and key.startswith("crt:")) == lookups
    assert counts[("action", "attack")] == sum(1 for e in game.log if e.get("action") == "attack")
    assert counts[("procedure", "resolve_combat")] == counts[("action", "attack")]
    assert counts[("section", "7.3")] > 0
    # every key counted is a rule of the index (quantities are the counter's own bookkeeping)
    assert all(k in index.rules for k in counts if k[0] != "quantity")


def test_rule_coverage_tells_beyond_the_table_rules_apart(tiny):
    # seed 150 has a 6-1 attack, resolved on the 5-1 column (`above 5:1 use 5:1`): that rule, not
    # the automatic DE of `from 7:1` that also cites §7.3 (the seed is the lazy random agent's, #14)
    index = rule_index(tiny, "meeting")
    counts = RuleCounter(index).count_log(play(tiny, "meeting", 150).log)
    beyond = {key: n for (kind, key), n in counts.items() if kind == "beyond rule"}
    assert beyond == {"crt: above 5-1": 1}
    assert ("beyond rule", "crt: below 1-2") in index.unobservable  # an illegal column is a legality test


def test_rule_coverage_leaves_out_other_scenarios_triggers():
    # Stalingrad '42's campaign rules fire only `when scenario == "campaign"` (§32, §34.1): in Fall
    # Blau they are not rules that were never exercised; rules written for every scenario stay
    game, diags = check_path(ROOT / "games" / "stalingrad42")
    engine = Engine(game)
    withdrawals = "on phase_start: Axis withdrawals and upgrades"
    fall_blau, campaign = rule_index(engine, "fall_blau"), rule_index(engine, "campaign")
    assert ("trigger", withdrawals) in campaign.rules and ("trigger", withdrawals) not in fall_blau.rules
    fortification = ("trigger", "on enter: An enemy unit removes a fortification marker")
    assert fortification in fall_blau.rules and fortification in campaign.rules
    # the campaign's own triggers are the only ones Fall Blau leaves out
    left_out = {key for kind, key in campaign.rules if kind == "trigger"} - {key for kind, key in fall_blau.rules if kind == "trigger"}
    assert withdrawals in left_out and "on phase_start: Reserve Army release" in left_out


@pytest.fixture(scope="module")
def stalingrad_engine():
    game, diags = check_path(ROOT / "games" / "stalingrad42")
    assert not diags.errors
    return Engine(game)


def _index_with_reach(engine, scenario):
    from warcodex.facts import reach_of

    return rule_index(engine, scenario, reach_of(engine, scenario))


def test_rules_out_of_reach_in_a_scenario_are_told_apart_from_rules_never_fired(stalingrad_engine):
    # Fall Blau is Turns 1-8 (§S1); the Weather Phase is played from Turn 17 (§23.1): the weather
    # roll, the Weather Table's cells and the Overcast result only it gives are out of reach, and
    # so is Entry Area K closing on Turn 28 (§23.4). The combat results are not: play reaches them.
    fall_blau = _index_with_reach(stalingrad_engine, "fall_blau")
    out = fall_blau.out_of_reach
    assert "Weather Phase is played on none of the scenario's Turns 1-8" in out[("procedure", "roll_weather")]
    weather_cells = [k for k in fall_blau.rules if k[0] == "table cell" and k[1].startswith("weather_table:")]
    assert len(weather_cells) == 24 and all(k in out for k in weather_cells)
    assert ("result", "overcast_w") in out
    assert "in none of this scenario's Turns 1-8" in out[("trigger", "on turn_start: Entry Area K closes")]
    # a modifier written for another scenario (`when scenario == "caucasus"`, §S2.2)
    assert out[("modifier", "rp_per_turn: S2 Caucasus: no Axis RP on the first turn")] == "its condition names another scenario"
    crt = [k for k in fall_blau.rules if k[0] == "table cell" and k[1].startswith("crt:")]
    assert crt and not any(k in out for k in crt)
    assert not any(k in out for k in fall_blau.rules if k[0] == "action")
    # the campaign plays Turns 1-40: its weather is in reach, and so is the Caucasus-only modifier
    # in the Caucasus scenario
    assert ("procedure", "roll_weather") not in _index_with_reach(stalingrad_engine, "campaign").out_of_reach
    caucasus = _index_with_reach(stalingrad_engine, "caucasus").out_of_reach
    assert ("modifier", "rp_per_turn: S2 Caucasus: no Axis RP on the first turn") not in caucasus
    # the coverage report lists them apart: not among the rules never fired
    from collections import Counter

    from warcodex.interpreter.rule_coverage import coverage_report

    report = coverage_report(fall_blau, Counter(), 1, "none fired")
    assert not rule_index(stalingrad_engine, "fall_blau").out_of_reach  # without the facts: none known
    cells = report["kinds"]["table cell"]
    assert cells["out_of_reach"] >= 24 and not any(r["key"].startswith("weather_table:") for r in cells["never"])
    assert cells["never_fired"] + cells["out_of_reach"] + cells["not_observable"] == cells["total"]


def test_a_trigger_of_a_side_absent_on_the_first_turn_is_in_reach(stalingrad_engine):
    # Operation Uranus's Turn 28 has no Axis player turn (§S3.4); the Axis plays its Initial Phase
    # from Turn 29, so the check of Stalingrad at the start of the Axis Turn 34 (§S3.5) can run
    from warcodex.facts import facts_of

    facts = facts_of(stalingrad_engine.for_scenario("uranus"), "uranus")
    check = [t for t in facts.sequence.triggers if t.decl.header.label == "Stalingrad at the start of the Axis Turn 34"]
    assert len(check) == 1 and check[0].turns == (34,) and check[0].sides == ("axis",)
    assert not any("Turn 34" in k[1] for k in _index_with_reach(stalingrad_engine, "uranus").out_of_reach)


def _tiny_batch(tmp_path, name, **kw):
    args = dict(games=4, agents="random", workers=1, out_dir=tmp_path / name)
    args.update(kw)
    return run_batch("tiny", "meeting", **args)


def test_the_aggregate_is_the_same_whatever_the_workers(tmp_path):
    one = _tiny_batch(tmp_path, "one", workers=1)
    two = _tiny_batch(tmp_path, "two", workers=2)
    assert one["aggregate"] == two["aggregate"]
    assert one["aggregate"]["completed"] == 4 and not one["aggregate"]["failures"]
    assert two["performance"]["backend"] == "local processes"
    for name in ("report.json", "report.html", "plots/win_rates.svg", "plots/length.svg", "games.jsonl"):
        assert (tmp_path / "two" / name).exists(), name
    assert "<svg" in (tmp_path / "two" / "report.html").read_text()
    # docs/balance.md's figures table is made from report.json (bench/balance_table.py)
    sys.path.insert(0, str(ROOT))
    from bench.balance_table import row

    axis = two["aggregate"]["win_rates"]["axis"]
    line = row(json.loads((tmp_path / "two" / "report.json").read_text()))
    assert line.startswith("| Tiny Front, Meeting Engagement | Axis (random) ")
    assert f"{axis['rate']:.0%} [{axis['ci95'][0]:.0%}-{axis['ci95'][1]:.0%}]" in line and "| 4/4 |" in line
    assert line.endswith("| - |")  # random agents: no search decisions to cost
    from bench.balance_table import coverage_row

    cov = two["coverage"]
    line = coverage_row(json.loads((tmp_path / "two" / "report.json").read_text()))
    fired, total = sum(k["fired"] for k in cov.values()), sum(k["total"] for k in cov.values())
    assert f"| 4 | {fired} of {total} | {sum(k['never_fired'] for k in cov.values())} | 0 |" in line
    assert f"| {cov['action']['never_fired']} of {cov['action']['total']} |" in line


def test_ray_gives_the_same_aggregate_as_local_processes(tmp_path):
    if os.environ.get("CI"):
        import ray  # noqa: F401 - CI installs the extra: the test must run there
    else:
        pytest.importorskip("ray")
    local = _tiny_batch(tmp_path, "local", workers=1, logs=True)
    on_ray = _tiny_batch(tmp_path, "ray", workers=2, ray="local", logs=True)
    assert on_ray["aggregate"] == local["aggregate"]
    assert on_ray["performance"]["backend"] == "ray (local)"
    # the logs travel back with the results and name this machine's rules folder, not the Ray
    # worker's copy: the same files as the local workers'
    for seed in range(1, 5):
        name = f"logs/seed-{seed}.jsonl"
        assert (tmp_path / "ray" / name).read_text() == (tmp_path / "local" / name).read_text()


def test_logs_keeps_every_game_to_replay_and_view(tmp_path):
    """`--logs`: every game's log in DIR/logs/seed-N.jsonl, not only the failures', which replays
    to the game its record describes and opens in the viewer; a continued batch keeps the logs
    already written and adds the new games'."""
    from warcodex.exporters.viewer import load_record
    from warcodex.interpreter.saves import read_log

    _tiny_batch(tmp_path, "none", games=1)
    assert not (tmp_path / "none" / "logs").exists()  # without --logs: none
    _tiny_batch(tmp_path, "run", games=2, workers=2, logs=True)
    logs = tmp_path / "run" / "logs"
    assert sorted(p.name for p in logs.iterdir()) == ["seed-1.jsonl", "seed-2.jsonl"]
    before = {p.name: (p.stat().st_mtime_ns, p.read_text()) for p in logs.iterdir()}
    _tiny_batch(tmp_path, "run", games=3, workers=1, logs=True)
    assert sorted(p.name for p in logs.iterdir()) == ["seed-1.jsonl", "seed-2.jsonl", "seed-3.jsonl"]
    assert {name: (logs / name).stat().st_mtime_ns for name in before} == {n: t for n, (t, _) in before.items()}
    records = {r["seed"]: r for r in map(json.loads, (tmp_path / "run" / "games.jsonl").read_text().splitlines())}
    for seed, r in records.items():
        header, entries = read_log(logs / f"seed-{seed}.jsonl")
        assert (header["seed"], header["scenario"], header["agents"]) == (seed, "meeting", ["random", "random"])
        assert sum(1 for e in entries if e.get("k") == "action") == r["actions"]
        rec, facts, _ = load_record(logs / f"seed-{seed}.jsonl")  # replayed by the engine, as `warcodex view` does
        assert rec.complete and rec.final.winner == r["winner"]


def test_an_interrupted_batch_continues_where_it_stopped(tmp_path):
    whole = _tiny_batch(tmp_path, "whole", games=5)
    _tiny_batch(tmp_path, "parts", games=3)
    results = tmp_path / "parts" / "games.jsonl"
    # the run was stopped while writing a record: half a line at the end
    results.write_text(results.read_text() + '{"seed": 4, "ok": tr')
    again = _tiny_batch(tmp_path, "parts", games=5)
    assert again["aggregate"] == whole["aggregate"]
    seeds = [json.loads(line)["seed"] for line in results.read_text().splitlines()]
    assert seeds == [1, 2, 3, 4, 5]  # the three games played before are not played again


def test_a_folder_of_other_settings_is_refused(tmp_path):
    _tiny_batch(tmp_path, "run", games=2)
    before = (tmp_path / "run" / "games.jsonl").read_text()
    with pytest.raises(UserError, match="agents differ"):
        _tiny_batch(tmp_path, "run", games=2, agents="first")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(UserError, match="not empty"):
        _tiny_batch(tmp_path, "other", games=2)
    assert (tmp_path / "run" / "games.jsonl").read_text() == before
    assert (tmp_path / "other" / "notes.txt").read_text() == "mine"


def test_a_folder_another_run_is_writing_is_refused(tmp_path):
    """Two runs into one folder would play the same seeds and append each game twice: the run that
    writes a folder holds its lock (`.lock`), and another run is refused until it ends."""
    from filelock import FileLock

    _tiny_batch(tmp_path, "run", games=2)
    before = (tmp_path / "run" / "games.jsonl").read_text()
    with FileLock(tmp_path / "run" / ".lock"):  # another run, still playing
        with pytest.raises(UserError, match="another run"):
            _tiny_batch(tmp_path, "run", games=3)
    assert (tmp_path / "run" / "games.jsonl").read_text() == before
    again = _tiny_batch(tmp_path, "run", games=3)  # that run has ended: this one continues
    assert [json.loads(line)["seed"] for line in (tmp_path / "run" / "games.jsonl").read_text().splitlines()] == [1, 2, 3]
    assert again["aggregate"]["games"] == 3


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "warcodex", *args], capture_output=True, text=True, timeout=600, cwd=cwd)


def test_failures_are_reported_with_logs_that_replay(tmp_path):
    out = tmp_path / "fails"
    r = run_cli("balance", "tiny", "--games", "2", "--workers", "1", "--overlay", str(FAILING), "-o", str(out),
                "--rule-coverage", str(tmp_path / "cov"))
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    report = json.loads((out / "report.json").read_text())
    failures = report["aggregate"]["failures"]
    assert [f["seed"] for f in failures] == [1, 2]
    assert "invariant 'short_war'" in failures[0]["error"]
    log = out / failures[0]["log"]
    assert log.exists()
    replayed = run_cli("replay", "--check-invariants", str(log))  # the log names the overlay: it is loaded
    assert replayed.returncode == 1 and "reproduced: " in replayed.stdout and "entries identical, then the failure" in replayed.stdout
    assert "invariant 'short_war'" in replayed.stderr and "Traceback" not in replayed.stderr
    coverage = json.loads((tmp_path / "cov.json").read_text())
    assert coverage["games"] == 2 and (tmp_path / "cov.html").exists()
    assert "short_war" in (out / "report.html").read_text()


def test_the_command_reports_win_rates_and_usage_errors(tmp_path):
    r = run_cli("balance", "tiny", "--games", "2", "--workers", "1", "--agents", "greedy,random", "-o", str(tmp_path / "g"))
    assert r.returncode == 0, r.stderr
    assert "Axis (greedy)" in r.stdout and "games/s per worker" in r.stdout
    # the greedy side's decisions and what they cost are in each record and in the report
    cost = json.loads((tmp_path / "g" / "report.json").read_text())["performance"]["search_agents"]
    assert list(cost) == ["axis"] and cost["axis"]["decisions"] > 10 and cost["axis"]["lookaheads"] > cost["axis"]["decisions"]
    assert cost["axis"]["cpu_ms_per_decision"] > 0
    records = [json.loads(line) for line in (tmp_path / "g" / "games.jsonl").read_text().splitlines()]
    assert sum(r["agents"]["axis"]["decisions"] for r in records) == cost["axis"]["decisions"]
    sys.path.insert(0, str(ROOT))
    from bench.balance_table import row

    report = json.loads((tmp_path / "g" / "report.json").read_text())
    assert row(report).endswith(f"| Axis {cost['axis']['cpu_ms_per_decision']:.0f} ms |")
    bad = run_cli("balance", "tiny", "--games", "3", "--agents", "clever", "-o", str(tmp_path / "b"))
    assert bad.returncode == 2 and "unknown agent 'clever'" in bad.stderr and "Traceback" not in bad.stderr


def test_fuzz_writes_the_rule_coverage_of_its_games(tmp_path):
    r = run_cli("fuzz", "tiny", "--examples", "5", "--max-actions", "20", "--rule-coverage", str(tmp_path / "fz"),
                "--steer-coverage")
    assert r.returncode == 0, r.stderr
    coverage = json.loads((tmp_path / "fz.json").read_text())
    assert coverage["games"] == 5
    assert coverage["kinds"]["action"]["fired"] >= 1 and coverage["kinds"]["table cell"]["never"]
    assert "never fired" in (tmp_path / "fz.html").read_text()
    assert "rule(s) never fired" in r.stdout


def test_score_variables_are_read_through_the_functions_the_evaluation_calls():
    # Stargard's evaluation reads soviet_vp_total() (victory.wcx), which sums soviet.vp_banked
    from warcodex.balance.runner import score_variables

    game, diags = check_path(ROOT / "games" / "stargard-solstice")
    assert ("side_var", "vp_banked") in score_variables(Engine(game), "solstice")
    assert score_variables(Engine(check_path(ROOT / "games" / "tiny")[0]), "meeting") == [("side_var", "vp")]


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _gone(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status  # ended, not yet reaped by its new parent


@pytest.mark.parametrize("workers", [1, 2])
def test_a_batch_in_the_background_stops_on_sigterm_with_its_report(tmp_path, workers):
    """A run started with `&` ignores SIGINT: `kill PID` (SIGTERM) stops it as Ctrl-C does. The
    games finished are kept and reported (report.json says the batch is not complete), its
    workers are stopped, and the same command continues the batch."""
    import signal
    import time

    out = tmp_path / "bg"
    args = ["balance", "tiny", "-s", "meeting", "--games", "1000", "--workers", str(workers), "-o", str(out)]
    proc = subprocess.Popen([sys.executable, "-m", "warcodex", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))  # as `&` does
    try:
        results = out / "games.jsonl"
        deadline = time.monotonic() + 120
        while not (results.exists() and results.read_text().count("\n") >= 2):
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() is not None else "too slow"
            time.sleep(0.1)
        workers_pids = _children(proc.pid)
        assert len(workers_pids) >= (workers if workers > 1 else 0)
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 128 + signal.SIGTERM, stderr
    assert "Traceback" not in stderr
    played = [json.loads(line)["seed"] for line in results.read_text().splitlines()]
    assert 2 <= len(played) < 1000
    assert f"terminated: {len(played)} of 1000 games in the report" in stdout + stderr
    report = json.loads((out / "report.json").read_text())
    assert report["aggregate"]["games"] == len(played) and report["run"]["complete"] is False
    deadline = time.monotonic() + 10
    while not all(_gone(p) for p in workers_pids):
        assert time.monotonic() < deadline, "a worker outlived the batch"
        time.sleep(0.1)
    if workers > 1:
        return  # continuing is the same whatever the workers were (one subprocess less)
    # the same batch continues: nothing played is played again
    n = max(played) + 1
    again = run_cli("balance", "tiny", "-s", "meeting", "--games", str(n), "--workers", "1", "-o", str(out))
    assert again.returncode == 0, again.stderr
    assert sorted(json.loads(line)["seed"] for line in results.read_text().splitlines()) == sorted(set(played) | set(range(1, n + 1)))
    report = json.loads((out / "report.json").read_text())
    assert report["aggregate"]["games"] == n and report["run"]["complete"] is True


def test_a_worker_freezes_the_compiled_rules_and_a_test_process_does_not(tmp_path):
    """A worker process only plays the batch: once the game is compiled, the rules (and
    everything loaded before) are frozen (`gc.freeze`), so the collector's full passes do not
    scan them during play. A process that goes on after the batch (this test) is left as it was."""
    import gc
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from warcodex.balance import runner

    config = runner.BatchConfig(game="tiny", game_dir=str(ROOT / "games" / "tiny"), scenario="meeting",
                                agents=["random", "random"])
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                             initializer=runner._start_worker, initargs=(config,)) as pool:
        assert pool.submit(gc.get_freeze_count).result() == 0
        assert pool.submit(runner._play_seed, 1).result()["ok"]
        assert pool.submit(gc.get_freeze_count).result() > 10_000  # the rules, their code, the tables
    frozen = gc.get_freeze_count()
    assert _tiny_batch(tmp_path, "here", games=1)["aggregate"]["completed"] == 1
    assert gc.get_freeze_count() == frozen
