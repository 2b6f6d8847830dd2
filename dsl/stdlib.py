"""The language's standard library: built-in names and functions, specified once.

The checker uses this to validate calls (names, argument counts), the docs generator lists it,
the Pygments lexer highlights it, and the interpreter implements each entry
(`warcodex.interpreter.builtins`); a test checks the two agree.

Types are the language's own: int, num (exact fraction), bool, str, name (a declared name such as
a terrain or a result), side, unit, location, odds, cell, list, table, mode (a movement mode),
any.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

# What a built-in reads of the game state, besides its arguments, the board and the tables (each
# built-in declares it; the engine's analyses derive their sets from it, see `reading`):
# - "nothing": its value depends only on its arguments, the board and the tables (`distance`,
#   `odds`, `column`): a rule calling only such built-ins is cached for the whole game;
# - "positions": also where units stand on the map, their sides and the stacks' order (`units_at`,
#   `top_unit`): its value changes only when the state's `positions_version` does (a unit moves,
#   enters or leaves the map, is restacked);
# - "state": anything else of the state (steps, markers, variables, off-map boxes, cards, dice),
#   or rules it evaluates (a movement search evaluates its mode's costs), or it changes the state.
StateReads = Literal["nothing", "positions", "state"]
READS = get_args(StateReads)  # the words, in that order


@dataclass(frozen=True)
class Builtin:
    name: str
    params: tuple[str, ...]  # "name: type"; a trailing "?" marks an optional parameter
    returns: str
    doc: str
    effect: bool = False  # True: changes the game state, only allowed as a statement
    # for a list: what its elements are, when always the same type (the checker types a loop
    # variable running over it, to catch `u.atack` for a unit's `attack`)
    elements: str | None = None
    # the `list` parameters that hold locations (`traceable`'s targets): a string literal in
    # them must name a location of the map (the checker's E-unknown-location)
    location_lists: tuple[str, ...] = ()
    # what it reads of the state (see `StateReads`); None only for a built-in that forgot to say it,
    # which tests/test_builtin_reads.py refuses (the analyses take it as "state")
    reads: StateReads | None = None

    @property
    def min_args(self) -> int:
        return sum(1 for p in self.params if not p.endswith("?") and not p.startswith("*"))

    @property
    def max_args(self) -> int | None:
        return None if any(p.startswith("*") for p in self.params) else len(self.params)


_SPEC = [
    # ---- board queries
    Builtin("locations", (), "list", "Every location (hex or area) of the board, in map order.", elements="location", reads="nothing"),
    Builtin("locations_with", ("tag: name",), "list", "Locations whose terrain or features include the tag, e.g. `locations_with(objective)`.", elements="location", reads="nothing"),
    Builtin("adjacent", ("h: location",), "list", "The locations adjacent to `h` (hex neighbours or area adjacency, with map wrap).", elements="location", reads="nothing"),
    Builtin("distance", ("a: location", "b: location"), "int", "Hexes (or area steps) between two locations.", reads="nothing"),
    Builtin("terrain", ("h: location",), "name", "The terrain of a location; its properties are read with `.`, e.g. `terrain(h).move_cost`.", reads="nothing"),
    Builtin("edge", ("a: location", "b: location"), "list", "The features on the hexside or connection between two adjacent locations; test with `is`, e.g. `edge(a, b) is minor_river`.", reads="nothing"),
    Builtin("loc", ("id: str",), "location", "The location with a printed id or area name, e.g. `loc(\"0507\")`.", reads="nothing"),
    Builtin("side_of_location", ("h: location",), "side", "The side whose units occupy `h`, or none.", reads="positions"),
    # ---- units
    Builtin("all_units", (), "list", "Every unit on the map.", elements="unit", reads="positions"),
    Builtin("units_at", ("h: location",), "list", "The units in a location, bottom of the stack first (a unit that enters goes on top).", elements="unit", reads="positions"),
    Builtin("top_unit", ("h: location",), "unit", "The unit on top of the stack in a location (the last to enter, or the last put on top), or none.", reads="positions"),
    Builtin("unit_by_id", ("id: int",), "unit", "The unit with this id, as logs and explanations number it (`#7` is `unit_by_id(7)`); none if there is none.", reads="state"),
    Builtin("units_of", ("s: side",), "list", "The units of a side that are on the map.", elements="unit", reads="positions"),
    Builtin("occupied", (), "list", "The locations that hold at least one unit, in board order.", elements="location", reads="positions"),
    Builtin("eliminated_units", ("s: side?",), "list", "Units removed from the map (optionally of one side).", elements="unit", reads="state"),
    Builtin("units_in_box", ("box: str",), "list", "Units held off-map in a named box (reinforcement pools, eliminated box...).", elements="unit", reads="state"),
    # ---- sides
    Builtin("sides", (), "list", "All sides in declaration order.", elements="side", reads="nothing"),
    Builtin("enemies", ("s: side",), "list", "The sides at war with `s` (not in its alliance).", elements="side", reads="nothing"),
    Builtin("allies", ("s: side",), "list", "The sides in the same alliance as `s`, itself included.", elements="side", reads="nothing"),
    Builtin("is_enemy", ("a: side", "b: side"), "bool", "True when the two sides are at war.", reads="nothing"),
    # ---- movement and traces
    Builtin("reachable", ("u: unit", "mode: mode"), "list", "The locations `u` can end a move in under a movement mode.", elements="location", reads="state"),
    Builtin("path_cost", ("u: unit", "to: location", "mode: mode"), "num", "The cheapest cost for `u` to reach `to` under a movement mode, or none.", reads="state"),
    Builtin("must_stop", ("u: unit", "to: location", "mode: mode"), "bool", "True when `u`, moving under a mode along its cheapest path, must stop on entering `to` (a `stop` condition of the mode holds there, or the move used the one-hex allowance); none when `to` is not reachable.", reads="state"),
    Builtin("traceable", ("mode: mode", "start: location", "targets: list", "s: side"), "bool", "True when a path from `start` reaches one of `targets` under a trace mode (supply lines...).", location_lists=("targets",), reads="state"),
    # ---- numbers, odds and tables
    Builtin("odds", ("attack: num", "defense: num"), "odds", "The odds ratio, rounded down in the defender's favour to a whole ratio (7:2 -> 3-1, 5:6 -> 1-2).", reads="nothing"),
    Builtin("difference", ("attack: num", "defense: num"), "int", "Attack minus defense, for differential tables.", reads="nothing"),
    Builtin("allowed", ("table: table", "column: any"), "bool", "False when the column falls under an `illegal` beyond-the-table rule.", reads="nothing"),
    Builtin("cell_of", ("*codes: name",), "cell", "The table cell holding these result codes, as a table prints it: `cell_of(D1, Adv2)` is the cell D1/Adv2 (to apply or pass on a result that no lookup gave, e.g. in a rule test).", reads="nothing"),
    Builtin("result_arg", ("cell: cell", "result: name"), "int", "The argument a table cell gives a result with one: `result_arg(crt[4:1, 3], D)` is 1 for the cell D1/Dr1, and 0 for a cell without a D code (the arguments of several D codes in one cell are added). For reading what a cell does (the steps, the hexes of a retreat), as a search's evaluation weighs an attack on the CRT.", reads="nothing"),
    Builtin("column", ("table: table", "value: any"), "any", "The printed column a value is looked up in, after the beyond-the-table rules and rounding down to a printed column: `column(crt, 8:1)` is 7:1 when 8-1 is resolved on 7-1; a beyond rule that gives a result directly gives that result (`column(crt, 12:1) == DS`); none when the value is not allowed.", reads="nothing"),
    Builtin("rolls", ("table: table",), "list", "Every roll a die-roll table's rows are read with, in order, as its `rows roll` line declares them: `rolls(crt)` is 1, 2, 3, 4, 5, 6 for `rows roll d6: 1..6` (a weather table's `row 1..2` is two rolls). The faces of a d6 are each as likely; the sums of 2d6 are not.", elements="int", reads="nothing"),
    Builtin("rows", ("table: table",), "list", "One key per printed row of a table, in order, each looking its row up: a number, the first number of a range row (`row 2..4` gives 2), or a name (`rows(tec)` is clear, forest, ...).", reads="nothing"),
    Builtin("round_up", ("x: num",), "int", "The smallest whole number not below x.", reads="nothing"),
    Builtin("round_down", ("x: num",), "int", "The largest whole number not above x.", reads="nothing"),
    Builtin("abs", ("x: num",), "num", "Absolute value.", reads="nothing"),
    Builtin("range", ("low: int", "high: int"), "list", "The whole numbers from low to high, both included.", elements="int", reads="nothing"),
    # ---- collections
    Builtin("count", ("xs: list",), "int", "How many elements (also: `count(x for x in xs where ...)`).", reads="nothing"),
    Builtin("sum", ("xs: list",), "num", "The sum of the elements (0 for an empty list).", reads="nothing"),
    Builtin("min", ("*xs: any",), "num", "The smallest of the arguments, or of one list.", reads="nothing"),
    Builtin("max", ("*xs: any",), "num", "The largest of the arguments, or of one list.", reads="nothing"),
    Builtin("smallest", ("n: int", "xs: list"), "list", "The n smallest numbers of a list, smallest first (all of them if it has fewer; none values skipped): `sum(smallest(3, list(distance(u.loc, h) for u in units_of(s))))` is how far the three nearest units are.", elements="num", reads="nothing"),
    Builtin("any", ("xs: list",), "bool", "True if any element is true.", reads="nothing"),
    Builtin("all", ("xs: list",), "bool", "True if every element is true.", reads="nothing"),
    Builtin("list", ("xs: list",), "list", "The elements as a list (use with `for ... where ...`).", reads="nothing"),
    Builtin("first", ("xs: list",), "any", "The first element, or none.", reads="nothing"),
    Builtin("contains", ("xs: list", "x: any"), "bool", "True if `x` is an element of `xs` (same as `x in xs`).", reads="nothing"),
    # ---- cards
    Builtin("hand", ("s: side",), "list", "The cards in a side's hand.", reads="state"),
    Builtin("deck_size", ("deck: name",), "int", "Cards left in a deck's draw pile.", reads="state"),
    # ---- effects (statements only)
    Builtin("place", ("type: name", "s: side", "h: location", "label: str?"), "unit", "Put a new unit of a type on the map.", effect=True, reads="state"),
    Builtin("move_to", ("u: unit", "h: location"), "none", "Move a unit directly to a location (fires `enter`).", effect=True, reads="state"),
    Builtin("move_along", ("u: unit", "h: location", "mode: mode"), "none", "Move a unit along its cheapest legal path under a mode (fires `enter` for each location).", effect=True, reads="state"),
    Builtin("eliminate", ("u: unit",), "none", "Remove a unit, on the map or in an off-map box (a Reserve Army's), to the eliminated units (fires `eliminated`).", effect=True, reads="state"),
    Builtin("reduce", ("u: unit", "steps: int"), "none", "Remove steps from a unit; at zero steps it is eliminated.", effect=True, reads="state"),
    Builtin("restore", ("u: unit", "steps: int"), "none", "Give steps back to a unit, up to its full strength.", effect=True, reads="state"),
    Builtin("to_box", ("u: unit", "box: str"), "none", "Take a unit off the map into a named holding box.", effect=True, reads="state"),
    Builtin("to_top", ("u: unit",), "none", "Put a unit on top of the stack it is in, without moving it (the owner restacks).", effect=True, reads="state"),
    Builtin("mark", ("x: any", "marker: name"), "none", "Put a marker on a unit or a location.", effect=True, reads="state"),
    Builtin("unmark", ("x: any", "marker: name"), "none", "Remove a marker from a unit or a location.", effect=True, reads="state"),
    Builtin("win", ("s: side", "reason: str"), "none", "End the game with a winner (none for a draw).", effect=True, reads="state"),
    Builtin("emit", ("event: name", "*args: any"), "none", "Fire an event: runs the `on EVENT(...)` triggers.", effect=True, reads="state"),
    Builtin("draw", ("s: side", "deck: name", "n: int?"), "none", "Draw cards from a deck into a side's hand (the deck's `reshuffle_at` rule applies).", effect=True, reads="state"),
    Builtin("discard", ("s: side", "card: name"), "none", "Move a card from a side's hand to its deck's discard pile.", effect=True, reads="state"),
    Builtin("shuffle", ("deck: name",), "none", "Shuffle a deck's discard pile and draw pile together into a new draw pile.", effect=True, reads="state"),
    # ---- appended: generic board geometry, cell numbers and region traces
    Builtin("common_neighbors", ("a: location", "b: location"), "list", "The locations adjacent to both `a` and `b`, in the board order of `a`'s neighbours (ZOC bonds: one for a hex bond, two for a hexside bond).", elements="location", reads="nothing"),
    Builtin("number", ("x: any",), "num", "The number held by a one-number table cell (`number(tec[mech, forest])`); a cell written `1/2` is the fraction one half; a number is returned as is; none for an empty cell.", reads="nothing"),
    Builtin("trace_region", ("mode: mode", "starts: list", "s: side", "limit: num?"), "list", "Every location a trace mode reaches from any of `starts` (the starts included): a supply network traced once from all sources. With `limit`, paths cost at most `limit` instead of the mode's allowance (the spaces within k moves).", elements="location", location_lists=("starts",), reads="state"),
    Builtin("trace_back", ("mode: mode", "targets: list", "s: side"), "list", "Every location from which a trace mode reaches one of `targets` (the targets included): `h in trace_back(m, ts, s)` equals `traceable(m, h, ts, s)` for every h, in one backward search (the mode may not read `origin`).", elements="location", location_lists=("targets",), reads="state"),
    Builtin("hex_col", ("h: location",), "int", "The printed column of a hex (`hex_col(\"2743\")` is 27); none on an area map.", reads="nothing"),
    Builtin("hex_row", ("h: location",), "int", "The printed row of a hex (`hex_row(\"2743\")` is 43): rules such as \"on or north of hexrow xx43\"; none on an area map.", reads="nothing"),
    Builtin("sheet", ("h: location",), "str", "The name of the map sheet a location lies on (\"A\", \"C1\"...), or none when the map has no sheets.", reads="nothing"),
    Builtin("move_via", ("u: unit", "h: location", "mode: mode"), "none", "Move a unit hex by hex along its cheapest legal path under a mode, entering every location of the path, the first one included (fires `enter` for each).", effect=True, reads="state"),
    # ---- appended (data side): the order of player turns
    Builtin("set_turn_order", ("sides: list",), "none", "Change the order of the player turns from the next game turn on (e.g. a Winter Offensive that puts one side first).", effect=True, reads="state"),
    Builtin("place_in_box", ("type: name", "s: side", "box: str", "label: str?"), "unit", "Create a new unit of a type directly in a named off-map holding box (a reinforcement pool), without entering the map.", effect=True, reads="state"),
    # ---- appended: card-driven play (interpreter/cards.py)
    Builtin("cards", ("deck: name",), "list", "Every card of a deck, in declaration order, wherever it is.", reads="nothing"),
    Builtin("discard_pile", ("deck: name",), "list", "The deck's discard (played-cards) pile, top card first.", reads="state"),
    Builtin("removed_cards", ("deck: name",), "list", "The deck's cards removed from the game.", reads="state"),
    Builtin("set_aside_cards", ("deck: name",), "list", "The deck's cards set aside, not in the game yet (flag `set_aside`).", reads="state"),
    Builtin("card_places", ("c: name",), "list", "Every place holding the card: \"draw\", \"discard\", \"removed\", \"set_aside\", \"play\" or \"hand:SIDE\"; exactly one in a sound state.", reads="state"),
    Builtin("card_holder", ("c: name",), "side", "The side holding the card in its hand, or none.", reads="state"),
    Builtin("card_visible", ("c: name", "s: side"), "bool", "Whether side s may see which card c is where it is now: in a hand, only its holder; in a pile, as the pile's visibility says (`pile \"cup\" face_down`, `owner_only`: the card's owners).", reads="state"),
    Builtin("times_played", ("c: name",), "int", "How many times the card was played as an event in this player turn (the game turn and active side).", reads="state"),
    Builtin("last_played", ("deck: name",), "name", "The card of the deck played as an event most recently in this player turn (a card \"just played\"), or none.", reads="state"),
    Builtin("last_paid", ("deck: name",), "name", "The card of the deck discarded as payment most recently in this player turn, or none.", reads="state"),
    Builtin("play", ("s: side", "c: name"), "none", "Play a card from a side's hand as an event: fires `card_announced(c, s)`, then `card_played(c, s)` unless the card was cancelled, then discards it (unless its event moved it).", effect=True, reads="state"),
    Builtin("pay", ("s: side", "c: name", "purpose: any"), "none", "Discard a card from a side's hand as payment for a purpose (rail movement, a return...): fires `card_paid(c, s, purpose)`.", effect=True, reads="state"),
    Builtin("cancel", ("c: name",), "none", "Cancel a card being played (in a `card_announced` trigger): its event does not happen.", effect=True, reads="state"),
    Builtin("take_card", ("s: side", "c: name"), "none", "Put a card in a side's hand from wherever it is (the discard pile, another hand, the draw pile).", effect=True, reads="state"),
    Builtin("remove_card", ("c: name",), "none", "Remove a card from the game, from wherever it is.", effect=True, reads="state"),
    Builtin("add_to_deck", ("c: name",), "none", "Put a set-aside (or any) card into its deck's draw pile (shuffle afterwards).", effect=True, reads="state"),
    Builtin("discard_random", ("s: side",), "none", "Discard a card picked at random (with the dice) from a side's hand.", effect=True, reads="state"),
    # ---- appended: decks with piles of their own (a cup of chits), random picks, text
    Builtin("pile", ("deck: name", "pile: str"), "list", "The cards in one pile of a deck, top card first: `pile(command_chits, \"cup\")` (the deck's own piles, `piles:`, and draw, discard, removed, set_aside, play).", reads="state"),
    Builtin("move_card", ("deck: name", "card: name", "to: str"), "none", "Put a card on top of a pile of its deck, taking it from the pile or hand it is in (a drawn chit to the Draw Chit box, a chit back into the cup).", effect=True, reads="state"),
    Builtin("text", ("x: any",), "str", "The value as text, as the log shows it: a number, a name, a side (`\"turn_\" + text(turn)` names a holding box).", reads="state"),
    Builtin("pick_random", ("xs: list",), "any", "One element of the list at random, drawn with the game's dice like a roll (a chit drawn blind from a cup: `pick_random(pile(chits, \"cup\"))`); none for an empty list.", reads="state"),
]

# built-ins that use the dice: their values are never memoized (like `roll`)
RANDOM_BUILTINS = frozenset({"pick_random"})

BUILTINS: dict[str, Builtin] = {b.name: b for b in _SPEC}


def reading(*kinds: str) -> frozenset[str]:
    """The built-ins that read at most what `kinds` say (`reading("nothing")`: those of the board
    and their arguments alone). A built-in that declares nothing is taken to read the state."""
    return frozenset(b.name for b in BUILTINS.values() if (b.reads or "state") in kinds)

# Names that are always defined, with their meaning.
CONSTANTS: dict[str, tuple[str, str]] = {
    "turn": ("int", "The current game turn."),
    "active": ("side", "The side whose player turn it is (none outside player turns)."),
    "phase": ("name", "The current phase."),
    "scenario": ("name", "The scenario being played."),
    "first_turn": ("int", "The scenario's first turn."),
    "last_turn": ("int", "The scenario's last turn."),
    "turn_order": ("list", "The sides in player-turn order (the game's `turn_order`, or the scenario's)."),
}

# Properties every unit has, besides its type's properties and unit_var variables.
UNIT_FIELDS: dict[str, tuple[str, str]] = {
    "side": ("side", "The unit's side."),
    "loc": ("location", "Where the unit is; none when off the map."),
    "type": ("name", "The unit's type."),
    "steps": ("int", "Steps remaining."),
    "max_steps": ("int", "Steps at full strength."),
    "label": ("str", "The unit's own name (e.g. \"11th Panzer\"), or its type's label."),
    "id": ("int", "A number unique to the unit in this game."),
    "box": ("str", "The off-map holding box the unit is in (\"eliminated\", a box given to `to_box`), or none on the map."),
}

# The events the engine fires by itself; `emit` fires any other.
EVENTS: dict[str, tuple[str, ...]] = {
    "game_start": (),
    "turn_start": (),
    "turn_end": (),
    "phase_start": ("phase: name",),
    "phase_end": ("phase: name",),
    "enter": ("u: unit", "h: location"),
    "placed": ("u: unit", "h: location"),
    "eliminated": ("u: unit",),
    "game_end": (),
    "card_announced": ("c: name", "s: side"),
    "card_played": ("c: name", "s: side"),
    "card_paid": ("c: name", "s: side", "purpose: str"),
}

TYPES = ("int", "num", "bool", "str", "name", "side", "unit", "location", "odds", "cell", "list", "table", "mode", "any")
