"""Counter art for the page, drawn by the same functions as the VASSAL counters
(`warcodex.exporters.vassal.counters`): one SVG <symbol> per unit type, side, name and step
count that the game shows, and one per marker; the page places them with <use>."""

from __future__ import annotations

from lxml import etree

from warcodex.exporters.vassal import counters, gamedata
from warcodex.exporters.vassal.svg import SVG_NS

UnitKey = tuple[str, str, str, int]  # unit type, side, label, steps


class Symbols:
    def __init__(self, engine, facts, size: int) -> None:
        self.engine, self.size = engine, size
        self.types = {u.name: u for u in facts.unit_types}
        self.colors = {s.name: s.color for s in facts.sides}
        self.units: dict[UnitKey, str] = {}  # key -> symbol id
        self.markers: dict[str, str] = {}
        self.defs: list[bytes] = []

    def unit(self, type_name: str, side: str, label: str, steps: int) -> str:
        ut = self.types[type_name]
        steps = max(1, min(steps, ut.max_steps))  # an eliminated unit (0 steps) shows its last face
        key = (type_name, side, label, steps)
        if key not in self.units:
            shape = gamedata.UnitType(ut.name, ut.label, ut.classes, ut.tags, ut.max_steps, ut.values,
                                      ut.provisional, ut.flags, ut.face)
            kind = counters.unit_type_kind(self.engine, ut.classes, ut.name, ut.label)
            art = counters.unit_counter_svg(name=label, kind=kind, color=self.colors.get(side, "#888888"),
                                            factors=shape.factors(steps), steps=steps, max_steps=ut.max_steps,
                                            size=self.size, provisional=ut.provisional, type_label=ut.label)
            self.units[key] = self._add(f"c{len(self.units)}", art)
        return self.units[key]

    def marker(self, name: str) -> str:
        if name not in self.markers:
            text = self.engine.entities[name].label if name in self.engine.entities else name.replace("_", " ")
            art = counters.marker_svg(counters.wrap_words(text), self.size)
            self.markers[name] = self._add(f"m{len(self.markers)}", art)
        return self.markers[name]

    def _add(self, ident: str, art: bytes) -> str:
        root = etree.fromstring(art, etree.XMLParser(remove_blank_text=True))
        symbol = etree.Element(f"{{{SVG_NS}}}symbol", nsmap={None: SVG_NS}, id=ident, viewBox=root.get("viewBox"))
        symbol.extend(list(root))
        self.defs.append(etree.tostring(symbol, encoding="UTF-8").replace(f' xmlns="{SVG_NS}"'.encode(), b""))
        return ident

    def svg_defs(self) -> str:
        """Every symbol made so far, as the <defs> of the page's sprite sheet."""
        return "".join(d.decode("utf-8") for d in self.defs)
