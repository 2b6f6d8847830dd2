"""Which rules each agent's games fired, and which no agent's did: rule coverage by agent.

    python bench/coverage_by_agent.py random=fb-random.json greedy=fb-greedy.json mcts=fb-mcts.json

Each argument is `LABEL=FILE`: a rule-coverage JSON (`warcodex balance --rule-coverage FILE`) of
one batch, all of the same game and scenario (the first batch's title is checked against the
others). Printed as Markdown, for docs/balance.md:

1. per batch: its games, and per kind the rules it fired of those in reach;
2. the rules in reach some batch fired and another never did, with who fired them ("fired by
   greedy, mcts; never by random");
3. the rules in reach no batch fired;
4. the rules out of reach in the scenario (facts/reach.py), listed apart with the reason: no play
   could fire them, whatever the agents.

A section, modifier or beyond rule a record cannot show (*not observable*) is left out of all four.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path


def _load(arg: str) -> tuple[str, dict]:
    label, eq, path = arg.partition("=")
    if not eq or not label or not path:
        sys.exit(f"'{arg}': give LABEL=FILE (random=fb-random-coverage.json)")
    return label, json.loads(Path(path).read_text(encoding="utf-8"))


def _scenario(title: str) -> str:
    """'Rule coverage: GAME, SCENARIO, N games (AGENTS)' -> 'GAME, SCENARIO'."""
    found = re.match(r"Rule coverage: (.*), \d+ games?\b", title)
    return found.group(1) if found else title


def fired_sets(report: dict) -> dict[tuple[str, str], str]:
    """(kind, key) -> label of every rule the batch fired (a section through its subsections too)."""
    return {(kind, r["key"]): r["label"] for kind, k in report["kinds"].items() for r in k["counts"]}


def in_reach(report: dict) -> dict[tuple[str, str], tuple[str, tuple]]:
    """(kind, key) -> (label, citations) of every observable rule play could reach."""
    out = {}
    for kind, k in report["kinds"].items():
        for r in k["counts"] + k["never"]:
            out[(kind, r["key"])] = (r["label"].removesuffix(" (through its subsections)"), tuple(r["citations"]))
    return out


def _rule(kind: str, key: str, label: str, citations) -> str:
    cites = " ".join("§" + c for c in citations)
    return f"{kind} `{key}`" + (f" ({label})" if label and label != key else "") + (f" {cites}" if cites else "")


def compare(batches: list[tuple[str, dict]]) -> str:
    first = _scenario(batches[0][1]["title"])
    for label, report in batches[1:]:
        if _scenario(report["title"]) != first:
            sys.exit(f"batch '{label}' is of {_scenario(report['title'])}, not {first}")
    kinds = list(batches[0][1]["kinds"])
    reach: dict = {}
    for _, report in batches:
        reach.update(in_reach(report))
    fired = {label: set(fired_sets(report)) & set(reach) for label, report in batches}
    lines = [f"Rule coverage by agent: {first}", ""]
    lines.append("| batch | games | " + " | ".join(kinds) + " | all |")
    lines.append("|---|---|" + "---|" * (len(kinds) + 1))
    total = {kind: sum(1 for k, _ in reach if k == kind) for kind in kinds}
    for label, report in batches:
        cells = [f"{sum(1 for k, _ in fired[label] if k == kind)} of {total[kind]}" for kind in kinds]
        lines.append(f"| {label} | {report['games']} | " + " | ".join(cells) + f" | {len(fired[label])} of {len(reach)} |")
    lines.append("")
    labels = [label for label, _ in batches]
    some = set().union(*fired.values())
    split = sorted(r for r in some if not all(r in fired[label] for label in labels))
    lines.append(f"Rules in reach fired by some batches and never by others ({len(split)}):")
    lines.append("")
    groups: dict = {}
    for r in split:
        by = tuple(label for label in labels if r in fired[label])
        groups.setdefault(by, []).append(r)
    for by, rules in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0])):
        never = [label for label in labels if label not in by]
        lines.append(f"- fired by {', '.join(by)}; never by {', '.join(never)} ({len(rules)}): "
                     + "; ".join(_rule(k, key, *reach[(k, key)]) for k, key in rules))
    lines.append("")
    nobody = sorted(r for r in reach if r not in some)
    lines.append(f"Rules in reach no batch fired ({len(nobody)}):")
    lines.append("")
    for kind in kinds:
        rules = [key for k, key in nobody if k == kind]
        if rules:
            lines.append(f"- {kind} ({len(rules)}): " + "; ".join(_rule(kind, key, *reach[(kind, key)])[len(kind) + 1:]
                                                             for key in rules))
    lines.append("")
    unreachable = {(kind, r["key"]): r for _, report in batches for kind, k in report["kinds"].items()
                   for r in k.get("unreachable", ())}
    lines.append(f"Out of reach in the scenario ({len(unreachable)}; facts/reach.py): no agent could fire them.")
    lines.append("")
    for kind in kinds:
        rules = [r for (k, _), r in sorted(unreachable.items()) if k == kind]
        if rules:
            lines.append(f"- {kind} ({len(rules)}): " + "; ".join(f"`{r['key']}` ({r['why']})" for r in rules))
    return "\n".join(lines) + "\n"


def main(args: list[str]) -> None:
    if len(args) < 2:
        sys.exit(__doc__.split("\n\n")[1])
    print(compare([_load(a) for a in args]), end="")


if __name__ == "__main__":
    main(sys.argv[1:])
