"""Tests of the semantic checker (warcodex.dsl.checker).

Most fixtures are inline: a minimal valid game header (HEADER, lines 1-3) plus the one faulty
construct, written to tmp_path by `check_text`. Each case asserts the exact code, message, line
and column, and that the fixture produces no other diagnostic (so the checker has no false
positives on the valid parts). Fixtures that need several files live in tests/data/bad/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tiny_copy import tiny_copy
from warcodex.dsl import ast
from warcodex.dsl.checker import check_game, check_path, resolve_code
from warcodex.dsl.diagnostics import Severity
from warcodex.dsl.loader import load_game

ROOT = Path(__file__).resolve().parent.parent
BAD = Path(__file__).resolve().parent / "data" / "bad"

HEADER = """game g "G" §1 { }
sections { §1 "One" §2 "Two" }
sequence §1 { phase main §1 { } }
"""
# The same header, allowing an action `a` (so fixtures declaring it get no W-unused-action).
HEADER_A = HEADER.replace("phase main §1 { }", "phase main §1 { allow a }")


def check_text(tmp_path: Path, body: str, header: str = HEADER):
    (tmp_path / "game.wcx").write_text(header + body, encoding="utf-8")
    game, diags = check_path(tmp_path)
    return diags


def rendered(diags) -> str:
    return "\n".join(d.render() for d in diags.items)


# ---------------------------------------------------------------- one case per diagnostic
# (id, body, header, code, message, line, column, hint or None for "not checked")
CASES = [
    # 1. undefined names, with scoping
    ("undefined-name", 'var weather: int = 0 §1\nfunction f(): int "f" §1 = wether + 1\n', HEADER,
     "E-undefined", "unknown name 'wether'", 5, 28, "did you mean 'weather'?"),
    ("comprehension-var-is-local", 'procedure p() "p" §1 {\n  if true { let x = 1 }\n'
     '  let y = x + count(v for v in [1, 2])\n  let z = v\n}\n', HEADER,
     "E-undefined", "unknown name 'v'", 7, 11, None),
    ("action-param-where-sees-earlier-params-only",
     'action a "A" §1 {\n  param x: from [1, 2] where x > 0 and y > 0\n  param y: from [x]\n'
     '  require y > 0\n  do { stop }\n}\n', HEADER_A,
     "E-undefined", "unknown name 'y'", 5, 40, None),
    ("movement-names", 'movement ground "G" §1 {\n  stop: distance(origin, from) > 2 and to != none and s != none '
     'and u.steps > 0 and range_left\n}\n', HEADER,
     "E-undefined", "unknown name 'range_left'", 5, 85, None),
    ("hidden-needs-an-owner", 'var secret: int = 0 hidden §1\n', HEADER,
     "E-hidden", "var 'secret' cannot be hidden: only a unit_var (known to the unit's side) or a side_var (known to that side) has an owner",
     4, 1, "declare it as a unit_var or side_var of the side that knows it"),
    ("reroll-needs-a-local-roll", 'procedure p() "p" §1 {\n  reroll r = roll d6 by none §1\n}\n', HEADER,
     "E-undefined", "reroll: 'r' is not a local name holding a roll", 5, 3, "name the roll first: let r = roll d6"),
    ("builtin-used-as-value", 'function f(): int "f" §1 = count\n', HEADER,
     "E-undefined", "'count' is a built-in function, not a value", 4, 28, "call it: count(...)"),
    ("result-free-name-at-apply", 'result AE "Att elim" §1 { for u in attackers { eliminate(u) } }\n'
     'table crt "CRT" §1 {\n  rows roll d6: 1..6\n  row 1..6: AE\n}\n'
     'procedure p() "p" §1 { apply crt[roll d6] }\n', HEADER,
     "E-undefined", "result AE uses 'attackers', which is not defined where the result is applied", 9, 24,
     "a result sees the names of the body that applies it: define 'attackers' before this `apply`"),
    ("unknown-trigger-event", 'on enterr(u: unit, h: location) "x" §1 { }\n', HEADER,
     "E-undefined", "unknown event 'enterr'", 4, 4, "did you mean 'enter'?"),
    ("unknown-emitted-event", 'on turn_start "x" §1 { emit(boom) }\n', HEADER,
     "E-undefined", "unknown event 'boom'", 4, 29, "no `on boom` trigger handles this event"),
    # 2. calls
    ("unknown-function", 'function f(): int "f" §1 = cuont([1])\n', HEADER,
     "E-undefined", "unknown function 'cuont'", 4, 28, "did you mean 'count'?"),
    ("not-a-function", 'table t "T" §1 { row 1: 1 }\nfunction f(): int "f" §1 = t(1)\n', HEADER,
     "E-undefined", "'t' is a table, not a function", 5, 28, None),
    ("arity-builtin", 'function f(): int "f" §1 = distance(1)\n', HEADER,
     "E-arity", "'distance' takes 2 arguments, but 1 is given", 4, 28, None),
    ("arity-optional-builtin", 'procedure p() "p" §1 { place(1) }\n', HEADER,
     "E-arity", "'place' takes 3 to 4 arguments, but 1 is given", 4, 24, None),
    # a `table` parameter (rolls, rows, allowed, column) is given a declared table
    ("table-arg-declared-otherwise", 'table crt "CRT" §1 {\n  rows roll d6: 1..6\n  row 1..6: 1\n}\nside crt_side "S" §1\nfunction f(): list "f" §1 = rolls(crt_side)\n', HEADER,
     "E-type", "the `table` of rolls() must be a table, not 'crt_side', a side", 9, 35, "the tables: crt"),
    ("table-arg-literal", 'table crt "CRT" §1 {\n  rows roll d6: 1..6\n  row 1..6: 1\n}\nfunction f(): list "f" §1 = rows(3)\n', HEADER,
     "E-type", "the `table` of rows() must be a table, not an int", 8, 34, "the tables: crt"),
    ("table-arg-local-of-other-type", 'table crt "CRT" §1 {\n  rows roll d6: 1..6\n  row 1..6: 1\n}\nfunction f(u: unit): bool "f" §1 = allowed(u, 3)\n', HEADER,
     "E-type", "the `table` of allowed() must be a table, not the local 'u', a unit", 8, 44, "the tables: crt"),
    ("table-param-of-a-rule", 'table crt "CRT" §1 {\n  rows roll d6: 1..6\n  row 1..6: 1\n}\nside s "S" §1\nfunction f(t: table): list "f" §1 = rolls(t)\nfunction g(): list "g" §1 = f(s)\n', HEADER,
     "E-type", "the `t` of f() must be a table, not 's', a side", 10, 31, "the tables: crt"),
    ("rolls-of-a-table-of-no-roll", 'table tec "TEC" §1 {\n  rows values: clear forest\n  row clear: 1\n  row forest: 2\n}\nfunction f(): list "f" §1 = rolls(tec)\n', HEADER,
     "E-type", "rolls(): the rows of table 'tec' are not a die roll", 9, 35,
     "rolls() reads a `rows roll d6: 1..6` line; rows(tec) gives its printed rows"),
    ("arity-function", 'function g(x: int): int "g" §1 = x\nfunction f(): int "f" §1 = g(1, 2)\n', HEADER,
     "E-arity", "function 'g' takes 1 argument, but 2 are given", 5, 28, None),
    ("arity-trigger-params", 'on enter(u: unit) "y" §1 { }\n', HEADER,
     "E-arity", "event 'enter' has 2 arguments, but this trigger binds 1", 4, 4,
     "write: on enter(u: unit, h: location)"),
    ("effect-builtin-in-expression", 'procedure p() "p" §1 {\n  let x = win(none, "draw")\n}\n', HEADER,
     "E-effect-in-expression", "'win' changes the game state, so it can only be used as a statement", 5, 11,
     "call it on a line of its own"),
    ("procedure-in-expression", 'procedure q() "q" §1 { }\nprocedure p() "p" §1 { let y = q() }\n', HEADER,
     "E-effect-in-expression", "procedure 'q' can only be called as a statement", 5, 32, None),
    ("function-as-statement", 'function g(): int "g" §1 = 1\nprocedure p() "p" §1 { g() }\n', HEADER,
     "E-not-a-statement", "function 'g' computes a value, which is thrown away here", 5, 24,
     "use it: let x = g(...)"),
    # 3. `is` tags (a flag property and a unit type are valid tags)
    ("deck-unknown-property", 'deck d "D" §1 {\n  reshufle_at: 1\n  card a "A" §1\n}\n', HEADER,
     "E-deck", "deck 'd' has no property 'reshufle_at'", 5, 3, "did you mean 'reshuffle_at'?"),
    ("deck-reshuffle-is-a-count", 'deck d "D" §1 {\n  reshuffle_at: "one"\n}\n', HEADER,
     "E-deck", "deck 'd': reshuffle_at must be a whole number of cards (0 or more)", 5, 17, None),
    # `face:` prints the properties it names on every card: a name no card has would print nothing
    ("deck-face-names-no-property", 'deck d "D" §1 {\n  face: ["txt"]\n  card a "A" §1 { text: "Go." }\n}\n', HEADER,
     "E-deck", "deck 'd': no card has a property 'txt' to print on its face", 5, 10, "did you mean 'text'?"),
    ("deck-face-is-a-list-of-names", 'deck d "D" §1 {\n  face: "text"\n}\n', HEADER,
     "E-deck", "deck 'd': face must be a list of names in quotes", 5, 9, None),
    # an owner-only pile shows each card to its owners: a card with none is seen by nobody there
    ("ownerless-card-starts-in-owner-only-pile", 'deck d "D" §1 {\n  pile "withheld" owner_only §1\n'
     '  card a "A" §1 { pile: "withheld" }\n}\n', HEADER,
     "W-ownerless-card", "Card 'a', which declares no owner, starts in the owner-only pile \"withheld\" of deck 'd': "
     "nobody sees it there", 6, 25,
     "give the card its owner (`owner: SIDE`, `side:` or `sides: [...]`); if nobody should see it, declare the pile "
     "`pile \"withheld\" face_down`"),
    ("ownerless-card-moved-into-owner-only-pile", 'side red "Red" §1 { }\ndeck d "D" §1 {\n'
     '  pile "withheld" owner_only §1\n  card a "A" §1 { owner: red }\n  card b "B" §1\n}\n'
     'procedure p(c: name) "p" §1 {\n  move_card(d, a, "withheld")\n  move_card(d, b, "discard")\n'
     '  move_card(d, c, "withheld")\n}\n', HEADER,
     "W-ownerless-card", "'move_card' may put card 'b', which declares no owner, into the owner-only pile "
     "\"withheld\" of deck 'd': nobody sees it there", 13, 3, None),
    ("ownerless-card-discarded-into-owner-only-discard-pile", 'side red "Red" §1 { }\ndeck d "D" §1 {\n'
     '  pile "discard" owner_only §1\n  card a "A" §1 { sides: [red] }\n  card b "B" §1 { owner: none }\n}\n'
     'procedure p(s: side) "p" §1 {\n  discard(s, a)\n  discard(s, b)\n}\n', HEADER,
     "W-ownerless-card", "'discard' may put card 'b', which declares no owner, into the owner-only pile "
     "\"discard\" of deck 'd': nobody sees it there", 12, 3, None),
    ("unknown-tag", 'terrain forest "Forest" §1\nunit tank "Tank" §1 { elite }\n'
     'function f(u: unit): bool "f" §1 = u is elite and u is tank and terrain(u.loc) is forrest\n', HEADER,
     "E-unknown-tag", "unknown tag 'forrest'", 6, 83, "did you mean 'forest'?"),
    # 4. tables
    ("table-cell-count", 'result DE "Elim" §1\ntable t "T" §1 {\n  columns: 1 2\n  row 1: DE | DE\n  row 2: DE\n}\n',
     HEADER, "E-table", "row 2 of table t has 1 cell, but the table has 2 columns", 8, 3, None),
    ("table-missing-roll", 'result DE "Elim" §1\ntable t "T" §1 {\n  rows roll d6: 1..6\n  row 1..4: DE\n'
     '  row 6: DE\n}\n', HEADER,
     "E-table", "table t has no row for roll 5", 6, 3, None),
    ("table-overlapping-rolls", 'result DE "Elim" §1\ntable t "T" §1 {\n  rows roll d6: 1..6\n  row 1..4: DE\n'
     '  row 4..6: DE\n}\n', HEADER,
     "E-table", "roll 4 is covered twice in table t: by row 1..4 and by row 4..6", 8, 7, None),
    ("table-dice-range", 'result DE "Elim" §1\ntable t "T" §1 {\n  rows roll d6: 1..5\n  row 1..5: DE\n}\n', HEADER,
     "E-table", "the rows of table t do not cover every roll of d6 (1 to 6): 6 missing", 6, 3, None),
    ("table-odds-order", 'result DE "Elim" §1\ntable t "T" §1 {\n  columns odds: 1:1 3:1 2:1\n'
     '  row 1: DE | DE | DE\n}\n', HEADER,
     "E-table", "odds columns must increase: 2:1 comes after 3:1", 6, 25, None),
    ("table-beyond-kind", 'result DE "Elim" §1\ntable t "T" §1 {\n  columns odds: 1:1 2:1\n'
     '  beyond { above 3 use 2:1 §1 }\n  row 1: DE | DE\n}\n', HEADER,
     "E-table", "beyond key 3 is a number, but the columns of table t are odds columns", 7, 18,
     "write it like the columns, e.g. 1:1"),
    ("unknown-result", 'result DE "Elim" §1\ntable t "T" §1 { row 1: DX }\n', HEADER,
     "E-unknown-result", "unknown result code 'DX'", 5, 25, None),
    ("number-glued-to-result-without-params", 'result DE "Elim" §1\ntable t "T" §1 { row 1: DE1 }\n', HEADER,
     "E-unknown-result", "unknown result code 'DE1'", 5, 25,
     "result DE takes 0 parameters, so DE1 cannot mean DE(1)"),
    ("not-a-result", 'terrain clear "Clear" §1\ntable t "T" §1 { row 1: clear }\n', HEADER,
     "E-unknown-result", "'clear' is a terrain, not a result", 5, 25, None),
    ("result-arity", 'result DR(n: int) "Retreat" §1\ntable t "T" §1 { row 1: DR }\n', HEADER,
     "E-arity", "result DR takes 1 argument, but 'DR' gives 0", 5, 25, "write DR(n)"),
    # 5. types
    ("set-literal-type", 'var vp: int = 0 §1\nprocedure p() "p" §1 { set vp = true }\n', HEADER,
     "E-type", "var 'vp' is int, but is set to the bool literal true", 5, 33, None),
    ("set-unit-var-literal-type", 'unit_var tired: bool = false §1\nprocedure p(u: unit) "p" §1 { set u.tired = 3 }\n',
     HEADER, "E-type", "unit_var 'tired' is bool, but is set to the int literal 3", 5, 45, None),
    ("var-default-type", 'var vp: int = "none" §1\n', HEADER,
     "E-type", 'var \'vp\' is int, but its default is the str literal "none"', 4, 15, None),
    ("arithmetic-on-string", 'function f(): int "f" §1 = 1 + "a"\n', HEADER,
     "E-type", '`+` needs numbers, not the str literal "a"', 4, 32, None),
    ("condition-literal", 'procedure p() "p" §1 { if 1 { stop } }\n', HEADER,
     "E-type", "a condition must be true or false, not the int literal 1", 4, 27, None),
    ("unknown-param-type", 'procedure p(n: integer) "p" §1 { }\n', HEADER,
     "E-type", "unknown type 'integer'", 4, 16, None),
    ("unknown-var-type", 'var vp: integr = 0 §1\n', HEADER,
     "E-type", "unknown type 'integr'", 4, 9, None),
    ("place-wrong-kind", 'side red "Red" §1\nunit inf "Inf" §1\n'
     'scenario s "S" §1 { turns: 2 setup { place(inf, inf, "0101") } }\n', HEADER,
     "E-type", "place(): 'inf' is a unit, not a side", 6, 49, None),
    ("unknown-unit-property", 'unit inf "Inf" §1 { attack: 1 }\nfunction f(u: unit): int "f" §1 = u.atack\n', HEADER,
     "E-unknown-property", "units have no property 'atack'", 5, 37, "did you mean 'attack'?"),
    # a loop variable is a unit when the list it runs over holds units: a builtin's, or a function's
    # that returns one (its body says so), through `let`, `list(...)` and `if ... then ... else`
    ("unknown-unit-property-comprehension", 'unit inf "Inf" §1 { attack: 1 }\n'
     'function attackers(h: location): list "a" §1 = list(v for v in units_at(h) where v.attack > 0)\n'
     'function f(h: location): int "f" §1 = count(u for u in attackers(h) where u.atack > 0)\n', HEADER,
     "E-unknown-property", "units have no property 'atack'", 6, 77, "did you mean 'attack'?"),
    ("unknown-unit-property-builtin-source", 'unit inf "Inf" §1 { attack: 1 }\n'
     'function f(s: side): int "f" §1 = sum(u.atack for u in units_of(s))\n', HEADER,
     "E-unknown-property", "units have no property 'atack'", 5, 41, "did you mean 'attack'?"),
    ("unknown-unit-property-for", 'unit inf "Inf" §1 { attack: 1 }\n'
     'procedure p() "p" §1 { let xs = list(v for v in all_units() where v.attack > 1) for u in xs '
     '{ log "x" if u.atack > 0 { stop } } }\n', HEADER,
     "E-unknown-property", "units have no property 'atack'", 5, 108, "did you mean 'attack'?"),
    ("unknown-unit-property-choose", 'unit inf "Inf" §1 { attack: 1 }\n'
     'procedure p(s: side) "p" §1 { choose u from units_of(s) where u.atak > 0 by s }\n', HEADER,
     "E-unknown-property", "units have no property 'atak'", 5, 65, "did you mean 'attack'?"),
    ("unknown-unit-property-action-param", 'unit inf "Inf" §1 { attack: 1 }\n'
     'action a "A" §1 { param u: from list(v for v in units_of(active) where v.attack > 0) where u.atack > 0 '
     'do { stop } }\n', HEADER_A,
     "E-unknown-property", "units have no property 'atack'", 5, 94, "did you mean 'attack'?"),
    # a `list` parameter holds what every call passes: a builtin's units, an action's `subset from`,
    # a caller's own list parameter, even around a cycle (a combat calling itself back)
    ("unknown-unit-property-list-param", 'unit inf "Inf" §1 { attack: 1 }\n'
     'function total(xs: list): int "t" §1 = sum(x.atack for x in xs)\n'
     'function f(h: location): int "f" §1 = total(units_at(h))\n', HEADER,
     "E-unknown-property", "units have no property 'atack'", 5, 46, "did you mean 'attack'?"),
    ("unknown-unit-property-list-param-chain", 'unit inf "Inf" §1 { attack: 1 }\n'
     'action a "A" §1 { param g: subset from units_of(active) min 1 do { fight(g, 1) } }\n'
     'procedure fight(group: list, n: int) "F" §1 {\n  for u in group { set u.atack = n }\n'
     '  if n < 3 { again(group, n) }\n}\n'
     'procedure again(group: list, n: int) "A" §1 { fight(list(v for v in group where v.loc != none), n + 1) }\n',
     HEADER_A, "E-unknown-property", "units have no property 'atack'", 7, 26, "did you mean 'attack'?"),
    ("unknown-unit-property-global-list", 'unit inf "Inf" §1 { attack: 1 }\n'
     'var b_attackers: list = [] §1\n'
     'procedure battle(xs: list) "B" §1 { set b_attackers = xs }\n'
     'function strength(): int "S" §1 = sum(a.atack for a in b_attackers)\n'
     'action a "A" §1 { param g: subset from units_of(active) min 1 do { battle(g) } }\n', HEADER_A,
     "E-unknown-property", "units have no property 'atack'", 7, 41, "did you mean 'attack'?"),
    ("unknown-terrain-property", 'terrain clear "Clear" §1 { move_cost: 1 }\n'
     'function f(h: location): int "f" §1 = terrain(h).movecost\n', HEADER,
     "E-unknown-property", "no terrain has a property 'movecost'", 5, 50, "did you mean 'move_cost'?"),
    # 6. citations
    ("no-citation", 'function f(): int "f" = 1\n', HEADER,
     "E-no-citation", "function 'f' cites no rulebook section", 4, 10, None),
    ("modifier-without-citation", 'quantity q(): int "q" §1 {\n  base: 1 §1\n  modifier "m" + 1\n}\n', HEADER,
     "E-no-citation", "modifier 'm' of quantity 'q' cites no rulebook section", 6, 3, None),
    ("unknown-section", 'terrain clear "Clear" §2.1 { move_cost: 1 }\n', HEADER,
     "E-unknown-section", "unknown section §2.1", 4, 23, "known sections near it: §2"),
    # 7. the sequence
    ("allow-unknown-action", 'action move "Move" §1 { }\n',
     HEADER.replace("phase main §1 { }", "phase main §1 { allow mvoe, move }"),
     "E-undefined", "unknown action 'mvoe'", 3, 37, "did you mean 'move'?"),
    ("unused-action", 'action b "B" §1 { }\n', HEADER,
     "W-unused-action", "action 'b' is never allowed in any phase", 4, 8, "add `allow b` to the phase where players may do it"),
    ("unreachable-phase", "", HEADER.replace("phase main §1 {", "phase main §1 when false {"),
     "W-unreachable-phase", "phase 'main' never runs: its condition is `false`", 3, 34, None),
    ("no-sequence", "", 'game g "G" §1 { }\nsections { §1 "One" }\n',
     "E-no-sequence", "the game has no `sequence` (turn sequence)", 1, 6, None),
    # 8. scenarios
    ("scenario-without-turns", 'scenario s "S" §1 { }\n', HEADER,
     "E-scenario", "scenario 's' has no first_turn and last_turn", 4, 10,
     "add `first_turn: 1` and `last_turn: N` (or `turns: N`)"),
    ("scenario-ends-before-start", 'scenario s "S" §1 { first_turn: 5 last_turn: 3 }\n', HEADER,
     "E-scenario", "scenario 's' ends (last_turn 3) before it starts (first_turn 5)", 4, 46, None),
    ("scenario-turn-not-int", 'scenario s "S" §1 { first_turn: 1 last_turn: "six" }\n', HEADER,
     "E-scenario", "last_turn of scenario 's' must be a whole number", 4, 46, None),
    # 9. invariants
    ("invariant-without-check", 'invariant i "I" §1 { holds: true }\n', HEADER,
     "E-invariant", "invariant 'i' has no `check:`", 4, 11, None),
    ("invariant-without-holds", 'invariant i "I" §1 { check: always }\n', HEADER,
     "E-invariant", "invariant 'i' has no `holds:` condition", 4, 11, None),
    ("invariant-after-unknown-action", 'invariant i "I" §1 { check: after(mvoe) holds: true }\n', HEADER,
     "E-invariant", "invariant 'i' is checked at after(mvoe), but 'mvoe' is not an action", 4, 35, None),
    ("invariant-bad-check", 'invariant i "I" §1 { check: sometimes holds: true }\n', HEADER,
     "E-invariant", "`check:` of invariant 'i' must be always, after(ACTION) or phase_end(PHASE)", 4, 29, None),
    # 10. provisional data
    ("provisional", 'unit inf "Inf" §1 provisional "made up" { attack: 1 }\n', HEADER,
     "W-provisional", "unit inf is provisional: made up", 4, 6, None),
    ("provisional-prop", 'terrain clear "Clear" §1 { move_cost: 1 provisional "guess" }\n', HEADER,
     "W-provisional", "terrain clear.move_cost is provisional: guess", 4, 28, None),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_each_diagnostic(tmp_path, case):
    _id, body, header, code, message, line, column, hint = case
    diags = check_text(tmp_path, body, header)
    assert len(diags.items) == 1, f"expected exactly one diagnostic:\n{rendered(diags)}"
    d = diags.items[0]
    assert (d.code, d.message) == (code, message), rendered(diags)
    assert (d.span.file, d.span.line, d.span.column) == (str(tmp_path / "game.wcx"), line, column), rendered(diags)
    assert d.severity is (Severity.WARNING if code.startswith("W-") else Severity.ERROR)
    if hint is not None:
        assert d.hint == hint


def test_duplicate_phase(tmp_path):
    header = HEADER.replace("phase main §1 { }", "phase main §1 { } phase main §1 { }")
    diags = check_text(tmp_path, "", header)
    [d] = diags.items
    first = f"{tmp_path / 'game.wcx'}:3:21"
    assert (d.code, d.message, d.span.line, d.span.column) == (
        "E-duplicate", f"phase 'main' is declared twice (first at {first})", 3, 39)


# ---------------------------------------------------------------- scoping that must NOT report
def test_scoping_rules_accept_valid_uses(tmp_path):
    body = """
var weather: name = none §1
unit_var moved: bool = false §1
unit inf "Inf" §1 { attack: 2 at steps 1 { attack: 1 } }
result AE "Att elim" §1 { for u in attackers { eliminate(u) } apply t2[1] }
result DR(hexes: int) "Retreat" §1 { for u in defenders { reduce(u, hexes) } }
table crt "CRT" §1 {
  columns odds: 1:1 2:1
  rows roll d6: 1..6
  beyond { above 2:1 use 2:1 §1 }
  row 1..3: AE | DR1
  row 4..6: DR(2) | DR2
}
table t2 "T2" §1 { row 1: DR1 }
procedure fight(attackers: list, target: location) "fight" §1 {
  let defenders = units_at(target)
  step "roll" §1 { let r = roll d6 }
  if r > 3 { let x = r }
  apply crt[odds(1, 1), r + x]
}
on enter(u: unit, h: location) "enter" §1 when u.moved and u.attack > 0 and u.loc == h {
  set u.moved = true
  set weather = none
}
"""
    diags = check_text(tmp_path, body)
    assert not diags.items, rendered(diags)


def test_dynamic_scope_reaches_results_of_nested_apply(tmp_path):
    # AE applies t2, whose result DR needs `defenders`: the outer apply site must define it.
    body = """
result AE "Att elim" §1 { apply t2[1] }
result DR(hexes: int) "Retreat" §1 { for u in defenders { reduce(u, hexes) } }
table crt "CRT" §1 { row 1: AE }
table t2 "T2" §1 { row 1: DR1 }
procedure fight() "fight" §1 { apply crt[1] }
"""
    diags = check_text(tmp_path, body)
    [d] = diags.items
    assert (d.code, d.message, d.span.line) == (
        "E-undefined", "result AE uses 'defenders', which is not defined where the result is applied", 9)


# ---------------------------------------------------------------- map and locations (fixture folder)
def test_map_names_and_locations():
    game, diags = check_path(BAD / "map_names")
    got = [(d.code, d.message, Path(d.span.file).name, d.span.line, d.span.column, d.hint) for d in diags.items]
    assert got == [
        ("E-unknown-location", 'unknown location "0304" (placing a unit)', "game.wcx", 15, 21, "did you mean '0303'?"),
        ("E-undeclared-map-name", "the map uses terrain 'forrest', which the rules do not declare",
         "map.wcmap", 5, 11, "did you mean 'forest'?"),
        ("E-undeclared-map-name", "the map uses location feature 'city', which the rules do not declare",
         "map.wcmap", 6, 11, 'declare it: feature city "Label" §section'),
        ("E-undeclared-map-name", "the map uses edge feature 'river', which the rules do not declare",
         "map.wcmap", 7, 8, 'declare it: edge river "Label" §section'),
    ], rendered(diags)


def test_missing_map_file(tmp_path):
    diags = check_text(tmp_path, "", HEADER.replace('game g "G" §1 { }', 'game g "G" §1 { map: "nope.wcmap" }'))
    [d] = diags.items
    assert (d.code, d.message, d.span.line, d.span.column) == (
        "E-map-read", f"map file not found: {tmp_path / 'nope.wcmap'}", 1, 22)


def test_map_diagnostics_are_forwarded(tmp_path):
    (tmp_path / "m.wcmap").write_text('map "M" rulebook {\n  grid hex flat odd cols 1..2 rows 1..2\n'
                                      '  terrain clear: 0909\n}\n', encoding="utf-8")
    diags = check_text(tmp_path, 'terrain clear "Clear" §1\n',
                       HEADER.replace('game g "G" §1 { }', 'game g "G" §1 { map: "m.wcmap" }'))
    assert [d.code for d in diags.items] == ["E-map-unknown-location"], rendered(diags)
    assert Path(diags.items[0].span.file).name == "m.wcmap"


# ---------------------------------------------------------------- several errors in one pass
def test_many_errors_in_one_pass():
    game, diags = check_path(BAD / "many_errors")
    got = [(Path(d.span.file).name, d.span.line, d.span.column, d.code, d.message) for d in diags.items]
    assert got == [
        ("game.wcx", 6, 37, "E-undefined", "unknown action 'atack'"),
        ("rules.wcx", 3, 8, "W-unused-action", "action 'attack' is never allowed in any phase"),
        ("rules.wcx", 3, 48, "E-type", 'var \'weather\' is int, but is set to the str literal "rain"'),
        ("rules.wcx", 4, 35, "E-unknown-section", "unknown section §3"),
        ("rules.wcx", 4, 54, "E-unknown-tag", "unknown tag 'forrest'"),
        ("rules.wcx", 6, 9, "E-undefined", "unknown name 'wether'"),
        ("rules.wcx", 7, 3, "E-no-citation", "modifier 'm' of quantity 'q' cites no rulebook section"),
    ], rendered(diags)


# ---------------------------------------------------------------- resolve_code
def test_resolve_code(tmp_path):
    (tmp_path / "game.wcx").write_text(HEADER + 'result DR(n: int) "R" §1\nresult DE "E" §1\n'
                                       'result A1 "A one" §1\nresult A(n: int) "A" §1\n', encoding="utf-8")
    game = load_game(tmp_path)
    result, args = resolve_code(game, "DE")
    assert (result.name, args) == ("DE", [])
    result, args = resolve_code(game, "DR2")
    assert result.name == "DR" and [a.value for a in args] == [2]
    result, args = resolve_code(game, ast.Code(name="DR", args=[ast.Num(value=3)]))
    assert result.name == "DR" and [a.value for a in args] == [3]
    assert resolve_code(game, "A1")[0].name == "A1"  # a declared name wins over the split
    assert resolve_code(game, "DE2") is None  # DE takes no parameter
    assert resolve_code(game, "XX") is None
    assert resolve_code(game, ast.Code(name="3", number=3)) is None  # numeric cell


# ---------------------------------------------------------------- check_path never raises
def test_syntax_error_becomes_diagnostics(tmp_path):
    (tmp_path / "game.wcx").write_text('game g "G" §1 {\n  oops oops: \n', encoding="utf-8")
    game, diags = check_path(tmp_path)
    assert game is None
    assert [d.code for d in diags.items] == ["E-syntax"]


def test_missing_game(tmp_path):
    game, diags = check_path(tmp_path / "nothing")
    assert game is None and [d.code for d in diags.items] == ["E-no-game"]


def test_nonsense_input_does_not_raise(tmp_path):
    body = """
table t "T" §1 { columns odds: 1:1 3 rows roll d6: 6..1 row 9..2: X(1, y) | - beyond { from 2 use x §1 } }
scenario s "S" §1 { turns: "x" setup { place() place(1, 2, 3) emit() emit(x) apply 3 } }
invariant i "I" §1 { check holds }
action a "A" §1 { param p: from q(p) where 5 }
procedure p(u: unit) "p" §9 { set u.nope = 1 set u[1] = 2 apply crt }
"""
    diags = check_text(tmp_path, body)
    assert diags.errors
    assert not [d for d in diags.items if d.code == "E-internal"], rendered(diags)


# ---------------------------------------------------------------- the example game
def test_tiny_game_checks_clean():
    game, diags = check_path(ROOT / "games" / "tiny")
    assert game is not None, rendered(diags)
    assert not diags.errors, rendered(diags)
    # its provisional stand-ins are listed, one warning each
    assert {d.code for d in diags.warnings} == {"W-provisional"}
    assert any(d.message == "table crt is provisional: invented grid for the example game" for d in diags.warnings)


def test_check_game_directly_on_tiny():
    game = load_game(ROOT / "games" / "tiny")
    assert not check_game(game).errors


@pytest.mark.parametrize("body, line_no", [
    # a comprehension variable over a function's list of units
    ('unit inf "Inf" §1 { attack: 1 }\n'
     'function attackers(h: location): list "a" §1 = list(v for v in units_at(h) where v.attack > 0)\n'
     'function f(h: location): int "f" §1 = count(u for u in attackers(h) where u.atack > 0)\n', 6),
    # a list parameter that its calls pass units to
    ('unit inf "Inf" §1 { attack: 1 }\n'
     'function total(xs: list): int "t" §1 = sum(x.atack for x in xs)\n'
     'function f(h: location): int "f" §1 = total(units_at(h))\n', 5),
], ids=["comprehension", "list-parameter"])
def test_a_misspelt_unit_property_is_shown_with_a_caret(tmp_path, body, line_no):
    text = rendered(check_text(tmp_path, body))
    line = (HEADER + body).split("\n")[line_no - 1]
    assert f"game.wcx:{line_no}:{line.index('atack') + 1}: error[E-unknown-property]: units have no property 'atack'" in text
    assert f"    {line_no} | {line}\n      | {' ' * line.index('atack')}^^^^^\n" in text
    assert "hint: did you mean 'attack'?" in text


def test_a_list_parameter_passed_lists_of_different_things_is_not_guessed(tmp_path):
    """One call passes units, another locations: the parameter's elements are unknown, and no
    property read on them is reported (the same for a local list set to another kind of list)."""
    body = ('unit inf "Inf" §1 { attack: 1 }\n'
            'terrain clear "Clear" §1 { vp: 1 }\n'
            'function first_vp(xs: list): int "v" §1 = sum(x.vp for x in xs where x.vp != none)\n'
            'function f(h: location): int "f" §1 = first_vp(units_at(h)) + first_vp(adjacent(h))\n'
            'procedure p(h: location) "p" §1 {\n  let xs = units_at(h)\n  set xs = adjacent(h)\n'
            '  for x in xs { log "x" if x.vp > 0 { stop } }\n}\n')
    diags = check_text(tmp_path, body)
    assert not [d for d in diags.errors if d.code == "E-unknown-property"], rendered(diags)


@pytest.mark.parametrize("bundled", ["tiny", "stalingrad42", "no-retreat", "axis-allies-1941", "stargard-solstice"])
def test_the_bundled_games_have_no_unknown_property(bundled):
    """No false positive of the list-element inference on the real games (their rule tests too)."""
    _game, diags = check_path(ROOT / "games" / bundled, tests=True)
    assert not diags.errors, rendered(diags)


@pytest.mark.parametrize("folder", sorted(p.parent for p in (ROOT / "tests" / "data" / "games").glob("*/game.wcx")),
                         ids=lambda p: p.name)
def test_test_game_folders_check_clean(folder):
    """The small games of tests/data/games are loaded as they are (`warcodex check`, `aids`, the
    language server): each checks without errors, its map included."""
    game, diags = check_path(folder)
    assert game is not None and not diags.errors, rendered(diags)


# ---------------------------------------------------------------- string literals used as locations
def _tiny_copy(tmp_path: Path, rules: str = "", tests: str | None = None) -> Path:
    folder = tiny_copy(tmp_path, rules)
    if tests is not None:
        (folder / "tests").mkdir()
        (folder / "tests" / "t.wcx").write_text(tests, encoding="utf-8")
    return folder


def test_a_string_literal_used_as_a_location_must_name_one_of_the_map(tmp_path):
    """`"0110x".terrain` used to stop the game only when the line ran (a located rules error):
    the checker finds it, and every literal the rules use as a location (a map attribute, a
    location variable read or set, a built-in's or a rule's `location` parameter, a `location`
    variable's default or value), with the closest id; the map's own ids and a string that is not
    used as a location (`"0805" in ...`, a label) are no error."""
    folder = _tiny_copy(tmp_path, '''function probe(): bool "probe" §9 = "0110x".terrain is forest or "0805".controller == soviet
  or count(adjacent("1205x")) > 0 or near("0909", "0808y") or "0805x" in ["a"]
function near(a: location, b: location): bool "near" §9 = distance(a, b) <= 1
on turn_start "probe" §9 { set "0805y".controller = soviet
  set target = "0707q" }
var target: location = "0909z" §9
''')
    _, diags = check_path(folder)
    got = [(d.code, d.message, d.span.line, d.span.column, d.hint) for d in diags.errors]
    assert got == [
        ("E-unknown-location", 'unknown location "0110x" (reading its \'terrain\')', 1, 37, "did you mean '0110'?"),
        ("E-unknown-location", 'unknown location "1205x" (the `h` of adjacent())', 2, 21, "did you mean '1205'?"),
        ("E-unknown-location", 'unknown location "0808y" (the `b` of near())', 2, 51, "did you mean '0808'?"),
        ("E-unknown-location", 'unknown location "0805y" (setting its \'controller\')', 4, 32, "did you mean '0805'?"),
        ("E-unknown-location", 'unknown location "0707q" (the value of var \'target\')', 5, 16, "did you mean '0707'?"),
        ("E-unknown-location", 'unknown location "0909z" (the default of var \'target\')', 6, 24, "did you mean '0909'?"),
    ], rendered(diags)


def test_in_rule_tests_a_location_a_partial_board_leaves_out_is_no_error_but_a_typo_is(tmp_path):
    """A test board is often a fragment of the game's map: a test may read the location variables
    of hexes it leaves out (they read their defaults: Stargard's tests total VP hexes their
    fragment does not hold), and a test-only helper may name the hexes of any test board. Reading
    a map attribute of a hex the board leaves out is a warning (the line stops the test if it
    runs); a string that is a location of no board at all is an error, with the closest id.
    `warcodex check` prints both, located with a caret."""
    from click.testing import CliRunner

    from warcodex.cli import cli

    folder = _tiny_copy(tmp_path, tests='''map strip "a 4 x 4 strip" {
  grid hex flat odd cols 1..4 rows 1..4 ids CCRR
  default terrain clear
}
map far "two hexes" {
  grid hex flat odd cols 20..21 rows 1..1 ids CCRR
  default terrain clear
}
function strip_corner(): location "a corner of the strip" §9 = loc("0101")
function far_hex(): bool "a hex of the other board" §9 = "2001".terrain is clear or "2001q".terrain is clear
test reads "locations off the strip" §9 {
  map strip
  expect "0805".controller == none
  set "0805".controller = axis
  expect "0805".terrain is town
  expect "2101".terrain is clear
  expect "0805q".controller == none
}
''')
    _, diags = check_path(folder, tests=True)
    got = [(d.code, d.message, d.span.line, d.span.column, d.hint) for d in diags.items if d.code != "W-provisional"]
    off = "this board has no terrain or map attribute for it (reading one stops the test) and no unit can stand there: " \
          "add it to the test's board, or name a location of the board"
    assert got == [
        ("E-unknown-location", 'unknown location "2001q" (reading its \'terrain\')', 10, 85, "did you mean '2001'?"),
        ("W-location-off-board", 'location "0805" (reading its \'terrain\') is not on this test\'s board, only on the '
         "game's map", 15, 10, off),
        ("W-location-off-board", 'location "2101" (reading its \'terrain\') is not on this test\'s board, only on '
         "another test board", 16, 10, off),
        ("E-unknown-location", 'unknown location "0805q" (reading its \'controller\')', 17, 10, "did you mean '0805'?"),
    ], rendered(diags)
    result = CliRunner().invoke(cli, ["check", str(folder)])
    assert result.exit_code == 1
    assert 't.wcx:17:10: error[E-unknown-location]: unknown location "0805q"' in result.output
    assert '   17 |   expect "0805q".controller == none\n      |          ^^^^^^^\n  hint: did you mean \'0805\'?' in result.output
    assert "t.wcx:15:10: warning[W-location-off-board]" in result.output


def test_a_counter_face_prints_values_the_unit_type_has(tmp_path):
    """`face:` (what a unit type's counters print, on the type or a class) names values in braces:
    a name one of its types lacks, a format the language does not have, or a face that is not a
    text are located errors, with the closest value; `{{` prints a brace."""
    folder = _tiny_copy(tmp_path, '''unit hq "HQ" §2.1 { side: soviet move: 8 command_range: 10 face: "{comand_range}-{move}" }
unit hq2 "HQ 2" §2.1 { side: soviet move: 8 command_range: 10 face: "{command_range:>3}{{{move}}}" }
unit hq3 "HQ 3" §2.1 { side: soviet move: 8 face: 8 }
class staff "Staff" §2.1 { face: "[{range}]" }
unit hq4 "HQ 4" : staff §2.1 { side: soviet move: 8 range: 4 }
unit hq5 "HQ 5" : staff §2.1 { side: soviet move: 8 ranges: 4 }
unit hq6 "HQ 6" : staff §2.1 { side: soviet move: 8 face: "{move}" }
''')
    _, diags = check_path(folder)
    got = [(d.code, d.message, d.span.line, d.span.column, d.hint) for d in diags.errors]
    assert got == [
        ("E-face", "`face:` of unit 'hq' prints 'comand_range', which unit type 'hq' does not have", 1, 67,
         "did you mean 'command_range'?"),
        ("E-face", "`face:` of unit 'hq2': '{command_range:>3}' is not a value's name", 2, 70,
         "write a value of the unit type in braces, as it is: {move}"),
        ("E-face", "`face:` of unit 'hq3' must be a text in quotes naming values in braces", 3, 51,
         'face: "{command_range}-{move}" prints an HQ counter\'s range and movement'),
        ("E-face", "`face:` of class 'staff' prints 'range', which unit type 'hq5' does not have", 4, 36,
         "did you mean 'ranges'?"),
    ], rendered(diags)


def test_every_literal_the_rules_use_as_a_location_is_checked_the_same_way(tmp_path):
    """Besides a string's map attribute and a `location` parameter or variable, a string literal is
    a location wherever the rules use it as one: an element of a list of locations (one a
    location is looked for in, a built-in's `targets`, a list whose loop variable is used as a
    location, from a function's body or a global list's default), a value compared with a
    location or looked for in a list of locations, a local used as a location, and a table key
    looked up by location. Each is the same located error with the closest id; the map's own ids
    and strings that are no location (`"a" in ["a"]`, a table looked up by name) are not."""
    folder = _tiny_copy(tmp_path, '''function vp_hexes(): list "VP hexes" §9 = ["0110", "0110x"]
var goals: list = ["0805", "0808q"] §9
table held "Held hexes" §9 {
  columns: vp
  rows: "0110" "0109z"
  row "0110": 1
  row "0109z": 2
}
function probe(h: location, u: unit): bool "probe" §9 = h in ["0909", "0909x"] or "1205x" in adjacent(h)
  or h == "0707q" or "0606q" != u.loc or contains(adjacent(h), "0505q") or traceable(ground, h, ["0404q"], soviet)
  or "a" in ["a"] or held["vp", "0110"] == 1
function vp_total(): int "VP" §9 = sum(number(held["vp", h]) for h in vp_hexes() where h.controller == soviet)
procedure claim() "claim" §9 {
  for g in goals { set g.controller = axis }
  let spot = "0303q"
  for n in adjacent(spot) { set n.controller = axis }
  choose t from ["0202", "0202q"] by soviet
  set t.controller = soviet
}
''')
    _, diags = check_path(folder)
    got = [(d.code, d.message, d.span.line, d.span.column, d.hint) for d in diags.errors]
    each = "in a list whose elements, '{}', are used as locations"
    assert got == [
        ("E-unknown-location", f'unknown location "0110x" ({each.format("h")})', 1, 52, "did you mean '0110'?"),
        ("E-unknown-location", f'unknown location "0808q" ({each.format("g")})', 2, 28, "did you mean '0808'?"),
        ("E-unknown-location", 'unknown location "0109z" (a row of table \'held\', looked up by location)', 5, 16,
         "did you mean '0109'?"),
        ("E-unknown-location", 'unknown location "0109z" (a row of table \'held\', looked up by location)', 7, 7,
         "did you mean '0109'?"),
        ("E-unknown-location", 'unknown location "0909x" (in a list a location is looked for in)', 9, 71,
         "did you mean '0909'?"),
        ("E-unknown-location", 'unknown location "1205x" (looked for in a list of locations)', 9, 83,
         "did you mean '1205'?"),
        ("E-unknown-location", 'unknown location "0707q" (compared with a location)', 10, 11, "did you mean '0707'?"),
        ("E-unknown-location", 'unknown location "0606q" (compared with a location)', 10, 22, "did you mean '0606'?"),
        ("E-unknown-location", 'unknown location "0505q" (looked for in a list of locations)', 10, 64,
         "did you mean '0505'?"),
        ("E-unknown-location", 'unknown location "0404q" (in the `targets` of traceable())', 10, 98,
         "did you mean '0404'?"),
        ("E-unknown-location", "unknown location \"0303q\" (the value of 'spot', used as a location)", 15, 14,
         "did you mean '0303'?"),
        ("E-unknown-location", f'unknown location "0202q" ({each.format("t")})', 17, 26, "did you mean '0202'?"),
    ], rendered(diags)
    lines = (folder / "extra.wcx").read_text(encoding="utf-8").splitlines()
    for d in diags.errors:  # the caret is under the literal, quotes included
        assert d.span.end_line == d.span.line, d.render()
        assert lines[d.span.line - 1][d.span.column - 1:d.span.end_column - 1] == d.message.split(" ")[2], d.render()


def test_a_rule_test_using_a_list_of_the_rules_checks_its_hexes_on_the_games_map(tmp_path):
    """A rule test that walks a list the rules declare (`for h in vp_hexes()`) uses the rules'
    literals: they are locations of the game's map, not of the test's partial board (no warning
    for them there), a typo among them is reported once, at the rules' line. The test's own
    literals are the test board's: a hex the board leaves out is fine when only its location
    variables are read (`h.controller`, as for `"0909".controller`), a warning when it is used
    on the board (`adjacent(h)` would stop the test)."""
    folder = _tiny_copy(tmp_path, '''function vp_hexes(): list "VP hexes" §9 = ["0805", "0808q"]
''', tests='''map strip "a 4 x 4 strip" {
  grid hex flat odd cols 1..4 rows 1..4 ids CCRR
  default terrain clear
}
test held "no VP hex is held at the start" §9 {
  map strip
  expect count(h for h in vp_hexes() where h.controller != none) == 0
  expect count(h for h in ["0101", "0909"] where h.controller != none) == 0
  expect count(h for h in ["0101", "0909"] where count(adjacent(h)) > 0) == 2
}
''')
    _, diags = check_path(folder, tests=True)
    got = [(d.code, d.message, d.span.file.rsplit("/", 1)[-1], d.span.line, d.span.column) for d in diags.items
           if d.code != "W-provisional"]
    each = "in a list whose elements, 'h', are used as locations"
    assert got == [
        ("E-unknown-location", f'unknown location "0808q" ({each})', "extra.wcx", 1, 52),
        ("W-location-off-board", f'location "0909" ({each}) is not on this test\'s board, only on the game\'s map',
         "t.wcx", 9, 36),
    ], rendered(diags)


def test_a_unit_placed_or_standing_off_a_tests_board_is_an_error_on_the_same_path(tmp_path):
    """`place(...)`, a test's `unit ... at` and `loc()` go through the same check as every other
    location literal, with what they do in the message: on a test's partial board a hex it leaves
    out is an error for them (no unit can stand there, `loc()` finds nothing), not a warning, and a
    typo has the closest id of any board."""
    folder = _tiny_copy(tmp_path, tests='''map strip "a 4 x 4 strip" {
  grid hex flat odd cols 1..4 rows 1..4 ids CCRR
  default terrain clear
}
test off "units off the strip" §9 {
  map strip
  unit a: rifle soviet at "0805"
  unit b: rifle soviet at "0101"
  place(rifle, soviet, "0102q")
  expect loc("0805") != none
}
''')
    _, diags = check_path(folder, tests=True)
    got = [(d.code, d.message, d.span.line, d.span.column, d.hint) for d in diags.items if d.code != "W-provisional"]
    off = "this board has no terrain or map attribute for it (reading one stops the test) and no unit can stand there: " \
          "add it to the test's board, or name a location of the board"
    assert got == [
        ("E-unknown-location", 'location "0805" (where unit \'a\' stands) is not on this test\'s board, only on the '
         "game's map", 7, 27, off),
        ("E-unknown-location", 'unknown location "0102q" (placing a unit)', 9, 24, "did you mean '0102'?"),
        ("E-unknown-location", 'location "0805" (the `id` of loc()) is not on this test\'s board, only on the '
         "game's map", 10, 14, off),
    ], rendered(diags)


def test_a_list_a_rule_uses_as_locations_is_a_list_of_locations_where_it_is_called(tmp_path):
    """A rule's `list` parameter that its body uses as a list of locations (a loop whose variable
    is used as one, a location parameter looked for in it, passed on to a built-in's or another
    rule's list of locations) makes the literals a call passes there locations; a list parameter
    used otherwise does not."""
    folder = _tiny_copy(tmp_path, '''function held(hexes: list): int "held" §9 = count(h for h in hexes where h.controller == soviet)
function among(h: location, hexes: list): bool "among" §9 = h in hexes
function passed_on(hexes: list): int "passed on" §9 = held(hexes)
function traced(h: location, hexes: list): bool "traced" §9 = traceable(ground, h, hexes, soviet)
function labels(names: list): int "labels" §9 = count(n for n in names where n != "x")
function probe(h: location): bool "probe" §9 = held(["0101", "0101q"]) > 0 or among(h, ["0202q"])
  or passed_on(["0303q"]) > 0 or traced(h, ["0404q"]) or labels(["0505q"]) > 0
''')
    _, diags = check_path(folder)
    got = [(d.code, d.message, d.span.line, d.span.column, d.hint) for d in diags.errors]
    assert got == [
        ("E-unknown-location", 'unknown location "0101q" (in the `hexes` of held())', 6, 62, "did you mean '0101'?"),
        ("E-unknown-location", 'unknown location "0202q" (in the `hexes` of among())', 6, 89, "did you mean '0202'?"),
        ("E-unknown-location", 'unknown location "0303q" (in the `hexes` of passed_on())', 7, 17,
         "did you mean '0303'?"),
        ("E-unknown-location", 'unknown location "0404q" (in the `hexes` of traced())', 7, 45, "did you mean '0404'?"),
    ], rendered(diags)
    lines = (folder / "extra.wcx").read_text(encoding="utf-8").splitlines()
    for d in diags.errors:  # the caret is under the literal, quotes included
        assert lines[d.span.line - 1][d.span.column - 1:d.span.end_column - 1] == d.message.split(" ")[2], d.render()


def test_a_value_set_to_a_local_used_as_a_location_is_checked_like_a_lets(tmp_path):
    """`set spot = "0303q"` of a local the rules then use as a location is a location literal as
    `let spot = "0303q"` is: after `let spot = none`, after a first value, in a branch, in a loop
    whose next pass uses it, of a `location` parameter, and a list local set again whose loop
    variable is used as a location. A local the rules used as a location before and that is set
    to a label used as none afterwards is no error (s6)."""
    folder = _tiny_copy(tmp_path, '''procedure s1() "after none" §9 {
  let spot = none
  set spot = "0303q"
  for n in adjacent(spot) { set n.controller = axis }
}
procedure s2() "after a first value" §9 {
  let spot = "0303"
  set spot = "0304q"
  set spot.controller = axis
}
procedure s3() "in a branch" §9 {
  let spot = none
  if turn > 1 { set spot = "0305q" }
  if spot != none { for n in adjacent(spot) { set n.controller = axis } }
}
procedure s4() "in a loop, used by the next pass" §9 {
  let h = "0101"
  for u in units_of(axis) { if h != none { set h.controller = axis } set h = "0307q" }
}
procedure s5(h: location) "of a location parameter" §9 {
  set h = "0308q"
}
procedure s6() "a label afterwards" §9 {
  let h = "0101"
  set h.controller = axis
  set h = "not a hex"
  log "{h}"
}
procedure s7() "a list set again" §9 {
  let hexes = ["0101"]
  set hexes = ["0102", "0309q"]
  for h in hexes { set h.controller = axis }
}
''')
    _, diags = check_path(folder)
    got = [(d.code, d.message, d.span.line, d.span.column, d.hint) for d in diags.errors]
    assert got == [
        ("E-unknown-location", "unknown location \"0303q\" (the value set to 'spot', used as a location)", 3, 14,
         "did you mean '0303'?"),
        ("E-unknown-location", "unknown location \"0304q\" (the value set to 'spot', used as a location)", 8, 14,
         "did you mean '0304'?"),
        ("E-unknown-location", "unknown location \"0305q\" (the value set to 'spot', used as a location)", 13, 28,
         "did you mean '0305'?"),
        ("E-unknown-location", "unknown location \"0307q\" (the value set to 'h', used as a location)", 18, 78,
         "did you mean '0307'?"),
        ("E-unknown-location", "unknown location \"0308q\" (the value set to 'h', a location parameter)", 21, 11,
         "did you mean '0308'?"),
        ("E-unknown-location", "unknown location \"0309q\" (in a list whose elements, 'h', are used as locations)", 31, 24,
         "did you mean '0309'?"),
    ], rendered(diags)
    lines = (folder / "extra.wcx").read_text(encoding="utf-8").splitlines()
    for d in diags.errors:  # the caret is under the literal, quotes included
        assert lines[d.span.line - 1][d.span.column - 1:d.span.end_column - 1] == d.message.split(" ")[2], d.render()


def test_a_local_shadowed_by_an_inner_loop_variable_is_told_apart_from_it(tmp_path):
    """A name an inner loop, comprehension or `choose` binds again is another local inside it:
    its uses there are not uses of the outer one (u1: the outer is a label, the inner loop's
    variable the location), and the outer keeps what it holds (u2: a list local whose name a
    comprehension reuses is still checked when a later loop uses its elements as locations; u3:
    the outer local used as a location after the comprehension)."""
    folder = _tiny_copy(tmp_path, '''procedure u1() "the outer is a label" §9 {
  let h = "Moscow front"
  log "{h}"
  for u in units_of(axis) { for h in adjacent(u.loc) { set h.controller = axis } }
  let n = count(h for h in adjacent("0101") where h.controller == axis)
}
procedure u2() "a list local whose name a comprehension reuses" §9 {
  let hexes = ["0101", "0310q"]
  let n = count(hexes for hexes in [1, 2])
  for h in hexes { set h.controller = axis }
}
procedure u3() "the outer used after a comprehension reusing its name" §9 {
  let h = "0401q"
  let n = count(h for h in [1, 2] where h > 1)
  set h.controller = axis
}
''')
    _, diags = check_path(folder)
    got = [(d.code, d.message, d.span.line, d.span.column, d.hint) for d in diags.errors]
    assert got == [
        ("E-unknown-location", "unknown location \"0310q\" (in a list whose elements, 'h', are used as locations)", 8, 24,
         "did you mean '0310'?"),
        ("E-unknown-location", "unknown location \"0401q\" (the value of 'h', used as a location)", 13, 11,
         "did you mean '0401'?"),
    ], rendered(diags)


def test_what_a_function_declared_location_returns_is_a_location(tmp_path):
    """`function capital(...): location = if ... then "0310q" else "0101"`: a literal the function
    returns is checked like a `location` variable's value (either branch of `if`); a function of
    another type returning a string is not."""
    folder = _tiny_copy(tmp_path, '''function capital(x: int): location "capital" §9 = if x > 1 then "0310q" else "0101"
function label(x: int): str "label" §9 = if x > 1 then "0310q" else "0101"
''')
    _, diags = check_path(folder)
    got = [(d.code, d.message, d.span.line, d.span.column, d.hint) for d in diags.errors]
    assert got == [("E-unknown-location", "unknown location \"0310q\" (the value of function 'capital', a location)", 1, 65,
                    "did you mean '0310'?")], rendered(diags)


def test_a_loop_variable_compared_with_a_location_or_looked_for_among_locations_is_one(tmp_path):
    """`for h in ["0310q"] { if h == u.loc ... }`: a loop variable (or a local) compared with a
    location, or looked for in a list of locations, is used as one, so its list's literals are
    checked; one compared with a string only (`m == "a"`) is not."""
    folder = _tiny_copy(tmp_path, '''procedure compared(u: unit) "compared" §9 {
  for h in ["0310q"] { if h == u.loc { log "x" } }
  for g in ["0309q"] { if g in adjacent("0101") { log "y" } }
  for k in ["0308q"] { if first(units_of(axis)).loc != k { log "z" } }
  for m in ["a", "b"] { if m == "a" { log "w" } }
}
''')
    _, diags = check_path(folder)
    got = [(d.code, d.message, d.span.line, d.span.column, d.hint) for d in diags.errors]
    each = "in a list whose elements, '{}', are used as locations"
    assert got == [
        ("E-unknown-location", f'unknown location "0310q" ({each.format("h")})', 2, 13, "did you mean '0310'?"),
        ("E-unknown-location", f'unknown location "0309q" ({each.format("g")})', 3, 13, "did you mean '0309'?"),
        ("E-unknown-location", f'unknown location "0308q" ({each.format("k")})', 4, 13, "did you mean '0308'?"),
    ], rendered(diags)
