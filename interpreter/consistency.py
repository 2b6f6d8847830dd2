"""What a save or a log may say, given the rules it claims to come from.

`saves.py` checks the shape of a record (JSON types, required keys); this module checks its
meaning against the rules at hand, so that a file is used only if the engine could have written
it: every unit type, side, phase, marker, box, variable, deck, card, scenario and option is
declared; every variable holds a value of its declared type; unit ids are unique and below the
next id; a unit is on the map, in a box, or neither, never both; steps are within the unit's
range; the position in the turn sequence exists. Each finding is a `SaveError` naming the file
and the field (`units[3].steps: 5 is more than the unit's 3 steps`).

A new PLAIN field of the state gets its check here: a function `check_<field>(rules, value)` in
`PLAIN_CHECKS` (`test_every_plain_state_field_is_checked` names a field that has none).
"""

from __future__ import annotations

from fractions import Fraction

from warcodex.dsl import ast
from warcodex.interpreter.saves import SaveError
from warcodex.interpreter.state import plain_fields


class Rules:
    """The names and bounds a record is checked against, read once from an engine."""

    def __init__(self, engine) -> None:
        self.engine = engine
        game = engine.game
        kinds: dict[str, set[str]] = {}
        for name, ent in engine.entities.items():
            kinds.setdefault(ent.kind, set()).add(name)
        self.kinds = kinds
        self.sides = kinds.get("side", set())
        # a game is won by a side or an alliance (`win(allies, ...)`, language.md section 25)
        self.winners = self.sides | kinds.get("alliance", set())
        self.unit_types = {u.name: u for u in game.units}
        self.markers = kinds.get("marker", set())
        self.options = kinds.get("option", set())
        self.decks = {d.name: [c.name for c in d.cards] for d in game.of_kind(ast.Deck)}
        # each deck's piles: the built-in ones and those it declares (`piles: [...]`, a cup of chits)
        self.deck_piles = {d.name: tuple(d.piles()) for d in game.of_kind(ast.Deck)}
        self.cards = {c for cards in self.decks.values() for c in cards}
        self.vars = {scope: {n: d for n, d in engine.vars.items() if d.scope == scope}
                     for scope in ("var", "side_var", "unit_var", "location_var")}
        self.phases = set(engine.phase_names())
        self.scenarios = game.scenarios
        self.board = engine.board
        self.actions = {name: [p.name for p in a.decl.params] for name, a in engine.actions.items()}
        self._setup_boxes: set[str] | None = None
        self.boxes = {"eliminated"} | set(getattr(engine.board, "boxes", ())) | _string_literals(game)

    def setup_boxes(self, data) -> set[str]:
        """The boxes the saved game's set-up fills. A rule may compute a box's name (Stargard
        Solstice's `"turn_" + text(n)` player-sheet boxes), so the rules' literals do not name
        every box; the set-up is only run when a box is not found among them."""
        if self._setup_boxes is None:
            try:
                state = self.engine.new_game(data.scenario, seed=data.seed, options=dict(data.options))
                self._setup_boxes = {u.box for u in state.units.values() if u.box is not None}
            except Exception:  # a save the rules cannot set up: the box stays unknown, reported as such
                self._setup_boxes = set()
        return self._setup_boxes

    def on_map(self, loc) -> bool:
        return isinstance(loc, str) and loc in self.board.index

    def turns(self, scenario: str) -> tuple[int, int]:
        sc = self.scenarios[scenario]
        first = self.engine.scenario_prop(sc, "first_turn", 1)
        last = self.engine.scenario_prop(sc, "last_turn", first)
        return int(first), int(last)


def _string_literals(game) -> set[str]:
    """Every string written in the rules: the names a rule can give a holding box."""
    found: set[str] = set()

    def walk(node) -> None:
        stack = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, ast.Str):
                found.add(n.value)
            elif isinstance(n, ast.Node):
                stack.extend(getattr(n, f) for f in type(n).model_fields if f != "span")
            elif isinstance(n, (list, tuple)):
                stack.extend(n)
            elif isinstance(n, dict):
                stack.extend(n.values())

    for decl in list(game.decls) + list(game.scenarios.values()) + list(game.triggers):
        walk(decl)
    return found


# ------------------------------------------------------------------ values
def value_problem(rules: Rules, declared: str, value, unit_ids) -> str | None:
    """Why a saved JSON value cannot be a value of the declared type, or None if it can."""
    if value is None:
        return None  # every variable may be none
    if declared == "int":
        return None if type(value) is int else "is not a whole number"
    if declared == "num":
        if type(value) is int or _fraction(value) is not None:
            return None
        return "is not a number"
    if declared == "bool":
        return None if type(value) is bool else "is not true or false"
    if declared == "str":
        return None if type(value) is str else "is not a string"
    if declared == "location":
        return None if rules.on_map(value) else "is not on the map"
    if declared == "side":
        return None if _name(value) in rules.sides else "is not a side"
    if declared == "unit":
        return None if _unit(value) in unit_ids else "is not a unit of this game"
    if declared == "odds":
        return None if isinstance(value, dict) and set(value) == {"odds"} and type(value["odds"]) is int else "is not odds"
    if declared == "name":
        if type(value) is str and value in rules.phases:
            return None
        return None if _name(value) in rules.engine.entities else "is not a declared name"
    if declared == "list":
        if not isinstance(value, list):
            return "is not a list"
        return next((p for p in (value_problem(rules, "any", v, unit_ids) for v in value) if p), None)
    return any_value_problem(rules, value, unit_ids)


def any_value_problem(rules: Rules, value, unit_ids) -> str | None:
    """Why a JSON value is no value the engine writes (`Engine.to_json`), or None."""
    stack = [value]
    while stack:
        v = stack.pop()
        if v is None or type(v) in (bool, int, str):
            continue
        if isinstance(v, list):
            stack.extend(v)
            continue
        if not isinstance(v, dict) or len(v) not in (1, 2):
            return f"holds {_short(v)}, which is no value of the rules"
        if "unit" in v:
            if _unit(v) is None or _unit(v) not in unit_ids:
                return f"names unit {_short(v['unit'])}, which is not in the game"
        elif "name" in v:
            if _name(v) not in rules.engine.entities:
                return f"names '{_short(v['name'])}', which the rules do not declare"
        elif "odds" in v:
            if type(v["odds"]) is not int:
                return "holds odds that are not a whole number"
        elif "frac" in v:
            if _fraction(v) is None:
                return f"holds {_short(v['frac'])}, which is not a fraction"
        elif "set" in v:
            if not (isinstance(v["set"], list) and all(type(x) is str for x in v["set"])):
                return "holds a set that is not a list of names"
        else:
            return f"holds {_short(v)}, which is no value of the rules"
    return None


def _name(value) -> str | None:
    name = value.get("name") if isinstance(value, dict) and len(value) == 1 else None
    return name if type(name) is str else None


def _unit(value) -> int | None:
    uid = value.get("unit") if isinstance(value, dict) and len(value) == 1 else None
    return uid if type(uid) is int else None


def _fraction(value):
    if not (isinstance(value, dict) and set(value) == {"frac"} and type(value["frac"]) is str and len(value["frac"]) < 100):
        return None
    try:
        return Fraction(value["frac"])
    except (ValueError, ZeroDivisionError):
        return None


def _short(value) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# ------------------------------------------------------------------ states
class _Findings:
    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, field: str, message: str) -> None:
        raise SaveError(f"{self.where}: {field}: {message}")


def check_state(rules: Rules, data, where: str) -> None:
    """Raise SaveError at the first field of the saved state the rules make impossible."""
    f = _Findings(where)
    if data.scenario not in rules.scenarios:
        f.fail("state.scenario", f"no scenario '{_short(data.scenario)}' in these rules")
    unit_ids = _check_units(rules, data, f)
    _check_variables(rules, data, unit_ids, f)
    for loc, markers in data.loc_markers.items():
        if not rules.on_map(loc):
            f.fail("state.loc_markers", f"'{_short(loc)}' is not on the map")
        for m in markers:
            if m not in rules.markers:
                f.fail(f"state.loc_markers[{loc}]", f"'{_short(m)}' is not a declared marker")
    for name, value in data.options.items():
        if name not in rules.options:
            f.fail("state.options", f"'{_short(name)}' is not an option of these rules")
    if data.active is not None and data.active not in rules.sides:
        f.fail("state.active", f"'{_short(data.active)}' is not a side")
    if data.winner is not None and data.winner not in rules.winners:
        f.fail("state.winner", f"'{_short(data.winner)}' is not a side or an alliance")
    if data.phase is not None and data.phase not in rules.phases:
        f.fail("state.phase", f"'{_short(data.phase)}' is not a phase of the sequence")
    if not data.turn_order:
        f.fail("state.turn_order", "no side plays")
    for side in data.turn_order:
        if side not in rules.sides:
            f.fail("state.turn_order", f"'{_short(side)}' is not a side")
    if len(set(data.turn_order)) != len(data.turn_order):
        f.fail("state.turn_order", "a side is listed twice")
    if data.ended and not data.over:
        f.fail("state.ended", "the game ended but is not over")
    _check_position(rules, data, f)
    for loc, ids in data.stacks.items():  # a stack's order names exactly the units there
        here = sorted(u.id for u in data.units if u.loc == loc)
        if sorted(ids) != here:
            f.fail(f"state.stacks[{_short(loc)}]", f"lists units {sorted(ids)}, but the units at {_short(loc)} are {here}")
    for field in plain_fields():
        check = PLAIN_CHECKS.get(field.name)
        if check is not None:
            check(rules, getattr(data, field.name), f)


def _check_units(rules: Rules, data, f: _Findings) -> set[int]:
    ids: set[int] = set()
    for i, u in enumerate(data.units):
        at = f"state.units[{i}] (unit {u.id})"
        if u.id in ids:
            f.fail(at, f"unit id {u.id} is used twice")
        ids.add(u.id)
        if u.id >= data.next_unit_id:
            f.fail(at, f"unit id {u.id} is not below next_unit_id {data.next_unit_id}")
        decl = rules.unit_types.get(u.type)
        if decl is None:
            f.fail(at, f"'{_short(u.type)}' is not a unit type of these rules")
        if u.side not in rules.sides:
            f.fail(at, f"'{_short(u.side)}' is not a side")
        steps = int(rules.engine.entities[u.type].props.get("steps", 1))
        if u.max_steps != steps:
            f.fail(at, f"max_steps {u.max_steps}, but a {u.type} has {steps} step(s)")
        if u.steps > u.max_steps:
            f.fail(at, f"{u.steps} steps, more than the unit's {u.max_steps}")
        if u.steps == 0 and u.box != "eliminated":
            f.fail(at, "no steps left, but the unit is not eliminated")
        if u.loc is not None and not rules.on_map(u.loc):
            f.fail(at, f"'{_short(u.loc)}' is not on the map")
        if u.loc is not None and u.box is not None:
            f.fail(at, f"the unit is both on the map ({u.loc}) and in the box '{_short(u.box)}'")
        if u.box is not None and u.box not in rules.boxes and u.box not in rules.setup_boxes(data):
            f.fail(at, f"'{_short(u.box)}' is not a box the rules or the map name")
        for m in u.markers:
            if m not in rules.markers:
                f.fail(at, f"'{_short(m)}' is not a declared marker")
    for i, u in enumerate(data.units):
        for name, value in u.vars.items():
            _var(rules, "unit_var", name, value, ids, f, f"state.units[{i}].vars")
    return ids


def _var(rules: Rules, scope: str, name: str, value, unit_ids, f: _Findings, at: str) -> None:
    decl = rules.vars[scope].get(name)
    if decl is None:
        f.fail(at, f"'{_short(name)}' is not a {scope} of these rules")
    problem = value_problem(rules, decl.type, value, unit_ids)
    if problem:
        f.fail(f"{at}.{name}", f"{_short(value)} {problem} (the variable is {decl.type})")


def _check_variables(rules: Rules, data, unit_ids, f: _Findings) -> None:
    for name, value in data.vars.items():
        _var(rules, "var", name, value, unit_ids, f, "state.vars")
    for side, values in data.side_vars.items():
        if side not in rules.sides:
            f.fail("state.side_vars", f"'{_short(side)}' is not a side")
        for name, value in values.items():
            _var(rules, "side_var", name, value, unit_ids, f, f"state.side_vars[{side}]")
    for loc, values in data.loc_vars.items():
        if not rules.on_map(loc):
            f.fail("state.loc_vars", f"'{_short(loc)}' is not on the map")
        for name, value in values.items():
            _var(rules, "location_var", name, value, unit_ids, f, f"state.loc_vars[{loc}]")


def _check_position(rules: Rules, data, f: _Findings) -> None:
    from warcodex.interpreter.context import Context
    from warcodex.interpreter.sequence import ALLOW_SAFETY_LIMIT
    from warcodex.interpreter.values import RuleError

    first, last = rules.turns(data.scenario)
    pos = data.position
    if not first <= pos.turn <= last + 1:
        f.fail("state.position.turn", f"turn {pos.turn} is outside the scenario's turns {first}..{last}")
    if pos.in_allow > ALLOW_SAFETY_LIMIT:
        f.fail("state.position.in_allow", f"{pos.in_allow} actions in one step, more than the engine allows")
    # the side playing each `player_turn EXPR` block of this turn, by the block's operation index
    for op, side in pos.sides.items():
        if not op.isdigit():
            f.fail("state.position.sides", f"{op!r} is not an operation index")
        if side not in rules.sides:
            f.fail(f"state.position.sides.{op}", f"{side!r} is not a side")
    if pos.op == 0:
        return
    # the turn's program of operations, as the engine builds it with this turn order
    from warcodex.interpreter.state import GameState

    probe = GameState(scenario=data.scenario, seed=0, turn_order=tuple(data.turn_order))
    probe.position.turn = pos.turn
    try:
        length = len(rules.engine.sequence.program(Context(rules.engine, probe)))
    except (RuleError, KeyError):
        f.fail("state.turn_order", "the turn sequence cannot be built with this turn order")
    if pos.op > length:
        f.fail("state.position.op", f"operation {pos.op} of a turn of {length} operations")


# -- PLAIN fields: one check each
def check_decks(rules: Rules, decks: dict, f: _Findings) -> None:
    for deck, piles in decks.items():
        if deck not in rules.decks:
            f.fail("state.decks", f"'{_short(deck)}' is not a declared deck")
        allowed = rules.deck_piles[deck]
        if not {"draw", "discard"} <= set(piles) <= set(allowed):
            f.fail(f"state.decks[{deck}]", f"deck {deck} has the piles 'draw', 'discard' and at most {', '.join(allowed[2:])}")
        for pile, cards in piles.items():
            for card in cards:
                if card not in rules.decks[deck]:
                    f.fail(f"state.decks[{deck}].{pile}", f"'{_short(card)}' is not a card of this deck")


def check_hands(rules: Rules, hands: dict, f: _Findings) -> None:
    for side, cards in hands.items():
        if side not in rules.sides:
            f.fail("state.hands", f"'{_short(side)}' is not a side")
        for card in cards:
            if card not in rules.cards:
                f.fail(f"state.hands[{side}]", f"'{_short(card)}' is not a declared card")


def check_card_uses(rules: Rules, uses: list, f: _Findings) -> None:
    """The current player turn's card uses (cards.py): declared cards and sides."""
    for i, use in enumerate(uses):
        if not isinstance(use, dict):
            f.fail(f"state.card_uses[{i}]", "a card use is an object")
        card, side = use.get("card"), use.get("side")
        if card is not None and card not in rules.cards:
            f.fail(f"state.card_uses[{i}]", f"'{_short(card)}' is not a declared card")
        if side is not None and side not in rules.sides:
            f.fail(f"state.card_uses[{i}]", f"'{_short(side)}' is not a side")


PLAIN_CHECKS = {"decks": check_decks, "hands": check_hands, "card_uses": check_card_uses}


def _check_cards(rules: Rules, data, f: _Findings) -> None:
    """No card is in more places than the decks hold copies of it."""
    copies: dict[str, int] = {}
    for cards in rules.decks.values():
        for c in cards:
            copies[c] = copies.get(c, 0) + 1
    seen: dict[str, int] = {}
    for piles in data.decks.values():
        for cards in piles.values():
            for c in cards:
                seen[c] = seen.get(c, 0) + 1
    for cards in data.hands.values():
        for c in cards:
            seen[c] = seen.get(c, 0) + 1
    for card, n in seen.items():
        if n > copies.get(card, 0):
            f.fail("state.decks", f"card '{_short(card)}' is in {n} places, but the decks hold {copies.get(card, 0)}")


# ------------------------------------------------------------------ agents and saves
def check_save(engine, data, raw: dict, where: str) -> None:
    """Check a save (its model `data` and the JSON `raw` it was read from, shape already
    checked) against the rules of `engine`."""
    rules = Rules(engine.for_scenario(data.state.scenario) if data.state.scenario in engine.game.scenarios else engine)
    check_state(rules, data.state, where)
    f = _Findings(where)
    _check_cards(rules, data.state, f)
    if set(data.agents) != rules.sides:
        f.fail("agents", f"agents for {sorted(data.agents)}, but the sides are {sorted(rules.sides)}")
    check_entries(rules, raw["log"], where, data.state.scenario)


# ------------------------------------------------------------------ logs
def check_log(engine, header: dict, entries: list[dict], where: str, force: bool = False) -> None:
    """Check a log (its shape already checked) against the rules of `engine`: the game, the
    fingerprint (unless `force`), the scenario, the options and every entry's names."""
    name = engine.game.game.name
    if header["game"] != name:
        raise SaveError(f"{where} is a log of '{_short(header['game'])}', not of '{name}'")
    if header["rules"] != engine.fingerprint and not force:
        raise SaveError(f"{where} was made with different rules files (fingerprint {_short(header['rules'])}, now "
                        f"{engine.fingerprint}); use the rules it was made with, or replay it anyway with --force")
    if header["scenario"] not in engine.game.scenarios:
        raise SaveError(f"{where}: header: no scenario '{_short(header['scenario'])}' in these rules")
    rules = Rules(engine.for_scenario(header["scenario"]))
    for option in header["options"]:
        if option not in rules.options:
            raise SaveError(f"{where}: header: '{_short(option)}' is not an option of these rules")
    check_entries(rules, entries, where, header["scenario"], line_offset=2)


def check_entries(rules: Rules, entries: list[dict], where: str, scenario: str, line_offset: int | None = None) -> None:
    """Every entry's names declared, its turn in the scenario, the end entry last."""
    first, last = rules.turns(scenario)
    for i, e in enumerate(entries):
        at = f"{where}:{i + line_offset}" if line_offset is not None else f"{where}: log entry {i}"

        def fail(message: str) -> None:
            raise SaveError(f"{at}: {message}")

        if e["n"] != i:
            fail(f"entry number {e['n']}, expected {i}")
        if not first <= e["turn"] <= last + 1:
            fail(f"turn {e['turn']} is outside the scenario's turns {first}..{last}")
        kind = e["k"]
        if kind == "end" and i != len(entries) - 1:
            fail("the game's end is not the last entry")
        phase = e.get("phase")
        if phase is not None and phase not in rules.phases:
            fail(f"'{_short(phase)}' is not a phase of the sequence")
        side = e.get("side")
        if kind != "end" and side is not None and side not in rules.sides:
            fail(f"'{_short(side)}' is not a side")
        winner = e.get("winner") if kind == "end" else None
        if winner is not None and winner not in rules.winners:
            fail(f"'{_short(winner)}' is not a side or an alliance")
        for s in e.get("hidden_from", ()):
            if s not in rules.sides:
                fail(f"hidden_from: '{_short(s)}' is not a side")
        if kind == "action":
            params = rules.actions.get(e["action"])
            if params is None:
                fail(f"'{_short(e['action'])}' is not an action of these rules")
            if sorted(e["args"]) != sorted(params):
                fail(f"{e['action']} has the arguments {sorted(e['args'])}, the rules {params}")
            for arg, value in e["args"].items():
                problem = any_value_problem(rules, value, _AnyUnit())
                if problem:
                    fail(f"argument {arg} {problem}")
        if kind == "end":
            for s in e["sides"]:
                if s not in rules.sides:
                    fail(f"'{_short(s)}' is not a side")


class _AnyUnit:
    """Unit ids of a log are checked by replaying it: any positive id may appear."""

    def __contains__(self, uid) -> bool:
        return type(uid) is int and uid >= 1
