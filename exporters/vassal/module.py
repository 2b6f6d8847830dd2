"""The .vmod: everything drawn, encoded and zipped (notes/vassal-format.md §2, §3).

Zip layout:
    moduledata              name, version, description, VassalVersion 3.7.0
    buildFile.xml           the component tree (buildfile.py)
    images/*.png            board(s), counters, markers, charts (PNG, see below)
    help/about.html         scenario, sequence, reinforcements, how the module was made
    help/coverage.html      the rules coverage summary (warcodex.dsl.coverage)
    aids/...                the generated player aids, when warcodex.exporters.aids is installed

Images are PNG rendered from our SVG with cairosvg. VASSAL 3.7 can load SVG (`Op.load` picks the
SVG loader by the `.svg` suffix, note §2), but it renders them with Batik, whose font and CSS
support differs from ours and which re-rasterises at every zoom level; PNG looks the same on every
machine and is what VASSAL's own tile cache works from.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree
from lxml.html import builder as H

from warcodex.exporters.vassal import board_svg, charts, counters, gamedata, palette, tracker
from warcodex.exporters.vassal.buildfile import (
    ChartPlan, DicePlan, GlobalPropertyPlan, MapPlan, ModulePlan, PanelPlan, SetupStackPlan, Slot, TabPlan, build)
from warcodex.exporters.vassal.catalog import VASSAL_VERSION
from warcodex.exporters.vassal.encoder import (
    CTRL, CTRL_SHIFT, Trait, basic_piece, clean_text, key_list, keystroke, piece_definition, string_array, trait)
from warcodex.dsl.hexgrid import vassal_grid_spec
from warcodex.exporters.vassal.svg import to_png
from warcodex.outputs import OutputError

HOLDING_MAP = "Holding boxes"
ELIMINATED = "Eliminated"
ELIMINATED_BOX = "eliminated"  # the engine's box of eliminated units


def box_title(box: str) -> str:
    """The Region of the holding map for an off-map box of the rules."""
    return ELIMINATED if box == ELIMINATED_BOX else box.replace("_", " ").capitalize()


@dataclass
class ExportOptions:
    hex_size: float = 44.0  # hex circumradius in board pixels
    counter_size: int = 56
    include_aids: bool = True
    boxes: tuple[str, ...] = ()  # off-map boxes the holding map must have besides the rules' own (a saved position's)


@dataclass
class Module:
    data: gamedata.GameData
    plan: ModulePlan
    files: dict[str, bytes]  # zip entry name -> content, in zip order
    warnings: list[str] = field(default_factory=list)
    svgs: dict[str, bytes] = field(default_factory=dict)  # image name -> its SVG source (docs, tests)
    location_names: dict[str, str] = field(default_factory=dict)  # our location id -> VASSAL location name
    box_regions: dict[str, str] = field(default_factory=dict)  # an off-map box of the rules -> its Region
    reinforcements: list = field(default_factory=list)  # (gamedata.Reinforcement, its Region), turn order
    options: ExportOptions = field(default_factory=ExportOptions)

    def zip_bytes(self) -> bytes:
        import io

        buf = io.BytesIO()
        epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "1767225600"))  # reproducible zips
        stamp = time.gmtime(max(epoch, 315532800))[:6]
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            for name, content in self.files.items():
                info = zipfile.ZipInfo(name, date_time=stamp)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                z.writestr(info, content)
        return buf.getvalue()

    def write(self, path: str | Path) -> Path:
        """Write the .vmod atomically (a temp file in the same folder, then os.replace)."""
        from warcodex.outputs import write_atomic

        path = Path(path)
        write_atomic(path, self.zip_bytes())
        return path


def slug(text: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    if not s or not text.isascii():
        s = (s + "_" if s else "") + hashlib.sha1(text.encode()).hexdigest()[:6]
    return s[:60]


class _Images:
    def __init__(self) -> None:
        self.png: dict[str, bytes] = {}
        self.svg: dict[str, bytes] = {}

    def add(self, stem: str, svg: bytes) -> str:
        same = next((n for n, s in self.svg.items() if s == svg), None)
        if same is not None:  # one image for identical art
            return same
        name = slug(stem) + ".png"
        if name not in self.png:
            self.png[name] = to_png(svg)
            self.svg[name] = svg
        return name


class _Pieces:
    """Piece definitions: prototypes, unit counters and markers, with unique gpids."""

    def __init__(self, data: gamedata.GameData, images: _Images, size: int) -> None:
        self.data, self.images, self.size = data, images, size
        self.gpid = 0
        self.sides = {s.name: s for s in data.sides}
        # VASSAL keeps the last prototype of a name: two types with one label get their names too
        labels = [ut.label for ut in data.unit_types]
        self.shared_labels = {label for label in labels if labels.count(label) > 1}

    def next_gpid(self) -> int:
        self.gpid += 1
        return self.gpid

    # ---------------------------------------------------------------- prototypes
    @staticmethod
    def side_proto(side: gamedata.SideInfo) -> str:
        return f"Side: {side.label}"

    def type_proto(self, ut: gamedata.UnitType) -> str:
        return f"Type: {ut.label} ({ut.name})" if ut.label in self.shared_labels else f"Type: {ut.label}"

    def prototypes(self) -> list[tuple[str, str, str]]:
        empty = basic_piece("", "", "")
        out = [
            ("Unit", "Report step changes; delete", piece_definition([
                trait("report;", [key_list([keystroke(70, CTRL), keystroke(70, CTRL_SHIFT)]),
                                  "$location$: $oldPieceName$ -> $newPieceName$", "", "", "Report step changes",
                                  False], "-1"),
                trait("delete;", ["Delete", keystroke(68, CTRL), "Delete"]),
                empty])),
            ("Marker", "A marker counter", piece_definition([
                trait("delete;", ["Delete", keystroke(68, CTRL), "Delete"]),
                empty])),
        ]
        for side in self.data.sides:
            out.append((self.side_proto(side), f"Side {side.name}", piece_definition([
                _marker(["side", "side_name"], [side.label, side.name]), empty])))
        for ut in self.data.unit_types:
            names = ["unit_type", "unit_type_name", "classes"]
            values = [ut.label, ut.name, " ".join(ut.classes)]
            for k, v in ut.values[ut.max_steps].items():
                if isinstance(v, (int, str, bool)) or type(v).__name__ == "Fraction":
                    names.append(k)
                    values.append(gamedata.value_text(v))
            out.append((self.type_proto(ut), f"Unit type {ut.name}", piece_definition([
                _marker(names, values), empty])))
        return out

    # ---------------------------------------------------------------- units
    def kind(self, ut: gamedata.UnitType) -> str:
        """The NATO symbol of a unit type's counters (and its palette group)."""
        class_words = ut.classes + [self.data.engine.entities[c].label or c for c in ut.classes
                                    if c in self.data.engine.entities]
        return counters.nato_kind(class_words, ut.name, ut.label)

    def unit_image(self, ut: gamedata.UnitType, side: gamedata.SideInfo, label: str, steps: int) -> str:
        kind = self.kind(ut)
        svg = counters.unit_counter_svg(name=label, kind=kind, color=side.color, factors=ut.factors(steps),
                                        steps=steps, max_steps=ut.max_steps, size=self.size,
                                        provisional=ut.provisional, type_label=ut.label)
        return self.images.add(f"unit {side.name} {ut.name} {label} {steps}", svg)

    def unit_slot(self, type_name: str, side_name: str, label: str | None = None, steps: int | None = None) -> Slot:
        ut = self.data.unit_type(type_name)
        side = self.sides[side_name]
        label = clean_text(label or ut.label)
        steps = ut.max_steps if steps is None else max(1, min(steps, ut.max_steps))
        gpid = self.next_gpid()
        traits: list[Trait] = []
        image = ""
        if ut.max_steps > 1:
            levels = list(range(ut.max_steps, 0, -1))
            imgs = [self.unit_image(ut, side, label, s) for s in levels]
            names = ["" if s == ut.max_steps else f"+ ({s} of {ut.max_steps} steps: {ut.factors(s)})" for s in levels]
            traits.append(_layer("Steps", imgs, names, level=ut.max_steps - steps + 1,
                                 up=("Lose step", keystroke(70, CTRL)), down=("Restore step", keystroke(70, CTRL_SHIFT)),
                                 loop=False))
        else:
            image = self.unit_image(ut, side, label, 1)
        traits += [trait("prototype;", [self.type_proto(ut)]), trait("prototype;", [self.side_proto(side)]),
                   trait("prototype;", ["Unit"]), basic_piece(image, label, gpid)]
        return Slot(label, gpid, self.size, self.size, piece_definition(traits), unit=(type_name, side_name, label))

    # ---------------------------------------------------------------- markers
    def marker_slot(self, name: str, image: str) -> Slot:
        gpid = self.next_gpid()
        return Slot(name, gpid, self.size, self.size, piece_definition([
            trait("prototype;", ["Marker"]), basic_piece(image, name, gpid)]))

    def unit_marker_slot(self, marker: str, label: str) -> Slot:
        img = self.images.add(f"marker {marker}", counters.marker_svg(counters.wrap_words(label), self.size))
        slot = self.marker_slot(label, img)
        slot.marker = marker
        return slot

    def turn_marker_slot(self) -> Slot:
        img = self.images.add("marker game turn", counters.marker_svg(["GAME", "TURN"], self.size, bg="#ffffff"))
        return self.marker_slot("Game Turn", img)

    def state_marker_slot(self, var: gamedata.StateVar) -> Slot:
        title = var.name.replace("_", " ").capitalize()
        imgs = [self.images.add(f"marker {var.name} {v}", counters.marker_svg(
            counters.wrap_words(var.labels.get(v, v)), self.size, bg="#cfe3f5", title=title)) for v in var.values]
        names = [f"{title}: {var.labels.get(v, v)}" for v in var.values]
        level = var.values.index(var.initial) + 1 if var.initial in var.values else 1
        gpid = self.next_gpid()
        return Slot(title, gpid, self.size, self.size, piece_definition([
            _layer(title, imgs, names, level=level, up=(f"Next {title.lower()}", keystroke(70, CTRL)),
                   down=(f"Previous {title.lower()}", keystroke(70, CTRL_SHIFT)), loop=True),
            trait("prototype;", ["Marker"]), basic_piece("", title, gpid)]))

    def side_var_slot(self, var: gamedata.SideVar, side: gamedata.SideInfo) -> Slot:
        text = var.name.upper() if len(var.name) <= 4 else var.name.replace("_", " ")
        img = self.images.add(f"marker {var.name} {side.name}", counters.marker_svg(
            [text], self.size, bg=side.color, title=side.label, round_=True))
        return self.marker_slot(f"{side.label} {text}", img)


def _marker(names: list[str], values: list[str]) -> Trait:
    """Marker trait: TYPE `mark;` + a `,`-list of property names, STATE the `,`-list of values
    (`VASSAL/counters/Marker.java`, note §8.6)."""
    return Trait("mark;" + string_array([clean_text(n) for n in names]), string_array([clean_text(v) for v in values]))


def _layer(name: str, images: list[str], level_names: list[str], *, level: int, up: tuple[str, str],
           down: tuple[str, str], loop: bool) -> Trait:
    """Layer (Embellishment, `emb2;`): the 33 fields of note §8.6, version field 25 = 1,
    always active, stepped with the up/down keystrokes (fields 28/29)."""
    fields = ["", CTRL, "", up[0], CTRL, "", down[0], CTRL, "", "", "", "1", False, 0, 0,
              string_array(images), string_array([clean_text(n) for n in level_names]), loop, clean_text(name),
              "", "", False, "", 1, 1, True, "", up[1], down[1], clean_text(name), 1.0, "", True]
    assert len(fields) == 33
    return trait("emb2;", fields, str(level))


# ============================================================================ the module
class ExportRefused(OutputError):
    """A game the VASSAL exporter cannot draw (a board too large for a module); the message says
    why and what to change."""


def build_module(game, scenario: str | None = None, options: ExportOptions | None = None) -> Module:
    options = options or ExportOptions()
    data = gamedata.load(game, scenario)
    images = _Images()
    pieces = _Pieces(data, images, options.counter_size)
    warnings = list(data.warnings)
    board = data.board
    files: dict[str, bytes] = {}

    # ---- the main board
    location_names: dict[str, str] = {}  # our location id -> VASSAL location (hex id, Region name)
    on_holding: set[str] = set()  # our locations that are Regions of the holding-boxes map
    if board.kind == "hex":
        try:
            board_svg.check_drawable(board, options.hex_size)
            img = board_svg.hex_board_svg(board, data.engine, options.hex_size, data.title)
        except board_svg.BoardTooLarge as exc:
            raise ExportRefused(f"cannot export {data.title} to VASSAL: {exc}") from None
        spec = vassal_grid_spec(board.grid, options.hex_size)
        grid_attrs = dict(spec.grid)
        ox, oy = img.offset  # an image cut to the sheets in play: the grid's origin moves with it
        grid_attrs["x0"] = str(int(grid_attrs["x0"]) - ox)
        grid_attrs["y0"] = str(int(grid_attrs["y0"]) - oy)
        board_image = images.add(f"board {board.name}", img.svg)
        main = MapPlan(board.name, board.name, board_image, img.width, img.height,
                       hex_grid=(grid_attrs, spec.numbering))
        location_names = {loc: loc for loc in board_svg.hex_locations(board)}
    else:
        layout = board_svg.area_layout(board)
        img = board_svg.area_board_svg(board, data.engine, layout, {s.name: s.color for s in data.sides}, data.title)
        board_image = images.add(f"board {board.name}", img.svg)
        display = {a: clean_text(board.attr(a, "name", a)) for a in board.locations}
        unique = len(set(display.values())) == len(display) and all(display.values())
        location_names = display if unique else {a: a for a in board.locations}
        main = MapPlan(board.name, board.name, board_image, img.width, img.height,
                       regions={location_names[a]: layout.points[a] for a in board.locations})

    # ---- holding boxes: the map's off-map boxes, reinforcements by turn, units off the map at
    # start, eliminated units; each a Region of a second map
    box_titles: dict[str, str] = {}

    def box_region(title: str, key: str | None = None) -> str:
        name = title if title not in box_titles or box_titles[title] == (key or title) else f"{title} ({key or 2})"
        box_titles.setdefault(name, key or title)
        return name

    for loc in board.locations:
        if board_svg.is_box(board, loc):
            location_names[loc] = box_region(clean_text(board.attr(loc, "name", loc)) or loc, loc)
            on_holding.add(loc)
    box_units: dict[str, list[gamedata.PlacedUnit]] = {}
    waiting: list[tuple[gamedata.Reinforcement, str]] = []  # each reinforcement and its turn's box
    for r in sorted(data.reinforcements, key=lambda r: (r.turn is None, r.turn or 0)):
        key = box_region(f"Turn {r.turn}" if r.turn is not None else "Conditional")
        box_units.setdefault(key, []).append(r.unit)
        waiting.append((r, key))
    box_regions: dict[str, str] = {}  # an off-map box of the rules -> its Region
    for box, units in data.boxes.items():
        box_regions[box] = box_region(box_title(box), box)
        box_units.setdefault(box_regions[box], []).extend(units)
    for box in [*data.box_names, *options.boxes]:  # the boxes the rules (or a saved position) put units in
        if box != ELIMINATED_BOX and box not in box_regions:
            box_regions[box] = box_region(box_title(box), box)
    box_regions[ELIMINATED_BOX] = box_region(ELIMINATED)

    # ---- at-start stacks (the scenario set-up: each location's own markers - control,
    # fortifications - of declared markers at the bottom, the units on them, the units' markers on top)
    holding_stacks: list[SetupStackPlan] = []
    marker_labels = dict(data.markers)
    marked = [loc for loc in sorted(data.location_markers) if loc not in data.at_start and loc in location_names]
    for loc in [*data.at_start, *marked]:
        units = data.at_start.get(loc, [])
        slots = [pieces.unit_marker_slot(m, marker_labels[m]) for m in data.location_markers.get(loc, ())
                 if m in marker_labels]
        slots += [pieces.unit_slot(u.type, u.side, u.label, u.steps) for u in units]
        slots += [pieces.unit_marker_slot(m, marker_labels.get(m, m)) for u in units for m in u.markers]
        if not slots:
            continue
        shown = [u.label for u in units] or [marker_labels.get(m, m) for m in data.location_markers[loc]]
        stack = SetupStackPlan(f"{location_names[loc]}: " + ", ".join(shown), location_names[loc], slots)
        (holding_stacks if loc in on_holding else main.stacks).append(stack)

    names = list(box_titles)
    bl = board_svg.boxes_layout(names, options.counter_size * 3.2, options.counter_size * 2.0)
    titles = {n: (f"{n} reinforcements" if n.startswith("Turn ") else n) for n in names}
    bimg = board_svg.boxes_svg(bl, titles)
    holding = MapPlan(HOLDING_MAP, HOLDING_MAP, images.add("board holding boxes", bimg.svg), bimg.width, bimg.height,
                      regions=bl.points, launch=True, button=HOLDING_MAP)
    holding.stacks += holding_stacks
    for name, units in box_units.items():
        holding.stacks.append(SetupStackPlan(name, name, [pieces.unit_slot(u.type, u.side, u.label, u.steps)
                                                          for u in units]))
    maps = [main, holding]
    # ---- decks of cards: the piles on a card table, each side's hand in a private window
    from warcodex.exporters.vassal.cards import deck_maps

    maps += deck_maps(data, images, pieces.next_gpid, data.sides)

    # ---- palette: a tab per side (one counter per unit type, wrapped into a grid, a tab per group
    # of arms when the side has many), the other sides' types, and the markers
    tabs = []
    for side in data.sides:
        own = data.palette.get(side.name, [])
        groups = palette.arrange([(t, pieces.kind(data.unit_type(t))) for t in own])
        panels = [PanelPlan(title or f"{side.label} units", [pieces.unit_slot(t, side.name) for t in types],
                            columns=palette.COLUMNS) for title, types in groups]
        others = [u.name for u in data.unit_types if u.name not in own]
        if others:  # bought or captured units, other sides' types: available, but out of the way
            panels.append(PanelPlan(_others_title(data, side.name, others), [pieces.unit_slot(t, side.name)
                                                                           for t in others],
                                    columns=palette.COLUMNS, own=False))
        if panels:
            tabs.append(TabPlan(side.label, panels))
    marker_slots = [pieces.turn_marker_slot()]
    marker_slots += [pieces.unit_marker_slot(n, lab) for n, lab in data.markers]
    marker_slots += [pieces.state_marker_slot(v) for v in data.state_vars if v.type == "name" and len(v.values) > 1]
    for v in data.side_vars:
        if v.type in ("int", "num"):
            marker_slots += [pieces.side_var_slot(v, s) for s in data.sides]
    tabs.append(TabPlan("Markers", [PanelPlan("Markers", marker_slots, columns=palette.COLUMNS)]))

    # ---- global properties: turn, state variables (weather...), side variables (VP...)
    props = [GlobalPropertyPlan("Turn", str(data.first_turn), "Game turn (kept by the turn tracker)", True,
                                data.first_turn, data.last_turn if data.last_turn is not None else data.first_turn + 99)]
    for v in data.state_vars:
        desc = f"{v.type} variable" + (": " + ", ".join(v.values) if v.values else "")
        props.append(GlobalPropertyPlan(v.name, v.initial, desc, v.type == "int" and _is_int(v.initial)))
    for v in data.side_vars:
        for s in data.sides:
            value = v.initial.get(s.name, "")
            props.append(GlobalPropertyPlan(f"{v.name}_{s.name}", value, f"{s.label} {v.name}",
                                            v.type == "int" and _is_int(value)))

    # ---- dice
    dice = [DicePlan(d.text(), d.count, d.sides, f"Roll {d.text()}", d.keep, d.keep_highest) for d in data.dice]

    # ---- charts: the player aids if that exporter is installed, else our table images
    chart_plans: list[ChartPlan] = []
    if options.include_aids:
        chart_plans, aid_files, aid_warnings = _aid_charts(data, images)
        files.update(aid_files)
        warnings += aid_warnings
    if not chart_plans:
        for c in charts.game_charts(data.game, data.engine):
            chart_plans.append(ChartPlan(c.title, images.add(f"chart {c.name}", c.svg)))
    sheet_items = counter_sheet_items(maps, tabs, images.svg)
    if sheet_items:
        sheet = counters.sheet_svg(sheet_items, options.counter_size, columns=8, title=f"{data.title}: counters")
        chart_plans.append(ChartPlan("Counter sheet", images.add("chart counter sheet", sheet)))

    # ---- help
    help_files = [("About this module", "help/about.html"), ("Rules coverage", "help/coverage.html")]
    files["help/about.html"] = _about_html(data, location_names, warnings)
    files["help/coverage.html"] = _coverage_html(data)

    description = f"{data.title}, scenario {data.scenario_label}" + (f"; {data.edition}" if data.edition else "") + \
        f". Generated by Warcodex from the rules (fingerprint {data.engine.fingerprint})."
    plan = ModulePlan(
        name=data.title, version=module_version(data), description=description, sides=[s.label for s in data.sides],
        prototypes=pieces.prototypes(), maps=maps, palette=tabs, global_properties=props, dice=dice,
        tracker=tracker.segments(data.steps, data.first_turn, data.last_turn), charts=chart_plans,
        help_files=help_files)
    ordered: dict[str, bytes] = {"moduledata": moduledata(plan), "buildFile.xml": build(plan)}
    for name, png in images.png.items():
        ordered["images/" + name] = png
    ordered.update(files)
    return Module(data, plan, ordered, warnings, dict(images.svg), location_names, box_regions, waiting, options)


def _slot_images(slot: Slot) -> list[tuple[str, str]]:
    """(image, caption) for every face of a slot's piece: each Layer level, or the piece image."""
    from warcodex.exporters.vassal.encoder import decode_piece, parse_string_array, trait_fields

    for t in decode_piece(slot.text).traits:
        if t.prefix == "emb2;":
            fields = trait_fields(t)
            imgs = parse_string_array(fields[15])
            levels = parse_string_array(fields[16]) + [""] * len(imgs)
            out = []
            for img, level in zip(imgs, levels):
                caption = slot.entry_name
                steps = re.search(r"(\d+) of (\d+) step", level)
                if level.startswith("+") and steps:
                    caption += f" ({steps.group(1)}/{steps.group(2)} steps)"
                elif level and not level.startswith("+"):
                    caption = level
                out.append((img, caption))
            return out
        if t.prefix == "piece;" and trait_fields(t)[2]:
            return [(trait_fields(t)[2], slot.entry_name)]
    return []


def _factors_note(data: gamedata.GameData) -> str:
    """What the numbers at the bottom of a counter are: attack-defense-move, and what the types that
    declare their own `face:` print instead (an HQ's command range and movement)."""
    faces: dict[str, list[str]] = {}
    for ut in data.unit_types:
        if ut.face is not None:
            faces.setdefault(ut.face_words(), []).append(ut.label)
    note = "Factors are attack-defense-move."
    for words, labels in faces.items():
        who = ", ".join(labels[:4]) + (f" and {len(labels) - 4} more" if len(labels) > 4 else "")
        note += f" {who}: {words or 'no factors'}."
    return note


def _others_title(data: gamedata.GameData, side: str, others: list[str]) -> str:
    """The tab of the types a side does not own, named by whose they are ("Soviet types"), so that
    it is not taken for the "Other" group of arms."""
    owners = [s.label for s in data.sides if s.name != side and any(t in data.palette.get(s.name, []) for t in others)]
    unowned = [t for t in others if not any(t in data.palette.get(s.name, []) for s in data.sides)]
    if len(owners) == 1 and not unowned:
        return f"{owners[0]} types"
    return "Other sides' types" if owners else "Unassigned types"


def counter_sheet_items(maps: list[MapPlan], tabs: list[TabPlan], svgs: dict[str, bytes]) -> list[tuple[bytes, str]]:
    """The counter sheet: every unit of the set-up and the holding boxes (each step), the palette's
    own unit types, then the markers (each face); each image once."""
    slots = [s for m in maps for st in m.stacks for s in st.slots]
    slots += [s for tab in tabs for p in tab.panels if p.own for s in p.slots]
    seen: set[str] = set()
    units, markers = [], []
    for slot in slots:
        for img, caption in _slot_images(slot):
            if img in seen or img not in svgs:
                continue
            seen.add(img)
            (units if img.startswith("unit_") else markers).append((svgs[img], caption))
    return units + markers


def module_version(data: gamedata.GameData) -> str:
    """The game's version (or the rules' fingerprint) and the scenario: VASSAL keeps a module's map
    tiles under its name and version, and takes them as fresh when newer than the image in the zip
    (TilingHandler.isFresh; our zips carry one fixed date), so two scenarios' modules of one
    version would show each other's holding boxes."""
    return f"{data.version}-{data.scenario}"


def _is_int(text: str) -> bool:
    return bool(re.fullmatch(r"-?[0-9]+", text or ""))


def moduledata(plan: ModulePlan, saved_ms: int | None = None) -> bytes:
    """`moduledata` (AbstractMetaData.save + ModuleMetaData.addElements, note §3)."""
    root = etree.Element("data", version="1")
    for tag, text in (("version", plan.version), ("extra1", ""), ("extra2", ""), ("VassalVersion", VASSAL_VERSION),
                      ("dateSaved", str(saved_ms if saved_ms is not None else int(time.time() * 1000))),
                      ("description", plan.description), ("name", plan.name)):
        etree.SubElement(root, tag).text = text
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=False, pretty_print=True)


# ============================================================================ help pages
def _page(title: str, *body) -> bytes:
    # HTML 3.2-level markup: VASSAL shows help files in a Swing JEditorPane
    doc = H.HTML(H.HEAD(H.TITLE(title)), H.BODY(H.H2(title), *body))
    # ASCII with character references: JEditorPane guesses the charset of a help page
    return etree.tostring(doc, method="html", encoding="us-ascii", pretty_print=True)


def _table(header: list[str], rows: list[list[str]]):
    return H.TABLE({"border": "1", "cellpadding": "3", "cellspacing": "0"},
                   H.TR(*[H.TH(h) for h in header]), *[H.TR(*[H.TD(str(c)) for c in r]) for r in rows])


def _step_text(s: gamedata.Step) -> str:
    """A phase of the sequence with when this scenario plays it, and the condition as written."""
    text = tracker.phase_text(s)
    if s.turns is not None:
        text += f" - turns {_runs(s.turns)}" if s.turns else " - not played in this scenario"
    if s.maybe_turns and s.condition:
        text += f" - if applicable: {s.condition}"
    elif s.condition and s.turns is None:
        text += f" - when {s.condition}"
    return text


def _runs(turns: tuple[int, ...]) -> str:
    """1, 3, 5-9: a set of turns as ranges."""
    out: list[str] = []
    start = prev = None
    for t in sorted(turns) + [None]:
        if t is not None and prev is not None and t == prev + 1:
            prev = t
            continue
        if start is not None:
            out.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = t
    return ", ".join(out)


def _about_html(data: gamedata.GameData, names: dict[str, str], warnings: list[str]) -> bytes:
    turns = f"turns {data.first_turn}-{data.last_turn}" if data.last_turn is not None else f"from turn {data.first_turn}"
    parts = [
        H.P(f"Scenario {data.scenario_label} ({data.scenario}), {turns}. "
            + (f"Rules edition: {data.edition}. " if data.edition else "")
            + f"Module version {module_version(data)}; generated by Warcodex from the rules, which are the authority."),
        H.H3("Sequence of play (the turn tracker's phases)"),
        H.OL(*[H.LI(_step_text(s)) for s in data.steps]) if data.steps
        else H.P("The rules declare no sequence of play."),
        H.H3("Set-up"),
        H.P(f"{sum(len(u) for u in data.at_start.values())} units in {len(data.at_start)} locations are placed at the "
            "start (at-start stacks of the map)."),
        H.H3("Reinforcements"),
    ]
    if data.reinforcements:
        parts.append(H.P("Found by running the scenario's turn-start rules from the set-up position; they wait in "
                         "the Holding boxes window, one box per turn. Where a rule depends on play, the entry "
                         "location shown is only where it would place the unit if nothing had moved."))
        parts.append(_table(["turn", "unit", "side", "type", "enters at", "rule"], [
            [r.turn if r.turn is not None else "conditional", r.unit.label, data.side(r.unit.side).label,
             data.unit_type(r.unit.type).label, names.get(r.location, r.location or "-"), r.rule]
            for r in data.reinforcements]))
    else:
        parts.append(H.P("None found in the scenario's turn-start rules."))
    parts += [
        H.H3("Counters"),
        H.P(_factors_note(data) + " Pips show steps (filled = remaining); a multi-step unit's steps are a "
            "layer: Ctrl+F loses a step, Ctrl+Shift+F restores one. A red * marks a unit type whose values are "
            "provisional in the rules (not the published numbers)."),
        H.H3("Properties"),
        H.P("Global properties: Turn (kept by the turn tracker), Phase, "
            + ", ".join([v.name for v in data.state_vars] + [f"{v.name}_<side>" for v in data.side_vars])
            + ". Dice: " + ", ".join(d.text() for d in data.dice) + "."),
    ]
    if warnings:
        parts += [H.H3("Export notes"), H.UL(*[H.LI(w) for w in warnings])]
    return _page(f"{data.title}: about this module", *parts)


def _coverage_html(data: gamedata.GameData) -> bytes:
    from warcodex.dsl.coverage import coverage, summary

    report = coverage(data.game)
    counts = summary(report)
    rows = [["§" + c.number, "\u00a0\u00a0" * c.depth + c.title, c.status.replace("_", " "),
             (c.note or "") + ("; " if c.note and c.cited_by else "") + "; ".join(c.cited_by[:3])
             + (f"; +{len(c.cited_by) - 3} more" if len(c.cited_by) > 3 else "")] for c in report]
    return _page(f"{data.title}: rules coverage",
                 H.P(", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items()) + " rulebook sections."),
                 _table(["section", "title", "status", "encoded by"], rows))


# ============================================================================ player aids
def _aid_charts(data: gamedata.GameData, images: _Images) -> tuple[list[ChartPlan], dict[str, bytes], list[str]]:
    """The player aid of warcodex.exporters.aids, when that package is installed: its HTML page as
    an HtmlChart (made Swing-friendly: VASSAL shows it in a JEditorPane, HTML 3.2 with a little
    CSS, so style sheets and scripts are dropped and each inline SVG chart becomes an <img> of a
    PNG in images/, which HtmlChart loads from the module), and each of its charts as a Chart tab.
    Any failure falls back to our own chart images, with a note."""
    try:
        from warcodex.exporters.aids import build_aid, render_html
        from warcodex.exporters.aids.render import chart_svgs
    except ImportError:
        return [], {}, []
    try:
        aid = build_aid(data.engine.base_game, scenario=data.scenario, engine=data.engine)
        page = render_html(aid)
        svgs = chart_svgs(aid)
    except Exception as exc:  # noqa: BLE001 - another exporter's failure must not stop this one
        return [], {}, [f"player aids not included ({type(exc).__name__}: {exc}); drew the tables instead"]
    html_bytes = _swing_html(page, images)
    plans = [ChartPlan("Player aid", "aids/aids.html", html=True)]
    for key, svg_text in svgs.items():
        name = images.add(f"aid chart {key}", svg_text.encode("utf-8"))
        plans.append(ChartPlan(f"Chart: {key.replace('_', ' ')}", name))
    return plans, {"aids/aids.html": html_bytes}, []


_SWING_CSS = ("background", "background-color", "color", "text-align", "font-weight", "font-style")


def _swing_html(page: str, images: _Images) -> bytes:
    import lxml.html

    doc = lxml.html.document_fromstring(page)
    for bad in doc.xpath("//style | //script | //link | //meta"):
        bad.drop_tree()
    n = 0
    for svg_el in doc.xpath("//*[local-name()='svg']"):
        if svg_el.getparent() is None or any(a.xpath("local-name()") == "svg" for a in svg_el.iterancestors()):
            continue
        n += 1
        clone = etree.fromstring(lxml.html.tostring(svg_el))
        if clone.tag == "svg":  # the HTML parser drops the namespace: put it back for cairosvg
            clone = _with_svg_namespace(clone)
        name = images.add(f"aid figure {n}", etree.tostring(clone))
        img = lxml.html.Element("img", src=name, alt=f"chart {n}")
        img.tail = svg_el.tail
        svg_el.getparent().replace(svg_el, img)
    for el in doc.iter():
        if not isinstance(el.tag, str):
            continue
        style = el.get("style")
        if style is not None:
            kept = [d.strip() for d in style.split(";")
                    if ":" in d and d.split(":", 1)[0].strip().lower() in _SWING_CSS]
            if kept:
                el.set("style", "; ".join(kept))
            else:
                del el.attrib["style"]
    return lxml.html.tostring(doc, encoding="us-ascii", method="html")  # non-ASCII as character references


def _with_svg_namespace(el: etree._Element) -> etree._Element:
    from warcodex.exporters.vassal.svg import SVG_NS

    text = etree.tostring(el).decode("utf-8")
    if "xmlns=" not in text.split(">", 1)[0]:
        text = text.replace("<svg", f'<svg xmlns="{SVG_NS}"', 1)
    return etree.fromstring(text.encode("utf-8"))


# ============================================================================ preview
def setup_preview_svg(module: Module) -> bytes:
    """The main board with its at-start stacks drawn where VASSAL puts them: each SetupStack's
    location resolved through the grid as written in buildFile.xml (VassalHexNumbering for hex
    grids, the Region origin for area maps), pieces offset like StackMetrics' unexpanded stacks.
    For the docs and for looking at the result without VASSAL."""
    from warcodex.dsl.hexgrid import VassalHexNumbering
    from warcodex.exporters.vassal.encoder import decode_piece, parse_string_array, trait_fields
    from warcodex.exporters.vassal.svg import Svg

    main = module.plan.maps[0]
    board_svg_bytes = module.svgs[main.image]
    board_el = etree.fromstring(board_svg_bytes)
    out = Svg(main.width, main.height)
    out.root.append(board_el)
    numbering = VassalHexNumbering(*main.hex_grid) if main.hex_grid else None
    for stack in main.stacks:
        x, y = numbering.get_location(stack.location) if numbering else main.regions[stack.location]
        for i, slot in enumerate(stack.slots):
            piece = decode_piece(slot.text)
            image = ""
            for t in piece.traits:
                if t.prefix == "emb2;":
                    image = parse_string_array(trait_fields(t)[15])[int(t.state) - 1]
                    break
                if t.prefix == "piece;":
                    image = trait_fields(t)[2]
            if not image:
                continue
            el = etree.fromstring(module.svgs[image])
            el.set("x", str(x - slot.width / 2 + 3 * i))
            el.set("y", str(y - slot.height / 2 - 3 * i))
            out.root.append(el)
    return out.tostring()
