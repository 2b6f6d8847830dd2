"""Rule coverage of played games: which rules fired, how often, and which never did.

Read from the games' records, the explain traces of their log entries (a game played with
`trace=True`, the default): nothing is added to the engine's hot paths, and a saved log (a fuzz
counterexample, a balance failure) can be counted the same way. Every traced construct is
recognised by what the engine writes for it, from the rules' own declarations:

| kind | fired when the record shows |
|---|---|
| section | any derivation citing it, or a fired rule that cites it |
| action | an action entry of that action |
| trigger | the trigger's derivation (its label, or `on EVENT`, with its citations) |
| procedure | the procedure's derivation (its label with its citations) |
| step | a `step` of a procedure, action, trigger or result (label with citations) |
| modifier | a modifier line (`label: before op amount -> value`) under its quantity's derivation |
| table cell | a lookup line `TABLE: column C, row R -> CODE` (or `TABLE: row R -> CODE`) |
| beyond rule | a table's beyond-the-table rule used (`... is beyond the table: ... -> DE`, `... is resolved on the 5-1 column`); an `illegal` one is a legality test and is not observable |
| result | a result code drawn from a table (`... -> DR2`) or applied (`apply DR2 (...)`): in a game, the larger of the two counts (a CRT result is drawn, then applied: once) |
| card | `SIDE plays CARD as an event` |

Two constructs written with the same label and citations are one entry (they cannot be told
apart in a record); everything else is keyed by its declaration. A section whose subsections fired
is exercised through them. What play uses without a record showing it is listed as *not
observable* rather than never fired: a section cited only by movement modes, invariants, unit or
terrain data; a modifier of a quantity that never appears in a record (computed only inside path
searches and legality tests).
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from dataclasses import dataclass, field

from warcodex.dsl import ast
from warcodex.dsl.checker import _iter_nodes as _nodes  # every AST node under a declaration
from warcodex.interpreter.sequence import declared_phases
from warcodex.interpreter.tables import _col_text

KINDS = ("section", "action", "trigger", "procedure", "step", "modifier", "table cell", "beyond rule", "result", "card")

_PLAYS = re.compile(r"^\S+ plays (.+) as an event$")


def _cites(citations) -> tuple:
    return tuple(citations or ())


def _cite_text(citations) -> str:
    return " ".join("§" + c for c in citations)


@dataclass
class Rule:
    kind: str
    key: str
    label: str
    citations: tuple = ()


@dataclass
class RuleIndex:
    """Every rule of a scenario's rules that a record can show, and how to recognise it."""

    rules: dict[tuple[str, str], Rule] = field(default_factory=dict)
    opened: dict[tuple[str, tuple], list[tuple[str, str]]] = field(default_factory=dict)  # (what, cites) -> rules
    quantities: dict[tuple[str, tuple], str] = field(default_factory=dict)  # (title, cites) -> quantity
    modifiers: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # quantity -> [(prefix, key)]
    tables: dict[str, str] = field(default_factory=dict)  # title -> table
    results: dict[str, str] = field(default_factory=dict)  # "(label)" -> result
    cell_results: dict[str, tuple] = field(default_factory=dict)  # table cell key -> the results it holds
    cards: dict[str, str] = field(default_factory=dict)  # label -> card
    actions: dict[str, tuple] = field(default_factory=dict)  # action -> citations
    # sections cited by a construct a record can show (others are cited only by movement modes,
    # invariants, unit and terrain data...: play uses them without a record showing it)
    observable_sections: set = field(default_factory=set)
    beyond_texts: list = field(default_factory=list)  # (text a use of the rule ends with, citations, key)
    unobservable: set = field(default_factory=set)  # rules play uses without a record showing it
    # rules play cannot reach in the scenario (rule_reach.py), with the reason: listed apart
    out_of_reach: dict = field(default_factory=dict)  # (kind, key) -> why

    def add(self, kind: str, key: str, label: str, citations=()) -> tuple[str, str]:
        self.rules.setdefault((kind, key), Rule(kind, key, label, _cites(citations)))
        return (kind, key)

    def count(self, kind: str) -> int:
        return sum(1 for k in self.rules if k[0] == kind)


def only_in_other_scenario(condition, scenario: str) -> bool:
    """Whether a condition holds only in another scenario: one of its `and` terms compares the
    name `scenario` with a string (`scenario == "campaign"`, `scenario != "fall_blau"`) and fails."""
    if isinstance(condition, ast.And):
        return only_in_other_scenario(condition.left, scenario) or only_in_other_scenario(condition.right, scenario)
    if isinstance(condition, ast.Compare) and condition.op in ("==", "!="):
        pair = (condition.left, condition.right)
        names = any(isinstance(x, ast.Name) and x.id == "scenario" for x in pair)
        text = next((x.value for x in pair if isinstance(x, ast.Str)), None)
        if names and text is not None:
            return (text != scenario) if condition.op == "==" else (text == scenario)
    return False


class _Reachable:
    """Every rule in reach: what a rule index knows without the game's facts (worker processes
    count rules; only the report needs to tell the rules out of reach apart)."""

    dead_modifiers: dict = {}

    def why(self, decl) -> None:
        return None


_NOTHING_OUT_OF_REACH = _Reachable()


def rule_index(engine, scenario: str, reach=None) -> RuleIndex:
    """The rules of `scenario` (its engine: special rules included) a record can show. `reach`
    (`warcodex.facts.reach_of(engine, scenario)`) marks those play cannot reach in the scenario."""
    engine = engine.for_scenario(scenario)
    game = engine.game
    index = RuleIndex()
    reach = reach if reach is not None else _NOTHING_OUT_OF_REACH
    section_owners: dict[str, list] = {}  # section -> whether each rule citing it is out of reach

    def dead(key, why, citations=()) -> None:
        for c in _cites(citations):
            section_owners.setdefault(c, []).append(why is not None)
        if why is not None:
            index.out_of_reach.setdefault(key, why)
    for number, entry in game.sections.items():
        index.add("section", number, entry.title, (number,))
    for decl in game.of_kind(ast.Action):
        dead(index.add("action", decl.name, decl.header.label or decl.name, decl.header.citations),
             reach.why(decl), decl.header.citations)
        index.actions[decl.name] = _cites(decl.header.citations)
    # a trigger written for another scenario (`when scenario == "campaign" and ...`) is not a rule
    # of this one: it could never fire, so it is not listed as never fired
    triggers = [t for t in list(game.triggers) + list(game.scenarios[scenario].triggers)
                if not only_in_other_scenario(t.when, scenario)]
    for t in triggers:
        label = t.header.label or f"on {t.name}"
        key = index.add("trigger", f"on {t.name}: {label}", label, t.header.citations)
        dead(key, reach.why(t), t.header.citations)
        index.opened.setdefault((label, _cites(t.header.citations)), []).append(key)
    for p in game.of_kind(ast.Procedure):
        label = p.header.label or p.name
        key = index.add("procedure", p.name, label, p.header.citations)
        dead(key, reach.why(p), p.header.citations)
        index.opened.setdefault((label, _cites(p.header.citations)), []).append(key)
    owners = list(game.names.values()) + triggers + declared_phases(game.sequence)
    step_owners: dict[tuple, list] = {}  # a step's key -> why each rule holding it is out of reach
    for owner in owners:
        for node in _nodes(owner):
            if isinstance(node, ast.Step):
                label = node.label or "step"
                key = index.add("step", f"{label} {_cite_text(node.citations)}".strip(), label, node.citations)
                step_owners.setdefault(key, []).append((reach.why(owner), node.citations))
                keys = index.opened.setdefault((label, _cites(node.citations)), [])
                if key not in keys:
                    keys.append(key)
    for key, whys in step_owners.items():  # the same step in several rules: out of reach in all
        for why, cites in whys:
            dead(key, None if any(w is None for w, _ in whys) else why, cites)
    for q in game.of_kind(ast.Quantity):
        title = q.header.label or q.name
        index.quantities[(title, _cites(q.header.citations))] = q.name
        for m in q.modifiers:
            label = m.label or m.op
            key = index.add("modifier", f"{q.name}: {label}", f"{title}: {label}", m.citations)
            dead(key, reach.why(q) or reach.dead_modifiers.get(id(m)), m.citations)
            index.modifiers.setdefault(q.name, []).append((label + ": ", key[1]))
    for name, table in engine.tables.items():
        index.tables[table.title] = name
        for low, high, cells, row_text in table.rows:
            for i, cell in enumerate(cells):
                col = table.column_text[i] if i < len(table.column_text) else None
                index.cell_results[_cell_key(name, col, row_text)] = tuple(
                    c.result.name for c in cell.codes if c.number is None)
                dead(index.add("table cell", _cell_key(name, col, row_text),
                               f"{table.title} {_cell_key('', col, row_text).strip()} -> {cell}", table.citations),
                     reach.why(table.decl), table.citations)
        for written, b in zip(table.decl.beyond, table.beyond):
            key = f"{name}: {b.direction} {written.key.text()}"  # as printed: "above 5-1"
            dead(index.add("beyond rule", key, f"{table.title}: {b.direction} {written.key.text()}: {b.message or b.action}",
                           b.citations), reach.why(table.decl), b.citations)
            if b.action == "result":  # what tables.py writes when the rule is used
                index.beyond_texts.append((f" is beyond the table: {b.message or 'automatic result'} -> {b.cell}",
                                           b.citations, key))
            elif b.action == "use":
                index.beyond_texts.append((f" is resolved on the {_col_text(table, b.use)} column", b.citations, key))
            else:  # an illegal column: a legality test, never an entry of the record
                index.unobservable.add(("beyond rule", key))
    for r in game.of_kind(ast.Result):
        dead(index.add("result", r.name, r.header.label or r.name, r.header.citations), reach.why(r), r.header.citations)
        index.results[f"({r.header.label or r.name})"] = r.name
    for deck in game.of_kind(ast.Deck):
        for card in deck.cards:
            label = card.header.label or card.name
            index.add("card", card.name, label, card.header.citations)
            index.cards.setdefault(label, card.name)
    for (kind, _), rule in index.rules.items():
        if kind != "section":
            index.observable_sections.update(rule.citations)
    # a section cited only by rules out of reach (and by no other declaration) is out of reach
    cited_elsewhere = {c for d in game.names.values() if reach.why(d) is None and hasattr(d, "header")
                       for c in _cites(d.header.citations)}
    for section, whys in section_owners.items():
        if all(whys) and section not in cited_elsewhere and ("section", section) in index.rules:
            index.out_of_reach[("section", section)] = "cited only by rules out of reach in this scenario"
    for q in game.of_kind(ast.Quantity):
        index.observable_sections.update(q.header.citations)
        index.observable_sections.update(q.base_citations)
    return index


def _cell_key(table: str, column, row) -> str:
    where = f"row {row}" if column is None else f"column {column}, row {row}"
    return f"{table}: {where}" if table else where


class RuleCounter:
    """Counts the rules fired in game records against one scenario's rule index."""

    def __init__(self, index: RuleIndex) -> None:
        self.index = index

    def count_log(self, log: list[dict]) -> Counter:
        """The rules one game's log shows, with how often each fired."""
        found: Counter = Counter()
        self._drawn: Counter = Counter()
        self._applied: Counter = Counter()
        index = self.index
        for entry in log:
            if entry.get("k") == "action":
                name = entry.get("action")
                found[("action", name)] += 1
                for c in index.actions.get(name, ()):
                    found[("section", c)] += 1
            for d in entry.get("trace", ()):
                self._walk(d, None, found)
        for name in set(self._drawn) | set(self._applied):
            found[("result", name)] = max(self._drawn[name], self._applied[name])
        return Counter({k: v for k, v in found.items() if k in index.rules or k[0] == "quantity"})

    def _walk(self, d: dict, table_context, found: Counter) -> None:
        index = self.index
        what = d.get("what", "")
        cites = tuple(d.get("citations", ()))
        for c in cites:
            found[("section", c)] += 1
        for key in index.opened.get((what, cites), ()):
            found[key] += 1
        quantity = None
        if " = " in what:
            quantity = index.quantities.get((what.rsplit(" = ", 1)[0], cites))
            if quantity is None and what.count(" = ") > 1:  # a value with " = " in its text
                quantity = index.quantities.get((what.split(" = ", 1)[0], cites))
        if quantity is not None:
            found[("quantity", quantity)] += 1  # seen in a record: its modifiers are observable
        if what.startswith("apply ") and what.endswith(")"):
            name = index.results.get(what[what.rfind(" (") + 1:])
            if name is not None:
                self._applied[name] += 1
        if ": " in what and " -> " in what:
            title, rest = what.split(": ", 1)
            table = index.tables.get(title)
            if table is not None and rest.startswith(("column ", "row ")):
                key = f"{table}: {rest.rsplit(' -> ', 1)[0]}"
                found[("table cell", key)] += 1
                for name in index.cell_results.get(key, ()):
                    self._drawn[name] += 1
        if " is beyond the table" in what or " is resolved on the " in what:
            for text, citations, key in index.beyond_texts:
                if what.endswith(text) and tuple(citations) == cites:
                    found[("beyond rule", key)] += 1
                    break
        m = _PLAYS.match(what)
        if m and m.group(1) in index.cards:
            found[("card", index.cards[m.group(1)])] += 1
        for step in d.get("steps", ()):
            if quantity is not None:
                text = step.get("what", "")
                for prefix, key in index.modifiers.get(quantity, ()):
                    if text.startswith(prefix):
                        found[("modifier", key)] += 1
                        break
            self._walk(step, table_context, found)


# ---------------------------------------------------------------- the report
def coverage_report(index: RuleIndex, counts: Counter, games: int, title: str) -> dict:
    """JSON-ready: per kind, the rules fired (with counts and the games they fired in) and never."""
    by_kind = {}
    for kind in KINDS:
        rules = [r for (k, _), r in index.rules.items() if k == kind]
        if not rules:
            continue
        fired = sorted(((r, counts.get((kind, r.key), 0)) for r in rules if counts.get((kind, r.key), 0)),
                       key=lambda x: (-x[1], x[0].key))
        never = sorted((r for r in rules if not counts.get((kind, r.key), 0)), key=lambda r: r.key)
        unobserved = []
        if kind == "section":
            # a section whose subsections fired is exercised through them
            for r in list(never):
                through = sum(n for (k, key), n in counts.items() if k == "section" and key.startswith(r.key + "."))
                if through:
                    never.remove(r)
                    fired.append((Rule(r.kind, r.key, r.label + " (through its subsections)", r.citations), through))
            fired.sort(key=lambda x: (-x[1], x[0].key))
            unobserved = [r for r in never if r.key not in index.observable_sections]
            never = [r for r in never if r not in unobserved]
        if kind == "beyond rule":
            unobserved = [r for r in never if (kind, r.key) in index.unobservable]
            never = [r for r in never if r not in unobserved]
        if kind == "modifier":
            # a quantity computed only inside searches and requirements (movement costs, legality)
            # is never traced: its modifiers may have applied without a record showing it
            unobserved = [r for r in never if not counts.get(("quantity", r.key.split(": ", 1)[0]), 0)]
            never = [r for r in never if r not in unobserved]
        # rules play could not reach in this scenario (rule_reach.py) are listed apart from those
        # it could have reached and did not
        unreachable = [r for r in never if (kind, r.key) in index.out_of_reach]
        never = [r for r in never if (kind, r.key) not in index.out_of_reach]
        by_kind[kind] = {
            "total": len(rules), "fired": len(fired), "never_fired": len(never), "not_observable": len(unobserved),
            "out_of_reach": len(unreachable),
            "unreachable": [{"key": r.key, "label": r.label, "citations": list(r.citations),
                             "why": index.out_of_reach[(kind, r.key)]} for r in unreachable],
            "unobserved": [{"key": r.key, "label": r.label, "citations": list(r.citations)} for r in unobserved],
            "counts": [{"key": r.key, "label": r.label, "citations": list(r.citations), "times": n} for r, n in fired],
            "never": [{"key": r.key, "label": r.label, "citations": list(r.citations)} for r in never],
        }
    return {"title": title, "games": games, "kinds": by_kind}


def game_counts_key(kind: str, key: str) -> str:
    """One string key per rule, for JSON records of single games."""
    return f"{kind}\t{key}"


def parse_counts_key(text: str) -> tuple[str, str]:
    kind, _, key = text.partition("\t")
    return kind, key


_UNOBSERVABLE = {
    "section": "Cited only by what play uses without tracing it: movement modes, invariants, the sequence, unit and "
               "terrain data.",
    "modifier": "Their quantity never appears in a record: it is computed only inside path searches and legality "
                "tests, which are not traced.",
    "beyond rule": "An illegal column is a legality test: an attack it forbids is never made, so never recorded.",
}


def render_html(report: dict) -> str:
    """A self-contained page: a summary table per kind, then every rule fired and never fired."""
    esc = html.escape
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(report['title'])}</title>",
             "<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:70em}"
             "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}"
             "th{background:#eee}.never{color:#a00}.n{text-align:right}details{margin:.3em 0}</style></head><body>",
             f"<h1>{esc(report['title'])}</h1><p>{report['games']} game(s).</p>",
             "<table><tr><th>kind</th><th class=n>rules</th><th class=n>fired</th><th class=n>never fired</th>"
             "<th class=n>out of reach in this scenario</th><th class=n>not observable</th></tr>"]
    for kind, k in report["kinds"].items():
        parts.append(f"<tr><td><a href='#{esc(kind)}'>{esc(kind)}</a></td><td class=n>{k['total']}</td>"
                     f"<td class=n>{k['fired']}</td><td class='n never'>{k['never_fired']}</td>"
                     f"<td class=n>{k.get('out_of_reach', 0)}</td>"
                     f"<td class=n>{k.get('not_observable', 0)}</td></tr>")
    parts.append("</table>")
    for kind, k in report["kinds"].items():
        parts.append(f"<h2 id='{esc(kind)}'>{esc(kind)}: {k['fired']} of {k['total']} fired</h2>")
        if k["never"]:
            parts.append(f"<h3 class=never>never fired ({k['never_fired']})</h3><table><tr><th>rule</th><th>label</th><th>§</th></tr>")
            for r in k["never"]:
                parts.append(f"<tr class=never><td>{esc(r['key'])}</td><td>{esc(r['label'])}</td>"
                             f"<td>{esc(_cite_text(r['citations']))}</td></tr>")
            parts.append("</table>")
        if k.get("unreachable"):
            parts.append(f"<h3>out of reach in this scenario ({k['out_of_reach']})</h3><p>No play could fire "
                         "them: the scenario's turns, its special rules or another scenario's conditions rule them "
                         "out (computed from the game's facts and the rules that use them).</p><table><tr><th>rule"
                         "</th><th>label</th><th>§</th><th>why</th></tr>")
            for r in k["unreachable"]:
                parts.append(f"<tr><td>{esc(r['key'])}</td><td>{esc(r['label'])}</td>"
                             f"<td>{esc(_cite_text(r['citations']))}</td><td>{esc(r['why'])}</td></tr>")
            parts.append("</table>")
        if k.get("unobserved"):
            parts.append(f"<h3>not observable in records ({k['not_observable']})</h3><p>{esc(_UNOBSERVABLE[kind])} "
                         "Play may have used them: a record cannot show it.</p><ul>")
            parts.extend(f"<li>{esc(r['key'])}: {esc(r['label'])} {esc(_cite_text(r['citations']))}</li>"
                         for r in k["unobserved"])
            parts.append("</ul>")
        if k["counts"]:
            parts.append(f"<details><summary>fired ({k['fired']})</summary><table><tr><th>rule</th><th>label</th>"
                         "<th>§</th><th class=n>times</th></tr>")
            for r in k["counts"]:
                parts.append(f"<tr><td>{esc(r['key'])}</td><td>{esc(r['label'])}</td><td>{esc(_cite_text(r['citations']))}</td>"
                             f"<td class=n>{r['times']}</td></tr>")
            parts.append("</table></details>")
    parts.append("</body></html>\n")
    return "".join(parts)


def write_coverage(path, report: dict) -> list:
    """Write the report as JSON and HTML (atomically): `path` and its sibling with the other
    suffix (`cov.json` and `cov.html`; a path without either suffix gets both appended)."""
    from pathlib import Path

    from warcodex.interpreter.saves import write_atomic

    path = Path(path)
    if path.suffix in (".json", ".html"):
        base = path.with_suffix("")
    else:
        base = path
    json_path, html_path = base.with_name(base.name + ".json"), base.with_name(base.name + ".html")
    write_atomic(json_path, json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    write_atomic(html_path, render_html(report))
    return [json_path, html_path]
