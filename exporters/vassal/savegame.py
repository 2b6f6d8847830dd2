"""A VASSAL saved game (.vsav) of a Warcodex position, and a VASSAL log (.vlog) that steps through
a logged game, for the module `build_module` makes of the same scenario: a self-played or fuzzed
game watched in VASSAL.

What VASSAL 3.7 writes and reads (GameState.saveGame / decodeSavedGame, BasicLogger.write, read
from its source; tests/test_vassal_real.py loads what this module writes in the real VASSAL and
compares it with what VASSAL itself saves for the same position):

* zip entries: `savedGame`, the game obfuscated (ObfuscatingOutputStream: "!VCSK", a key byte as
  two hex digits, then every byte xor the key as two hex digits); `savedata`, the save's metadata
  (SaveMetaData); `moduledata`, a copy of the module's (SaveMetaData.copyModuleMetadata).
* `savedGame`: commands joined by ESC (GameModule.encode): `begin_save`; the pieces, one token
  (a NullCommand "" whose sub-commands are an AddPiece per piece, then one per stack); the game
  components' restore commands in their registration order (UNMASK, the global properties, each
  map's BoardPicker, SETUP_STACK - the game is not new, so at-start stacks are not placed again -,
  the turn tracker); `end_save`. A log goes on with one token per step: `LOG\\t` + a command; a
  step of several commands is one token of several LOG commands (BasicLogger.LogCommand), so
  VASSAL's Step button plays them together.
* AddPiece `+/id/type/state` (BasicCommandEncoder): a unit's traits are its PieceSlot's with each
  prototype expanded in place (PieceCloner), each trait's state (a Layer's level: its steps),
  the BasicPiece state `map;x;y;gpid;0`; a stack is type `stack`, state `map;x;y;id...;@@-1`.
  Pieces of a location share its point: a hex's centre (the grid's getLocation), a Region's origin.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from lxml import etree

from warcodex.exporters.vassal import board_svg, gamedata, tracker
from warcodex.exporters.vassal.encoder import (
    TAB, Trait, basic_piece, decode_piece, encode, nest, piece_definition, trait_fields)
from warcodex.exporters.vassal.module import ELIMINATED_BOX, HOLDING_MAP, Module

ESC = "\x1b"  # GameModule.COMMAND_SEPARATOR (KeyEvent.VK_ESCAPE)
OBFUSCATION_HEADER = "!VCSK"
FIRST_PIECE_ID = 1000  # piece ids of a saved game; VASSAL gives new pieces time-stamp ids (13 digits)


class SaveError(Exception):
    """A position this module cannot show (a unit type or a location the module does not have)."""


@dataclass
class Placed:
    """A piece of the position: where it is and what it is (its expanded traits and their states)."""

    map: str
    location: str
    traits: list[Trait]  # outermost first, the BasicPiece last (its state is set when placed)
    gpid: int
    key: tuple  # what it stands for, to follow it from one position to the next


@dataclass
class Position:
    """What VASSAL shows of a game position: pieces by map and location (stack order), the turn
    tracker, and the global properties."""

    pieces: dict[tuple[str, str], list[Placed]] = field(default_factory=dict)
    decks: list[tuple[str, object, list[Placed]]] = field(default_factory=list)  # (map, DeckPlan, its cards)
    turn: int = 0
    phase: str = ""  # the tracker's phase text, "" between phases
    properties: dict[str, str] = field(default_factory=dict)


# ============================================================================ pieces of a module
class _Pieces:
    """The module's piece definitions, found by what they stand for, with prototypes expanded."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self.prototypes = {name: decode_piece(text).traits for name, _, text in module.plan.prototypes}
        self.units: dict[tuple[str, str, str], list] = {}  # (type, side, label) -> its Slots, module order
        self.used: Counter = Counter()  # slots of each key given out so far
        self.palette: dict[tuple[str, str], object] = {}  # (type, side) -> the palette's Slot
        self.markers: dict[str, list] = {}  # marker name -> its Slots, module order
        self.cards: dict[str, list] = {}  # card name -> its Slots
        for slot in module.plan.all_slots():
            if slot.unit is not None:
                self.units.setdefault(slot.unit, []).append(slot)
                self.palette.setdefault(slot.unit[:2], slot)
            elif slot.marker is not None:
                self.markers.setdefault(slot.marker, []).append(slot)
            elif slot.card is not None:
                self.cards.setdefault(slot.card, []).append(slot)
        for tab in module.plan.palette:  # the palette's own slot of each type wins
            for panel in tab.panels:
                for slot in panel.slots:
                    if slot.unit is not None:
                        self.palette[slot.unit[:2]] = slot

    def expand(self, text: str) -> list[Trait]:
        """A PieceSlot's traits with each `prototype;NAME` replaced by that prototype's traits
        (its BasicPiece dropped), as PieceCloner does when a piece is placed."""
        out: list[Trait] = []
        for t in decode_piece(text).traits:
            if t.prefix == "prototype;":
                name = trait_fields(t)[0]
                out += self.expand_proto(name)
            else:
                out.append(t)
        return out

    def expand_proto(self, name: str) -> list[Trait]:
        traits = self.prototypes.get(name)
        if traits is None:
            raise SaveError(f"the module has no prototype '{name}'")
        out: list[Trait] = []
        for t in traits[:-1]:  # its BasicPiece is the piece's own
            out += self.expand_proto(trait_fields(t)[0]) if t.prefix == "prototype;" else [t]
        return out

    def unit(self, type_name: str, side: str, label: str, steps: int, max_steps: int) -> tuple[list[Trait], int]:
        """A unit's traits (its Layer at its steps) and gpid: its own PieceSlot if the module has
        one (the set-up, the reinforcements), else its type's palette counter with its name."""
        slots = self.units.get((type_name, side, label), [])
        slot = slots[self.used[(type_name, side, label)] % len(slots)] if slots else None
        self.used[(type_name, side, label)] += 1  # the set-up's units get the set-up's own slots
        renamed = slot is None
        if renamed:  # a unit the module's set-up does not have: its type's palette counter, its own name
            slot = self.palette.get((type_name, side))
            if slot is None:
                raise SaveError(f"the module has no counter of unit type '{type_name}' for '{side}'")
        traits = self.expand(slot.text)
        out = []
        for t in traits:
            if t.prefix == "emb2;" and trait_fields(t)[18] == "Steps":  # the step Layer: its level
                # a unit with no step left (eliminated, kept by the state) shows its last step's face
                t = Trait(t.type, str(min(max_steps, max(1, max_steps - steps + 1))))
            elif t.prefix == "piece;" and renamed:
                fields = trait_fields(t)
                t = basic_piece(fields[2], label, slot.gpid)
            out.append(t)
        return out, slot.gpid

    def marker(self, name: str) -> tuple[list[Trait], int] | None:
        """A marker's traits and gpid (the set-up's markers get the set-up's own slots), or None
        when the module has no counter for it."""
        return self._next(self.markers, "marker", name)

    def card(self, name: str) -> tuple[list[Trait], int] | None:
        return self._next(self.cards, "card", name)

    def _next(self, index: dict, kind: str, name: str) -> tuple[list[Trait], int] | None:
        slots = index.get(name)
        if not slots:
            return None
        slot = slots[self.used[(kind, name)] % len(slots)]
        self.used[(kind, name)] += 1
        return self.expand(slot.text), slot.gpid


# ============================================================================ the position
def position(module: Module, state) -> Position:
    """The pieces VASSAL shows for a game state of the module's scenario: units where the state
    has them (with their markers on top, and each location's markers), off-map units in their
    boxes, and the reinforcements still to come in their turn's box."""
    data = module.data
    board = data.board
    pieces = _Pieces(module)
    main = module.plan.maps[0].name
    out = Position(turn=state.position.turn)

    def put(map_name: str, location: str, found: tuple[list[Trait], int] | None, key: tuple) -> None:
        if found is not None:  # a marker without a counter in the module (not a declared marker) is not shown
            traits, gpid = found
            out.pieces.setdefault((map_name, location), []).append(Placed(map_name, location, traits, gpid, key))

    def on_map(loc: str) -> tuple[str, str]:
        name = module.location_names.get(loc)
        if name is None:
            raise SaveError(f"location '{loc}' is not on the module's map")
        return (HOLDING_MAP if board_svg.is_box(board, loc) else main), name

    def unit(u) -> tuple[list[Trait], int]:
        return pieces.unit(u.type, u.side, u.label, u.steps, u.max_steps)

    on_board: set[int] = set()
    occupied = [loc for loc, ids in state.at.items() if ids]
    marked = [loc for loc in sorted(state.loc_markers) if state.loc_markers[loc] and loc not in state.at
              and loc in module.location_names]
    for loc in occupied + marked:  # as the module's at-start stacks: the location's markers, units, theirs
        map_name, name = on_map(loc)
        ids = state.at.get(loc, ())
        for m in sorted(state.loc_markers.get(loc, ())):
            put(map_name, name, pieces.marker(m), ("location marker", loc, m))
        for uid in ids:
            put(map_name, name, unit(state.units[uid]), ("unit", uid))
            on_board.add(uid)
        for uid in ids:
            for m in sorted(state.units[uid].markers):
                put(map_name, name, pieces.marker(m), ("unit marker", uid, m))
    in_play: Counter = Counter()
    for uid in sorted(state.units):
        u = state.units[uid]
        in_play[(u.type, u.side, u.label)] += 1
        if uid not in on_board:
            region = module.box_regions.get(u.box or ELIMINATED_BOX)
            if region is None:
                raise SaveError(f"the module has no holding box for '{u.box}' (export it with this position's boxes)")
            put(HOLDING_MAP, region, unit(u), ("unit", uid))
    # the reinforcements still to come: a scheduled one has come once a unit like it is in play
    # beyond those of the set-up (counted in turn order, so the earliest come first)
    came = in_play - _setup_counts(data)
    for i, (r, region) in enumerate(module.reinforcements):
        key = (r.unit.type, r.unit.side, r.unit.label)
        if came[key] > 0:
            came[key] -= 1
            continue
        put(HOLDING_MAP, region, pieces.unit(*key, r.unit.steps, r.unit.max_steps), ("reinforcement", i))
    _decks(module, state, pieces, out)
    out.phase = _phase_text(data, state)
    if state.over and data.last_turn is not None and out.turn > data.last_turn:
        # the game is over after its last turn: the tracker stays on that turn's last phase
        out.turn = data.last_turn
        seg = _segment(module, out.turn)
        out.phase = seg.phases[-1] if seg is not None and seg.phases else ""
    elif not out.phase:  # between phases (a turn's start): the tracker is on the turn's first phase
        seg = _segment(module, out.turn)
        out.phase = seg.phases[0] if seg is not None and seg.phases else ""
    out.properties = _properties(module, state, out)
    return out


def _decks(module: Module, state, pieces: _Pieces, out: Position) -> None:
    """Each VASSAL deck with the cards of its pile or hand in this state (cards in play, a pile
    the module does not show, are not shown)."""
    decks = [(m, d) for m in module.plan.maps for d in m.decks]
    if not decks:
        return
    engine = module.data.engine
    snapshot = state.snapshot()  # a deck's piles are made on first use, with the state's dice
    seen: Counter = Counter()
    for m, d in decks:
        if d.deck is not None:
            names = engine.cards.piles(snapshot, d.deck).get(d.pile, [])
        else:
            names = snapshot.hands.get(d.hand, [])
        cards = []
        for name in names:
            found = pieces.card(name)
            if found is not None:
                cards.append(Placed(m.name, d.name, found[0], found[1], ("card", name, seen[name])))
                seen[name] += 1
        out.decks.append((m.name, d, cards))


def deck_type(d) -> str:
    """Deck.getType of a DrawPile as buildfile._deck writes it (a DeckPlan): its options, then
    VASSAL's defaults for everything the module leaves alone (English menu texts)."""
    return "deck;" + encode([
        True, "0,0,0", d.width, d.height, "Always" if d.face_down else "Never",
        "Always" if d.shuffle else "Via right-click Menu", True, True, False,
        "Shuffle into the draw pile" if d.reshuffle_target else "", d.reshuffle_target or "",
        "$playerSide$ shuffles the discards into the draw pile" if d.reshuffle_target else "", d.name,
        "", "", "", not d.face_down or d.drawn_face_up, False, "", "", 10, "", False, "", False, "", "$BasicName$", "", False, "",
        "Shuffle", "Reverse", "", "Draw multiple cards", "Draw specific cards", "Face up", "Face down", "", "", "", "",
        "Save Deck", "", "Deck Saved", "Load Deck", "", "Deck Loaded", False, ""], ";")


def _deck_point(d) -> tuple[int, int]:
    return d.x + d.width // 2, d.y + d.height // 2


def _segment(module: Module, turn: int) -> tracker.Segment | None:
    return next((g for g in module.plan.tracker if g.first <= turn and (g.last is None or turn <= g.last)), None)


def _setup_counts(data: gamedata.GameData) -> Counter:
    counts: Counter = Counter()
    for units in list(data.at_start.values()) + list(data.boxes.values()):
        for u in units:
            counts[(u.type, u.side, u.label)] += 1
    return counts


def _phase_text(data: gamedata.GameData, state) -> str:
    step = next((s for s in data.steps if s.name == state.phase and s.side_name == state.active), None)
    return tracker.phase_text(step) if step is not None else ""


def _properties(module: Module, state, pos: Position) -> dict[str, str]:
    """The module's global properties in this state: Turn, the variables, the side variables (a
    side variable nobody has set yet has its declared value)."""
    from warcodex.dsl import ast

    engine = module.data.engine
    values = {"Turn": str(pos.turn)}
    for v in module.data.state_vars:
        values[v.name] = gamedata.value_text(state.vars.get(v.name))
    for v in module.data.side_vars:
        for side in engine.side_entities:
            read = ast.Attr(obj=ast.Name(id=side.name), name=v.name)  # `SIDE.VAR`, read through the public evaluator
            values[f"{v.name}_{side.name}"] = gamedata.value_text(engine.evaluate(read, state))
    return {p.name: values.get(p.name, p.initial) for p in module.plan.global_properties}


# ============================================================================ commands
class _Ids:
    def __init__(self) -> None:
        self.next = FIRST_PIECE_ID

    def __call__(self) -> str:
        self.next += 1
        return str(self.next)


def _point(module: Module, map_name: str, location: str) -> tuple[int, int]:
    from warcodex.dsl.hexgrid import VassalHexNumbering

    m = next(m for m in module.plan.maps if m.name == map_name)
    if m.hex_grid is not None:
        x, y = VassalHexNumbering(*m.hex_grid).get_location(location)
        return int(x), int(y)
    x, y = m.regions[location]
    return int(x), int(y)


def _add_piece(piece_id: str, traits: list[Trait], map_name: str, x: int, y: int, gpid: int) -> str:
    """AddPiece of a placed piece: its BasicPiece state is its map, point, gpid and the persistent
    property UniqueID (its id), as BasicPiece.getState writes it."""
    inner = traits[-1]
    placed = traits[:-1] + [Trait(inner.type, encode([map_name, x, y, gpid, 1, "UniqueID", piece_id], ";"))]
    return piece_definition(placed, piece_id)


def _pieces_commands(module: Module, pos: Position, ids: _Ids, assigned: dict | None = None) -> list[str]:
    """AddPiece for every piece, then one per stack (GameState.getRestorePiecesCommand's order)."""
    pieces, stacks = [], []

    def add(placed, map_name: str, x, y) -> list[str]:
        """AddPiece for each of a stack's or deck's pieces: their ids, bottom first."""
        members = []
        for p in placed:
            pid = ids()
            if assigned is not None:
                assigned[p.key] = pid
            pieces.append(_add_piece(pid, p.traits, map_name, x, y, p.gpid))
            members.append(pid)
        return members

    for (map_name, location), placed in pos.pieces.items():
        x, y = _point(module, map_name, location)
        members = add(placed, map_name, x, y)
        stacks.append("+/" + encode([ids(), "stack", encode([map_name, x, y, *members, "@@-1"], ";")], "/"))
    decks = []
    for map_name, d, cards in pos.decks:
        x, y = _deck_point(d)
        members = add(cards, map_name, x, y)
        did = ids()
        if assigned is not None:
            assigned[("deck", d.name)] = did
        decks.append("+/" + encode([did, deck_type(d), _deck_state(map_name, d, members)], "/"))
    return pieces + stacks + decks


def _deck_state(map_name: str, d, members: list[str]) -> str:
    """Deck.getState: map, point, face down, the cards' ids (a `,`-list, absent when empty)."""
    x, y = _deck_point(d)
    return encode([map_name, x, y, d.face_down] + ([encode(members, ",")] if members else []), ";")


def tracker_state(segments: list[tracker.Segment], turn: int, phase: str) -> str:
    """TurnTracker.getState for a turn and phase: every level at that turn (VASSAL's levels share
    the properties Turn and Phase, and each level's state sets them when a game is loaded, the last
    level's last), the segment holding the turn current."""
    current = next((i for i, s in enumerate(segments) if s.first <= turn and (s.last is None or turn <= s.last)),
                   len(segments) - 1 if segments and turn > segments[-1].first else 0)
    states = []
    for seg in segments:
        loop = seg.last is not None and len(segments) > 1
        parts: list[object] = [turn, 0, loop, seg.last if loop else -1]
        if seg.phases:
            index = seg.phases.index(phase) if phase in seg.phases else 0
            parts.append(encode([index, 0, 0, ",".join("true" for _ in seg.phases)], ";"))
        states.append(encode(parts, ";"))
    return encode([current, *states], "|")


def _component_commands(module: Module, pos: Position) -> list[str]:
    """The game components' restore commands, in the order VASSAL registers them."""
    out = ["UNMASK\tnull"]
    out += [encode(["GlobalProperty\t", name, value, "Module"], ";") for name, value in pos.properties.items()]
    for i, m in enumerate(module.plan.maps):
        out.append(encode([f"{m.name}BoardPicker", m.board, 0, 0], TAB))
        if i == 0:
            out.append("SETUP_STACK\t")  # NewGameIndicator: not a new game, at-start stacks stay unplaced
    out.append(encode(["TURNTurnTracker0", tracker_state(module.plan.tracker, pos.turn, pos.phase)], TAB))
    return out


def restore_text(module: Module, pos: Position, ids: _Ids | None = None, assigned: dict | None = None) -> list[str]:
    """The commands that set the game to `pos`, from begin_save to end_save."""
    ids = ids or _Ids()
    pieces = encode(["", *_pieces_commands(module, pos, ids, assigned)], ESC)
    return ["begin_save", pieces, *_component_commands(module, pos), "end_save"]


# ============================================================================ files
def obfuscate(text: str, key: int = 0) -> bytes:
    """ObfuscatingOutputStream: the header, the key, then each UTF-8 byte xor the key, in hex."""
    data = text.encode("utf-8")
    return (OBFUSCATION_HEADER + f"{key:02x}" + "".join(f"{b ^ key:02x}" for b in data)).encode("ascii")


def deobfuscate(data: bytes) -> str:
    """DeobfuscatingInputStream: an obfuscated savedGame back to its text; a plain one as it is."""
    if not data.startswith(OBFUSCATION_HEADER.encode("ascii")):
        return data.decode("utf-8")
    key = int(data[5:7], 16)
    body = data[7:]
    return bytes(int(body[i:i + 2], 16) ^ key for i in range(0, len(body), 2)).decode("utf-8")


def savedata(description: str, saved_ms: int | None = None) -> bytes:
    """SaveMetaData: version 1, the VASSAL version, when, and a description."""
    from warcodex.exporters.vassal.catalog import VASSAL_VERSION

    root = etree.Element("data", version="1")
    for tag, text in (("VassalVersion", VASSAL_VERSION),
                      ("dateSaved", str(saved_ms if saved_ms is not None else int(time.time() * 1000))),
                      ("description", description)):
        etree.SubElement(root, tag).text = text
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=False, pretty_print=True)


def _zip(module: Module, commands: list[str], description: str) -> bytes:
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("savedGame", obfuscate(encode(commands, ESC)))
        z.writestr("savedata", savedata(description))
        z.writestr("moduledata", module.files["moduledata"])
    return buf.getvalue()


def saved_game(module: Module, state, description: str = "") -> bytes:
    """The .vsav of a game state of the module's scenario."""
    pos = position(module, state)
    return _zip(module, restore_text(module, pos), description or _describe(module, state))


def _describe(module: Module, state) -> str:
    data = module.data
    where = f"turn {state.position.turn}" + (f", {_phase_text(data, state)}" if state.phase else "")
    return f"{data.title}, {data.scenario_label}: {where} (Warcodex position)"


# ============================================================================ logs
@dataclass
class Step:
    """One step of a VASSAL log: what happened (shown in the chat) and the position after it."""

    text: str
    position: Position


def game_log(module: Module, start: Position, steps: list[Step], description: str) -> bytes:
    """The .vlog: the start position, then one LOG step per action. Each step moves the pieces
    that changed (a piece whose traits changed - a step lost, a marker - is replaced), adds those
    that came into play, removes those that left, sets the tracker and the global properties, and
    says in the chat what happened."""
    ids = _Ids()
    assigned: dict[tuple, str] = {}
    commands = restore_text(module, start, ids, assigned)
    before = start
    for step in steps:
        cmds = [_chat(step.text)] + _diff(module, before, step.position, ids, assigned)
        commands.append(encode(["LOG\t" + c for c in cmds], ESC))
        before = step.position
    return _zip(module, commands, description)


def _chat(text: str) -> str:
    """Chatter.DisplayText: `CHAT` + the line (shown as is; `*` starts a report line)."""
    return "CHAT" + "* " + text.replace(ESC, " ").replace("\n", " ")


def _diff(module: Module, a: Position, b: Position, ids: _Ids, assigned: dict) -> list[str]:
    old = {p.key: p for placed in a.pieces.values() for p in placed}
    new = {p.key: p for placed in b.pieces.values() for p in placed}
    out = []
    for key, p in old.items():
        if key not in new or _type(new[key]) != _type(p) or _states(new[key]) != _states(p):
            out.append("-/" + assigned.pop(key))
    for (map_name, location), placed in b.pieces.items():
        x, y = _point(module, map_name, location)
        under = None
        for p in placed:
            was = old.get(p.key)
            if p.key in assigned:  # kept: moved if its place changed
                if (was.map, was.location) != (map_name, location):
                    ox, oy = _point(module, was.map, was.location)
                    out.append("M/" + encode([assigned[p.key], map_name, x, y, under or "null", was.map, ox, oy,
                                              "null", ""], "/"))
            else:
                pid = ids()
                assigned[p.key] = pid
                out.append(_add_piece(pid, p.traits, map_name, x, y, p.gpid))
                if under is not None:  # on top of the piece under it: MovePiece merges the two
                    out.append("M/" + encode([pid, map_name, x, y, under, map_name, x, y, "null", ""], "/"))
            under = assigned[p.key]
    out += _deck_diff(a, b, ids, assigned)
    for name, value in b.properties.items():
        if a.properties.get(name) != value:
            out.append(encode(["GlobalProperty\t", name, value, "Module"], ";"))
    if (a.turn, a.phase) != (b.turn, b.phase):
        out.append(encode(["TURNTurnTracker0", tracker_state(module.plan.tracker, b.turn, b.phase)], TAB))
    return out


def _deck_diff(a: Position, b: Position, ids: _Ids, assigned: dict) -> list[str]:
    """Cards: a card that came into the decks is added, one that left them removed, and each deck
    whose cards changed gets its new list (ChangePiece: Deck.setState takes the listed cards)."""
    old = {d.name: [p.key for p in cards] for _, d, cards in a.decks}
    now = {p.key for _, _, cards in b.decks for p in cards}
    out = []
    for key in {k for keys in old.values() for k in keys} - now:
        out.append("-/" + assigned.pop(key))
    for map_name, d, cards in b.decks:
        keys = [p.key for p in cards]
        if keys == old.get(d.name):
            continue
        x, y = _deck_point(d)
        for p in cards:
            if p.key not in assigned:
                assigned[p.key] = ids()
                out.append(_add_piece(assigned[p.key], p.traits, map_name, x, y, p.gpid))
        # no old state: ChangePiece then sets the state (with one, it merges it into the current one)
        out.append("D/" + encode([assigned[("deck", d.name)], _deck_state(map_name, d, [assigned[k] for k in keys])],
                                 "/"))
    return out


def _type(p: Placed) -> str:
    return nest([t.type for t in p.traits])


def _states(p: Placed) -> list[str]:
    return [t.state for t in p.traits[:-1]]
