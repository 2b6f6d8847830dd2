"""buildFile.xml, built with lxml from a `ModulePlan` (never by string concatenation).

Every element goes through `Catalog.check` (tag, attributes, value types, parent), so a typo in a
tag or an attribute fails here, at export time, instead of being ignored by VASSAL at load time.
Piece definitions are element text (never CDATA, never attributes: note §4).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from warcodex.exporters.vassal.catalog import BOARD, GRID, MAP, VASSAL_VERSION, WIDGET, B, Catalog, M

MAP_HELPERS = ("ForwardToKeyBuffer", "Scroller", "ForwardToChatter", "MenuDisplayer", "MapCenterer",
               "StackExpander", "PieceMover", "KeyBufferer")


@dataclass
class Slot:
    """A PieceSlot: one piece, in a palette or an at-start stack."""

    entry_name: str
    gpid: int
    width: int
    height: int
    text: str  # the piece definition (encoder.piece_definition)
    # what the piece stands for (not written to buildFile.xml; saved games find pieces by it)
    unit: tuple[str, str, str] | None = None  # (unit type, side, label)
    marker: str | None = None  # a marker's name
    card: str | None = None  # a card's name


@dataclass
class SetupStackPlan:
    name: str
    location: str  # grid location name: a hex id or a Region name
    slots: list[Slot]


@dataclass
class DeckPlan:
    """A VASSAL deck (DrawPile) at a board position, with its cards (CardSlots)."""

    name: str
    x: int
    y: int
    width: int
    height: int
    cards: list[Slot]
    face_down: bool = False
    # a card leaving a face-down deck is shown to everybody (a chit drawn from the cup) or stays
    # hidden from the others (a card drawn into a hand, a set-aside chit taken back by its owner)
    drawn_face_up: bool = False
    shuffle: bool = False
    reshuffle_target: str | None = None  # "send to another deck": the discard pile back into the draw pile
    # what it holds in the rules (saved games fill it from a game state): a deck's pile, or a side's hand
    deck: str | None = None
    pile: str | None = None
    hand: str | None = None


@dataclass
class MapPlan:
    name: str
    board: str
    image: str
    width: int
    height: int
    hex_grid: tuple[dict[str, str], dict[str, str]] | None = None  # HexGrid, HexGridNumbering attributes
    regions: dict[str, tuple[int, int]] | None = None  # RegionGrid: name -> origin
    stacks: list[SetupStackPlan] = field(default_factory=list)
    launch: bool = False  # a toolbar button opens it (secondary maps)
    button: str = ""
    decks: list[DeckPlan] = field(default_factory=list)
    hand_side: str | None = None  # a PlayerHand: a private window of this side


@dataclass
class PanelPlan:
    """A grid of piece slots, `columns` wide (VASSAL's fixed-cell PanelWidget)."""

    name: str
    slots: list[Slot]
    columns: int = 6
    own: bool = True  # False: other sides' types in this side's colours (not on the counter sheet)


@dataclass
class TabPlan:
    """A palette tab: its one panel, or a tab per panel inside it."""

    name: str
    panels: list[PanelPlan]


@dataclass
class GlobalPropertyPlan:
    name: str
    initial: str
    description: str = ""
    numeric: bool = False
    min: int | None = None
    max: int | None = None


@dataclass
class DicePlan:
    name: str
    n_dice: int
    n_sides: int
    tooltip: str
    keep: int | None = None  # keep the `keep` highest (or lowest) dice, the rest are only shown
    keep_highest: bool = True


@dataclass
class ChartPlan:
    name: str
    file: str  # an image name (Chart) or an archive path (HtmlChart)
    html: bool = False


@dataclass
class ModulePlan:
    name: str
    version: str
    description: str
    sides: list[str]
    prototypes: list[tuple[str, str, str]]  # name, description, piece definition
    maps: list[MapPlan]
    palette: list[TabPlan]
    global_properties: list[GlobalPropertyPlan]
    dice: list[DicePlan]
    tracker: list  # tracker.Segment: the turn tracker's levels, in turn order
    charts: list[ChartPlan]
    help_files: list[tuple[str, str]]  # title, archive path

    def all_slots(self) -> list[Slot]:
        out = [s for m in self.maps for st in m.stacks for s in st.slots]
        out += [s for m in self.maps for d in m.decks for s in d.cards]
        out += [s for tab in self.palette for p in tab.panels for s in p.slots]
        return out


class _Builder:
    def __init__(self) -> None:
        self.catalog = Catalog()

    def el(self, parent: etree._Element | None, tag: str, content: str | None = None, /,
           **attrs: object) -> etree._Element:
        """An element checked against the catalog; `content` is its text (piece definitions)."""
        values = {k: _text(v) for k, v in attrs.items()}
        self.catalog.check(tag, values, parent.tag if parent is not None else None)
        e = etree.Element(tag, values) if parent is None else etree.SubElement(parent, tag, values)
        if content is not None:
            e.text = content
        return e


def _text(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def build(plan: ModulePlan) -> bytes:
    b = _Builder()
    slots = plan.all_slots()
    gpids = [s.gpid for s in slots]
    if len(set(gpids)) != len(gpids):
        raise ValueError("duplicate PieceSlot gpids")
    root = b.el(None, B + "GameModule", name=plan.name, version=plan.version, description=plan.description,
                VassalVersion=VASSAL_VERSION, ModuleOther1="", ModuleOther2="",
                nextPieceSlotId=max(gpids, default=0) + 1)
    b.el(root, M + "BasicCommandEncoder")
    doc = b.el(root, M + "Documentation")
    for title, path in plan.help_files:
        b.el(doc, M + "documentation.HelpFile", title=title, fileName=path, fileType="archive")
    roster = b.el(root, M + "PlayerRoster", buttonText="Retire", buttonToolTip="Switch sides, become observer",
                  buttonKeyStroke="")
    for side in plan.sides:
        entry = etree.SubElement(roster, "entry")  # PlayerRoster reads <entry> children itself
        entry.text = side
    b.el(root, M + "GlobalOptions", autoReport="Always", centerOnMove="Use Preferences Setting",
         nonOwnerUnmaskable="Use Preferences Setting", playerIdFormat="$PlayerName$")
    b.el(root, M + "Chatter")
    b.el(root, M + "KeyNamer")
    props = b.el(root, M + "properties.GlobalProperties")
    for gp in plan.global_properties:
        attrs: dict[str, object] = dict(name=gp.name, initialValue=gp.initial, description=gp.description,
                                        isNumeric=gp.numeric, wrap=False)
        if gp.numeric:
            if gp.min is not None:
                attrs["min"] = gp.min
            if gp.max is not None:
                attrs["max"] = gp.max
        b.el(props, M + "properties.GlobalProperty", **attrs)
    protos = b.el(root, M + "PrototypesContainer")
    for name, description, text in plan.prototypes:
        b.el(protos, M + "PrototypeDefinition", text, name=name, description=description)
    for m in plan.maps:
        _map(b, root, m)
    _palette(b, root, plan.palette)
    for d in plan.dice:
        _dice_button(b, root, d)
    _turn_tracker(b, root, plan)
    if plan.charts:
        win = b.el(root, M + "ChartWindow", name="Charts", description="Player aids", text="Charts",
                   tooltip="Charts and tables", icon="/images/chart.gif", hotkey="")
        tabs = b.el(win, WIDGET + "TabWidget", entryName="Charts", description="")
        for c in plan.charts:
            if c.html:
                b.el(tabs, WIDGET + "HtmlChart", chartName=c.name, description="", fileName=c.file)
            else:
                b.el(tabs, WIDGET + "Chart", chartName=c.name, description="", fileName=c.file)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=False, pretty_print=True)


def _dice_button(b: _Builder, root, d: DicePlan) -> None:
    """A DiceButton. One die reports its face; several dice their total and each die; a "keep"
    roll keeps the highest (or lowest) dice as VASSAL 3.7 does (keepOption l/s, keepCount: the
    kept dice are $result$ and their sum $numericalTotal$) and reports every die rolled after it
    ($rawRolls$), so players see the kept die and what it was kept from. Other buttons write
    keepOption ">" (VASSAL's default): DiceButton.DR applies keepOption l/s even when keepDice is
    false."""
    keep = d.keep is not None and d.keep < d.n_dice
    if keep:
        report = "** $name$ = $numericalTotal$ *** (rolled $rawRolls$) <$PlayerName$>"
    elif d.n_dice > 1:
        report = "** $name$ = $numericalTotal$ *** ($result$) <$PlayerName$>"
    else:
        report = "** $name$ = $result$ *** <$PlayerName$>"
    b.el(root, M + "DiceButton", name=d.name, text=d.name, tooltip=d.tooltip, icon="/images/die.gif", hotkey="",
         nDice=d.n_dice, nSides=d.n_sides, plus=0, addToTotal=0, reportTotal=False, prompt=False,
         sortDice=False, reportFormat=report, keepDice=keep,
         keepOption=("l" if d.keep_highest else "s") if keep else ">", keepCount=d.keep if keep else 1)


def _map(b: _Builder, root, m: MapPlan) -> None:
    attrs: dict[str, object] = dict(mapName=m.name, description="", markMoved="Never", edgeWidth=0, edgeHeight=0,
                                    backgroundcolor="255,255,255", allowMultiple=False, color="0,0,0", thickness=3,
                                    launch=m.launch, buttonName=m.button, icon="/images/map.gif", hotkey="")
    if m.hand_side is not None:  # a PlayerHand: only its side sees it (PrivateMap `side`, `visible`)
        mp = b.el(root, M + "PlayerHand", side=m.hand_side, visible=False, **attrs)
    else:
        mp = b.el(root, M + "Map", **attrs)
    picker = b.el(mp, MAP + "BoardPicker", slotWidth=350, slotHeight=125, slotScale=0.2, title="Choose Boards",
                  addRowText="Add row", addColumnText="Add column", boardPrompt="Select board")
    board = b.el(picker, BOARD, name=m.board, image=m.image, reversible=False)
    if m.hex_grid is not None:
        grid_attrs, numbering_attrs = m.hex_grid
        grid = b.el(board, GRID + "HexGrid", **grid_attrs)
        b.el(grid, GRID + "mapgrid.HexGridNumbering", **numbering_attrs)
    elif m.regions is not None:
        rg = b.el(board, GRID + "RegionGrid", snapto=True, visible=False, fontsize=9)
        for name, (x, y) in m.regions.items():
            b.el(rg, GRID + "Region", name=name, originx=x, originy=y)
    b.el(mp, MAP + "StackMetrics", disabled=False, exSepX=12, exSepY=0, unexSepX=3, unexSepY=3,
         color="255,255,255", top="38,0", bottom="40,0", up="39,0", down="37,0")
    for helper in MAP_HELPERS:  # note §1.4: not created for a map loaded from XML
        b.el(mp, MAP + helper)
    b.el(mp, MAP + "Zoomer", zoomLevels="0.4,0.6,0.8,1.0,1.25,1.6,2.0", zoomStart=4)
    for d in m.decks:
        _deck(b, mp, m.board, d)
    for st in m.stacks:
        s = b.el(mp, MAP + "SetupStack", name=st.name, owningBoard=m.board, useGridLocation=True,
                 location=st.location, x=0, y=0)
        for slot in st.slots:
            _slot(b, s, slot)


def _deck(b: _Builder, mp, board: str, d: DeckPlan) -> None:
    mode = "Always" if d.face_down else "Never"
    attrs: dict[str, object] = dict(
        name=d.name, owningBoard=board, x=d.x + d.width // 2, y=d.y + d.height // 2, width=d.width, height=d.height,
        allowMultiple=True, allowSelect=True, faceDown=mode, drawFaceUp=not d.face_down or d.drawn_face_up,
        shuffle="Always" if d.shuffle else "Via right-click Menu", reversible=False, draw=True, color="0,0,0",
        canSave=False, maxStack=10, reshufflable=d.reshuffle_target is not None)
    if d.reshuffle_target is not None:
        attrs.update(reshuffleCommand="Shuffle into the draw pile", reshuffleTarget=d.reshuffle_target,
                     reshuffleMessage="$playerSide$ shuffles the discards into the draw pile")
    pile = b.el(mp, MAP + "DrawPile", **attrs)
    for slot in d.cards:
        b.el(pile, WIDGET + "CardSlot", slot.text, entryName=slot.entry_name, gpid=slot.gpid, width=slot.width,
             height=slot.height)


def _slot(b: _Builder, parent, slot: Slot) -> None:
    b.el(parent, WIDGET + "PieceSlot", slot.text, entryName=slot.entry_name, gpid=slot.gpid, width=slot.width,
         height=slot.height)


def _palette(b: _Builder, root, tabs: list[TabPlan]) -> None:
    """The counter palette, in a window of its own: a tab per TabPlan; a tab with several panels
    holds a tab per panel. Panels are fixed-cell grids (`fixed`: a GridLayout of nColumns; without
    it VASSAL lays a panel out as one long strip).

    VASSAL docks the first PieceWindow into the main window, above the map, at the chat's height
    (about ten lines), where a grid of counters is squeezed flat and nothing scrolls. So the first
    PieceWindow is an empty hidden one (hidden: no button, never docked, `PieceWindow.addTo`), and
    the palette is the second, a window sized to its counters that the player moves and resizes."""
    if not tabs:
        return
    b.el(root, M + "PieceWindow", name="Docked palette (unused)", hidden=True, text="", tooltip="",
         description="Takes the docked place so that the Counters palette gets a window of its own",
         hotkey="", scale=1.0, defaultWidth=0)
    win = b.el(root, M + "PieceWindow", name="Counters", description="Counter palette", hidden=False,
               text="Counters", tooltip="Counters by side and type", icon="/images/counter.gif",
               hotkey="", scale=1.0, defaultWidth=0)
    top = b.el(win, WIDGET + "TabWidget", entryName="Counters", description="")

    def panel(parent, name: str, p: PanelPlan) -> None:
        el = b.el(parent, WIDGET + "PanelWidget", entryName=name, description="", fixed=True,
                  nColumns=max(1, p.columns), vert=False, scale=1.0)
        for slot in p.slots:
            _slot(b, el, slot)

    for tab in tabs:
        if len(tab.panels) == 1:
            panel(top, tab.name, tab.panels[0])
            continue
        inner = b.el(top, WIDGET + "TabWidget", entryName=tab.name, description="")
        for p in tab.panels:
            panel(inner, p.name, p)


def _turn_tracker(b: _Builder, root, plan: ModulePlan) -> None:
    """The TurnTracker: one CounterTurnLevel per segment of turns (tracker.py), each holding the
    ListTurnLevel of its phases; segments loop over their own turns so that the tracker moves
    from one to the next, and share the properties Turn and Phase."""
    from warcodex.exporters.vassal.encoder import string_array

    segments = plan.tracker
    phased = any(seg.phases for seg in segments)
    tracker = b.el(root, M + "turn.TurnTracker", name="Turn", description="Sequence of play",
                   buttonText="Turn", hotkey="", nexthotkey="", prevhotkey="",
                   turnFormat="$level1$ - $level2$" if phased else "$level1$",
                   reportFormat="* <$PlayerId$> Turn Updated from $oldTurn$ to $newTurn$", tooltip="Turn tracker")
    for seg in segments:
        loop = seg.last is not None and len(segments) > 1
        level = b.el(tracker, M + "turn.CounterTurnLevel", name=seg.name, property="Turn", turnFormat="Turn $value$",
                     start=seg.first, incr=1, loop=loop, loopLimit=seg.last if loop else -1)
        if seg.phases:
            b.el(level, M + "turn.ListTurnLevel", name=f"Phase ({seg.name})", property="Phase", turnFormat="$value$",
                 list=string_array(list(seg.phases)), configList=False, configFirst=False)
