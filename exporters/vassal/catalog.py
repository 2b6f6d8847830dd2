"""The VASSAL 3.7 classes and piece traits this exporter writes, and the attributes each accepts.

This is the ONE place where facts about VASSAL's buildFile.xml vocabulary live. `buildfile.py`
creates every element through `Catalog.check` (an unknown tag or attribute is a programming error
here, not a silently ignored attribute in VASSAL), and the tests check a whole generated module
against this table: every tag, every attribute, every value's type, every element's parent.

Every fact comes from notes/vassal-format.md (read from VASSAL's source, tag 3.7.26); the `source`
of each entry is the Java file the note cites (`VASSAL/...` = vassal-app/src/main/java/VASSAL/...).
Only the attributes we rely on are listed; VASSAL accepts more. Where two 3.7.x versions differ we
write only the common subset.

Value types (`check_value`):
  str    any text                      int    Integer.parseInt (a load-aborting error otherwise)
  double Double.parseDouble            bool   "true"/"false" (Boolean.valueOf: anything else = false)
  color  "R,G,B" (ColorConfigurer)     key    "" or "keyCode,modifiers[,name]" (NamedHotKeyConfigurer)
  image  a name under images/ in the zip, or a /resource of the VASSAL jar
  file   a path at the root of the zip (HelpFile archive entries, HtmlChart)
  H|V, N|A, ...   one of the listed characters/words (charAt(0) on "" aborts loading)
  fmt    a message format with $property$ references
  list   a `,`-SequenceEncoded string array (StringArrayConfigurer)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

B = "VASSAL.build."
M = "VASSAL.build.module."
MAP = M + "map."
BOARD = MAP + "boardPicker.Board"
GRID = MAP + "boardPicker.board."
WIDGET = B + "widget."


@dataclass(frozen=True)
class VassalClass:
    tag: str
    source: str
    attrs: dict[str, str] = field(default_factory=dict)
    parents: tuple[str, ...] = ()  # tags whose addTo() cast accepts this class as a child
    content: str | None = None  # "piece": the element text is a piece definition; "entry": <entry> children


def _c(tag: str, source: str, parents: tuple[str, ...] = (), content: str | None = None, /,
       **attrs: str) -> VassalClass:
    return VassalClass(tag, "VASSAL/" + source, dict(attrs), parents, content)


# Toolbar buttons share these (VASSAL/build/AbstractToolbarItem.java l.53-77, note §6.3).
_TOOLBAR = dict(name="str", text="str", tooltip="str", icon="image", hotkey="key")

_WIDGET_PARENTS = (M + "PieceWindow", M + "ChartWindow", WIDGET + "TabWidget", WIDGET + "ListWidget",
                   WIDGET + "PanelWidget", WIDGET + "BoxWidget")

_CLASSES = [
    # ---------------------------------------------------------------- module level (note §6.1)
    _c(B + "GameModule", "build/GameModule.java", (),
       name="str", version="str", description="str", ModuleOther1="str", ModuleOther2="str",
       VassalVersion="str", nextPieceSlotId="int"),
    _c(M + "BasicCommandEncoder", "build/module/BasicCommandEncoder.java", (B + "GameModule",)),
    _c(M + "Chatter", "build/module/Chatter.java", (B + "GameModule",)),
    _c(M + "KeyNamer", "build/module/KeyNamer.java", (B + "GameModule",)),
    _c(M + "Documentation", "build/module/Documentation.java", (B + "GameModule",)),
    _c(M + "documentation.HelpFile", "build/module/documentation/HelpFile.java", (M + "Documentation",),
       title="str", fileName="file", fileType="archive|resource|file", vassalDoc="bool"),
    _c(M + "PlayerRoster", "build/module/PlayerRoster.java", (B + "GameModule",), "entry",
       buttonText="str", buttonToolTip="str", buttonKeyStroke="key", description="str"),
    _c(M + "GlobalOptions", "build/module/GlobalOptions.java", (B + "GameModule",),
       autoReport="Always|Never|Use Preferences Setting", centerOnMove="Always|Never|Use Preferences Setting",
       nonOwnerUnmaskable="Always|Never|Use Preferences Setting", playerIdFormat="fmt"),
    _c(M + "properties.GlobalProperties", "build/module/properties/GlobalProperties.java",
       (B + "GameModule", M + "Map")),
    _c(M + "properties.GlobalProperty", "build/module/properties/GlobalProperty.java",
       (M + "properties.GlobalProperties",),
       name="str", initialValue="str", description="str", isNumeric="bool", min="int", max="int", wrap="bool"),
    _c(M + "PrototypesContainer", "build/module/PrototypesContainer.java", (B + "GameModule",)),
    _c(M + "PrototypeDefinition", "build/module/PrototypeDefinition.java", (M + "PrototypesContainer",), "piece",
       name="str", description="str"),
    # ---------------------------------------------------------------- maps and boards (note §6.2)
    _c(M + "Map", "build/module/Map.java", (B + "GameModule",),
       mapName="str", description="str", markMoved="Always|Never|Use Preferences Setting",
       edgeWidth="int", edgeHeight="int", backgroundcolor="color", allowMultiple="bool", color="color",
       thickness="int", launch="bool", buttonName="str", tooltip="str", icon="image", hotkey="key",
       onlyReportChangedLocation="bool", moveWithinFormat="fmt", moveToFormat="fmt", createFormat="fmt",
       changeFormat="fmt"),
    # a PlayerHand is a PrivateMap: the Map attributes and the owning sides (VASSAL/build/module/PrivateMap.java)
    _c(M + "PlayerHand", "build/module/PlayerHand.java (attributes: PrivateMap.java, Map.java)", (B + "GameModule",),
       side="list", visible="bool",
       mapName="str", description="str", markMoved="Always|Never|Use Preferences Setting",
       edgeWidth="int", edgeHeight="int", backgroundcolor="color", allowMultiple="bool", color="color",
       thickness="int", launch="bool", buttonName="str", tooltip="str", icon="image", hotkey="key",
       onlyReportChangedLocation="bool", moveWithinFormat="fmt", moveToFormat="fmt", createFormat="fmt",
       changeFormat="fmt"),
    # a deck (VASSAL/build/module/map/DrawPile.java getAttributeNames/setAttribute; x, y, owningBoard, name
    # from SetupStack.java); its cards are CardSlots
    _c(MAP + "DrawPile", "build/module/map/DrawPile.java", (M + "Map", M + "PlayerHand"),
       name="str", owningBoard="str", x="int", y="int", width="int", height="int", allowMultiple="bool",
       allowSelect="bool", faceDown="Always|Never|Via right-click Menu", drawFaceUp="bool",
       shuffle="Always|Never|Via right-click Menu", reversible="bool", draw="bool", color="color",
       canSave="bool", maxStack="int", reshufflable="bool", reshuffleCommand="str", reshuffleTarget="str",
       reshuffleMessage="fmt"),
    _c(WIDGET + "CardSlot", "build/widget/CardSlot.java (attributes: PieceSlot.java)", (MAP + "DrawPile",), "piece",
       entryName="str", gpid="int", width="int", height="int"),
    _c(MAP + "BoardPicker", "build/module/map/BoardPicker.java", (M + "Map", M + "PlayerHand"),
       slotWidth="int", slotHeight="int", slotScale="double", title="str", addRowText="str",
       addColumnText="str", boardPrompt="str"),
    _c(BOARD, "build/module/map/boardPicker/Board.java", (MAP + "BoardPicker",),
       name="str", image="image", reversible="bool", width="int", height="int", color="color"),
    _c(GRID + "HexGrid", "build/module/map/boardPicker/board/HexGrid.java", (BOARD,),
       sideways="bool", x0="int", y0="int", dy="double", dx="double", snapTo="bool", edgesLegal="bool",
       cornersLegal="bool", visible="bool", dotsVisible="bool", color="color"),
    _c(GRID + "mapgrid.HexGridNumbering",
       "build/module/map/boardPicker/board/mapgrid/HexGridNumbering.java (attributes: RegularGridNumbering.java)",
       (GRID + "HexGrid",),
       first="H|V", sep="str", hType="N|A", vType="N|A", hLeading="int", vLeading="int", hOff="int",
       vOff="int", hDescend="bool", vDescend="bool", locationFormat="fmt", visible="bool", fontSize="int",
       color="color", rotateText="0|90|180|270", hDrawOff="int", vDrawOff="int", stagger="bool"),
    _c(GRID + "RegionGrid", "build/module/map/boardPicker/board/RegionGrid.java", (BOARD,),
       snapto="bool", visible="bool", fontsize="int"),
    _c(GRID + "Region", "build/module/map/boardPicker/board/Region.java", (GRID + "RegionGrid",),
       name="str", originx="int", originy="int"),
    _c(MAP + "StackMetrics", "build/module/map/StackMetrics.java", (M + "Map", M + "PlayerHand"),
       disabled="bool", exSepX="int", exSepY="int", unexSepX="int", unexSepY="int", color="color",
       top="key", bottom="key", up="key", down="key"),
    # The map helpers a map loaded from XML does not create by itself (note §1.4, Map.java#build).
    *[_c(MAP + n, f"build/module/map/{n}.java", (M + "Map", M + "PlayerHand"))
      for n in ("ForwardToKeyBuffer", "Scroller", "ForwardToChatter", "MenuDisplayer", "MapCenterer",
                "StackExpander", "PieceMover", "KeyBufferer")],
    _c(MAP + "Zoomer", "build/module/map/Zoomer.java", (M + "Map", M + "PlayerHand"), zoomLevels="doubles", zoomStart="int"),
    _c(MAP + "SetupStack", "build/module/map/SetupStack.java", (M + "Map", M + "PlayerHand"),
       name="str", owningBoard="str", useGridLocation="bool", location="str", x="int", y="int"),
    # ---------------------------------------------------------------- palettes, charts, dice, turns (§6.3)
    _c(WIDGET + "PieceSlot", "build/widget/PieceSlot.java", _WIDGET_PARENTS + (MAP + "SetupStack",), "piece",
       entryName="str", gpid="int", width="int", height="int"),
    _c(M + "PieceWindow", "build/module/PieceWindow.java", (B + "GameModule",),
       name="str", description="str", hidden="bool", text="str", tooltip="str", icon="image", hotkey="key",
       scale="double", defaultWidth="int"),
    _c(WIDGET + "TabWidget", "build/widget/TabWidget.java", _WIDGET_PARENTS,
       entryName="str", description="str"),
    _c(WIDGET + "ListWidget", "build/widget/ListWidget.java", _WIDGET_PARENTS,
       entryName="str", description="str", scale="double", width="int", height="int", divider="int"),
    _c(WIDGET + "PanelWidget", "build/widget/PanelWidget.java", _WIDGET_PARENTS,
       entryName="str", description="str", fixed="bool", nColumns="int", vert="bool", scale="double"),
    _c(M + "ChartWindow", "build/module/ChartWindow.java", (B + "GameModule",),
       name="str", description="str", text="str", tooltip="str", icon="image", hotkey="key"),
    _c(WIDGET + "Chart", "build/widget/Chart.java", _WIDGET_PARENTS,
       chartName="str", description="str", fileName="image"),
    _c(WIDGET + "HtmlChart", "build/widget/HtmlChart.java", _WIDGET_PARENTS,
       chartName="str", description="str", fileName="file"),
    _c(M + "DiceButton", "build/module/DiceButton.java (toolbar part: build/AbstractToolbarItem.java)",
       (B + "GameModule",), **_TOOLBAR,
       nDice="int", nSides="int", plus="int", addToTotal="int", reportTotal="bool", prompt="bool",
       sortDice="bool", reportFormat="fmt", keepDice="bool", keepOption="s|l|>|<|=", keepCount="int"),
    _c(M + "turn.TurnTracker", "build/module/turn/TurnTracker.java", (B + "GameModule",),
       name="str", description="str", buttonText="str", icon="image", hotkey="key", nexthotkey="key",
       prevhotkey="key", turnFormat="fmt", reportFormat="fmt", tooltip="str"),
    _c(M + "turn.CounterTurnLevel", "build/module/turn/CounterTurnLevel.java (name/property/turnFormat: TurnLevel.java)",
       (M + "turn.TurnTracker", M + "turn.CounterTurnLevel", M + "turn.ListTurnLevel"),
       name="str", property="str", turnFormat="fmt", start="int", incr="int", loop="bool", loopLimit="int"),
    _c(M + "turn.ListTurnLevel", "build/module/turn/ListTurnLevel.java (name/property/turnFormat: TurnLevel.java)",
       (M + "turn.TurnTracker", M + "turn.CounterTurnLevel", M + "turn.ListTurnLevel"),
       name="str", property="str", turnFormat="fmt", list="list", configList="bool", configFirst="bool"),
]

CLASSES: dict[str, VassalClass] = {c.tag: c for c in _CLASSES}

# Tags VASSAL 3.7 does NOT have although other tools write them (note §9.9): never emit.
NOT_IN_37 = frozenset({
    M + "folder.PrototypeSubFolder", M + "folder.GlobalPropertySubFolder",
    GRID + "mapgrid.ObliqueHexGridNumbering",
})


# ---------------------------------------------------------------------------- piece traits (§8.3-8.6)
@dataclass(frozen=True)
class TraitClass:
    prefix: str
    java_class: str
    source: str
    min_fields: int  # fields after the prefix that VASSAL reads with a plain nextToken()/that we always write
    has_state: bool


TRAITS: dict[str, TraitClass] = {t.prefix: t for t in [
    TraitClass("piece;", "BasicPiece", "VASSAL/counters/BasicPiece.java", 4, True),
    TraitClass("emb2;", "Embellishment (Layer)", "VASSAL/counters/Embellishment.java", 33, True),
    TraitClass("mark;", "Marker", "VASSAL/counters/Marker.java", 1, True),
    TraitClass("prototype;", "UsePrototype", "VASSAL/counters/UsePrototype.java", 1, False),
    TraitClass("report;", "ReportState", "VASSAL/counters/ReportState.java", 6, True),
    TraitClass("delete;", "Delete", "VASSAL/counters/Delete.java", 3, False),
    TraitClass("obs;", "Obscurable (Mask)", "VASSAL/counters/Obscurable.java", 4, True),
]}

EMBELLISHMENT_VERSION_FIELD = 25  # 1-based; must be "1" (note §8.6, §9.4)
VASSAL_VERSION = "3.7.0"  # moduledata and GameModule (>= 3.5 reads buildFile.xml, < 3.8 opens in 3.7)

_INT = re.compile(r"^-?[0-9]+$")
_DOUBLE = re.compile(r"^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$")
_KEY = re.compile(r"^(-?[0-9]+,-?[0-9]+(,.*)?)?$")
_COLOR = re.compile(r"^([0-9]{1,3}),([0-9]{1,3}),([0-9]{1,3})(,([0-9]{1,3}))?$")


class Catalog:
    """Checks tags, attributes and values against the tables above."""

    def __init__(self, classes: dict[str, VassalClass] = CLASSES) -> None:
        self.classes = classes

    def check(self, tag: str, attrs: dict[str, str], parent: str | None = None) -> None:
        """Raise ValueError for anything VASSAL would not accept (or would silently ignore)."""
        cls = self.classes.get(tag)
        if cls is None or tag in NOT_IN_37:
            raise ValueError(f"{tag} is not a VASSAL 3.7 class in the catalog")
        if parent is not None and cls.parents and parent not in cls.parents:
            raise ValueError(f"{tag} cannot be a child of {parent} (its addTo() cast would fail)")
        for name, value in attrs.items():
            kind = cls.attrs.get(name)
            if kind is None:
                raise ValueError(f"{tag} has no attribute {name!r} (VASSAL would ignore it)")
            problem = check_value(kind, value)
            if problem:
                raise ValueError(f"{tag} {name}={value!r}: {problem}")


def check_value(kind: str, value: str) -> str | None:
    """None if `value` is a valid `kind` (see the module docstring), else the reason."""
    if not isinstance(value, str):
        return "not a string"
    if kind in ("str", "fmt", "list"):
        return None
    if kind == "int":
        if not _INT.match(value) or not -2**31 <= int(value) < 2**31:
            return "not a Java int"
        return None
    if kind == "double":
        return None if _DOUBLE.match(value) else "not a double"
    if kind == "doubles":
        parts = value.split(",")
        return None if parts and all(_DOUBLE.match(p) for p in parts) else "not a list of doubles"
    if kind == "bool":
        return None if value in ("true", "false") else "not true/false"
    if kind == "color":
        m = _COLOR.match(value)
        if not m or any(int(g) > 255 for g in m.groups()[:3]):
            return "not an R,G,B colour"
        return None
    if kind == "key":
        return None if _KEY.match(value) else "not a keystroke"
    if kind in ("image", "file"):
        return None if value and "\\" not in value else "empty or backslashed file name"
    if "|" in kind or kind.isdigit():
        return None if value in kind.split("|") else f"not one of {kind}"
    raise ValueError(f"unknown value kind {kind!r}")
