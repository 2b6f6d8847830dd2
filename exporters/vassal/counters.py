"""Counter art drawn from the unit data: units (one image per step state) and markers.

A unit counter shows, on its side's colour: the unit's name at the top, a NATO-style type symbol
chosen from its classes (then its type name and label) - infantry a cross, armor an oval,
mechanized both, cavalry and recon a slash, artillery a dot, and so on - pips for its steps (filled
= remaining), and its factors at the bottom: attack-defense-move, or what its type's `face:` prints
(an HQ's command range and movement). A reduced step is drawn on a paler
background with that step's values; in VASSAL the steps are the levels of a Layer trait. A red
asterisk marks a unit type whose values are provisional in the rules.

Markers: one per declared `marker` (disrupted, out of supply...), the game-turn marker, one marker
per value of each `name` state variable (weather...), and one per side for each `int` side variable
(VP...).
"""

from __future__ import annotations

import math
import re

from lxml import etree

from warcodex.exporters.vassal.svg import FONT_CONDENSED, SVG_NS, Svg, ink_on, mix

# NATO symbol kinds, first match over the type's classes, then its name and label. Echelon words
# (division, corps, brigade...) name a unit's size and honorifics (guards) its status, not its arm,
# so they choose no symbol.
NATO_KINDS = (  # each word gets the first kind it matches, so "antitank" is never armor
    ("headquarters", ("headquarter", "hq", "command")),
    ("leader", ("leader", "general", "commander")),
    ("supply", ("supply", "depot", "logistic")),
    ("airborne", ("airborne", "parachute", "para", "glider")),
    ("mountain", ("mountain", "alpine", "gebirgs")),
    ("antitank", ("antitank", "anti_tank", "anti-tank", "tank_destroyer")),
    ("antiaircraft", ("antiaircraft", "anti_aircraft", "anti-aircraft", "flak", "aa_")),
    ("mechanized", ("mechanized", "mechanised", "motorized", "motorised", "panzergrenadier", "motor_rifle")),
    ("armor", ("armor", "armour", "tank", "panzer", "armored", "armoured")),
    ("cavalry", ("cavalry", "cossack", "horse")),
    ("recon", ("recon", "reconnaissance", "scout")),
    ("artillery", ("artillery", "gun", "howitzer", "rocket", "mortar")),
    ("engineer", ("engineer", "pioneer", "sapper")),
    ("infantry", ("naval_infantry", "naval infantry", "marine")),  # before naval: marines are infantry
    ("naval", ("naval", "ship", "battleship", "cruiser", "destroyer", "carrier", "submarine", "transport", "fleet")),
    ("air", ("air", "fighter", "bomber", "plane", "aircraft")),
    ("infantry", ("infantry", "rifle", "militia", "grenadier", "foot")),
)


def _word_kind(word: str) -> str | None:
    return next((k for k, frags in NATO_KINDS if any(f in word for f in frags)), None)


ROLE_KINDS = ("leader", "supply", "airborne", "mountain", "cavalry", "recon", "artillery", "antiaircraft", "antitank", "engineer",
              "naval", "air")


def nato_kind(classes: list[str], name: str, label: str = "") -> str:
    """The symbol for a unit type, from its classes (names and labels) first, then its own name
    and label. Headquarters first; armor wins over mechanized unless the type is also infantry (a
    panzer division is armor, mechanized infantry gets the cross and the oval); a role (a leader,
    supply, artillery, cavalry, anti-tank...) wins over mere mechanization (a motorized supply
    point is supply, motorized artillery is artillery)."""
    for words in ([c.lower().replace(" ", "_") for c in classes], [name.lower(), label.lower().replace(" ", "_")]):
        kinds = [k for k in (_word_kind(w) for w in words) if k is not None]
        if not kinds:
            continue
        if "headquarters" in kinds:
            return "headquarters"
        if "armor" in kinds and "infantry" not in kinds:
            return "armor"
        for k in ROLE_KINDS:
            if k in kinds:
                return k
        if "mechanized" in kinds or "armor" in kinds:
            return "mechanized"
        return kinds[0]
    return "unknown"


def nato_symbol(svg: Svg, parent, kind: str, x: float, y: float, w: float, h: float, fallback: str = "") -> None:
    """Draw the symbol box at (x, y) with size (w, h)."""
    stroke = max(w / 30, 1.0)
    svg.el(parent, "rect", x=x, y=y, width=w, height=h, fill="#ffffff", stroke="#000", stroke_width=stroke)
    cx, cy = x + w / 2, y + h / 2
    line = dict(stroke="#000", stroke_width=stroke)
    if kind in ("infantry", "mechanized", "airborne"):
        svg.line(parent, (x, y), (x + w, y + h), **line)
        svg.line(parent, (x, y + h), (x + w, y), **line)
    if kind in ("armor", "mechanized"):
        svg.el(parent, "ellipse", cx=cx, cy=cy, rx=w * 0.32, ry=h * 0.3, fill="none", **line)
    if kind == "airborne":
        svg.el(parent, "path", d=f"M {cx - w * 0.2:.2f} {y + h:.2f} q {w * 0.1:.2f} {-h * 0.3:.2f} {w * 0.2:.2f} 0 "
                                 f"q {w * 0.1:.2f} {-h * 0.3:.2f} {w * 0.2:.2f} 0", fill="none", **line)
    if kind in ("cavalry", "recon"):
        svg.line(parent, (x, y + h), (x + w, y), **line)
    if kind == "artillery":
        svg.el(parent, "circle", cx=cx, cy=cy, r=h * 0.17, fill="#000")
    if kind == "mountain":
        svg.polygon(parent, [(cx - w * 0.16, y + h), (cx, y + h * 0.55), (cx + w * 0.16, y + h)], fill="#000")
        svg.line(parent, (x, y), (x + w, y + h), **line)
        svg.line(parent, (x, y + h), (x + w, y), **line)
    if kind == "antiaircraft":
        svg.el(parent, "path", d=f"M {x:.2f} {y + h * 0.9:.2f} Q {cx:.2f} {y - h * 0.35:.2f} {x + w:.2f} {y + h * 0.9:.2f}",
               fill="none", **line)
    if kind == "antitank":
        svg.polyline(parent, [(x, y + h), (cx, y), (x + w, y + h)], **line)
    if kind == "engineer":
        svg.polyline(parent, [(cx - w * 0.22, y + h * 0.65), (cx - w * 0.22, y + h * 0.35),
                              (cx + w * 0.22, y + h * 0.35), (cx + w * 0.22, y + h * 0.65)], **line)
        svg.line(parent, (cx, y + h * 0.35), (cx, y + h * 0.65), **line)
    if kind == "headquarters":
        svg.text(parent, cx, cy + h * 0.22, "HQ", h * 0.6, weight="bold")
    if kind == "naval":
        svg.polygon(parent, [(x + w * 0.12, cy), (x + w * 0.88, cy), (x + w * 0.76, y + h * 0.82),
                             (x + w * 0.24, y + h * 0.82)], fill="#000")
        svg.el(parent, "rect", x=cx - w * 0.12, y=y + h * 0.28, width=w * 0.24, height=h * 0.22, fill="#000")
    if kind == "air":
        svg.el(parent, "ellipse", cx=cx - w * 0.14, cy=cy, rx=w * 0.14, ry=h * 0.2, fill="none", **line)
        svg.el(parent, "ellipse", cx=cx + w * 0.14, cy=cy, rx=w * 0.14, ry=h * 0.2, fill="none", **line)
    if kind == "leader":  # a general's star
        pts = [(cx + math.sin(i * math.pi / 5) * h * (0.42 if i % 2 == 0 else 0.17),
                cy - math.cos(i * math.pi / 5) * h * (0.42 if i % 2 == 0 else 0.17)) for i in range(10)]
        svg.polygon(parent, pts, fill="#000")
    if kind == "supply":  # NATO combat service support: a bar across the foot of the frame
        svg.line(parent, (x, y + h * 0.78), (x + w, y + h * 0.78), **line)
    if kind == "unknown" and fallback:
        svg.text(parent, cx, cy + h * 0.2, fallback[:3].upper(), h * 0.55, weight="bold", max_width=w * 0.9)


def unit_counter_svg(*, name: str, kind: str, color: str, factors: str, steps: int, max_steps: int,
                     size: int, provisional: bool = False, type_label: str = "") -> bytes:
    s = float(size)
    reduced = steps < max_steps
    fill = mix(color, "#ffffff", 0.5) if reduced else color
    ink = ink_on(fill)
    svg = Svg(size, size)
    svg.el(None, "rect", x=s * 0.02, y=s * 0.02, width=s * 0.96, height=s * 0.96, rx=s * 0.08, ry=s * 0.08,
           fill=fill, stroke=mix(color, "#000000", 0.45), stroke_width=max(s * 0.03, 1))
    if reduced:  # a band across the top, as printed on many reduced sides
        svg.el(None, "rect", x=s * 0.04, y=s * 0.04, width=s * 0.92, height=s * 0.05, fill=color)
    lines, fs = name_lines(name, s)
    for i, line in enumerate(lines):
        svg.text(None, s / 2, s * 0.24 - (len(lines) - 1 - i) * fs * 1.05, line, fs, weight="bold", fill=ink,
                 family=FONT_CONDENSED, max_width=s * 0.92)
    nato_symbol(svg, None, kind, s * 0.24, s * 0.32, s * 0.52, s * 0.32, fallback=type_label)
    if max_steps > 1:
        r = s * 0.04
        for i in range(max_steps):
            cy = s * 0.36 + i * r * 2.6
            if cy > s * 0.7:
                break
            svg.el(None, "circle", cx=s * 0.88, cy=cy, r=r, fill=ink if i < steps else "none", stroke=ink,
                   stroke_width=max(s * 0.015, 0.7))
    if provisional:
        svg.text(None, s * 0.12, s * 0.5, "*", s * 0.26, weight="bold", fill="#d00000")
    svg.text(None, s / 2, s * 0.9, factors, s * 0.22, weight="bold", fill=ink, max_width=s * 0.9)
    return svg.tostring()


def name_lines(name: str, s: float) -> tuple[list[str], float]:
    """The unit name as printed at the top of a counter: one line if it fits at a readable size,
    else two lines (a parenthesised remark is dropped first), else cut with an ellipsis."""
    from warcodex.exporters.vassal.svg import text_width

    width = s * 0.92
    full = s * 0.15
    small = s * 0.12

    def fits(text: str, size: float) -> bool:
        return text_width(text, size, "bold", condensed=True) <= width

    if fits(name, small):
        return [name], min(full, full * width / max(text_width(name, full, "bold", condensed=True), 1e-9))
    short = re.sub(r"\s*\([^)]*\)", "", name).strip() or name
    if fits(short, small):
        return [short], small
    words = short.split()
    for cut in range(len(words) - 1, 0, -1):
        a, b = " ".join(words[:cut]), " ".join(words[cut:])
        if fits(a, small * 0.95) and fits(b, small * 0.95):
            return [a, b], small * 0.95
    text = short
    while len(text) > 2 and not fits(text + "…", small):
        text = text[:-1]
    return [text.rstrip() + "…"], small


def marker_svg(lines: list[str], size: int, *, bg: str = "#f3d250", fg: str | None = None,
               title: str | None = None, round_: bool = False) -> bytes:
    """A marker: an optional small title and up to three lines of text."""
    s = float(size)
    fg = fg or ink_on(bg)
    svg = Svg(size, size)
    if round_:
        svg.el(None, "circle", cx=s / 2, cy=s / 2, r=s * 0.47, fill=bg, stroke=mix(bg, "#000000", 0.5),
               stroke_width=max(s * 0.03, 1))
    else:
        svg.el(None, "rect", x=s * 0.02, y=s * 0.02, width=s * 0.96, height=s * 0.96, rx=s * 0.08, ry=s * 0.08,
               fill=bg, stroke=mix(bg, "#000000", 0.5), stroke_width=max(s * 0.03, 1))
    top = s * 0.2
    if title:
        svg.text(None, s / 2, top + s * 0.04, title, s * 0.14, fill=fg, family=FONT_CONDENSED, max_width=s * 0.86)
        top += s * 0.14
    lines = [ln for ln in lines if ln][:3]
    n = max(len(lines), 1)
    fs = s * (0.26 if n == 1 else 0.2 if n == 2 else 0.16)
    start = top + (s * 0.92 - top - n * fs * 1.1) / 2 + fs * 0.85
    for i, ln in enumerate(lines):
        svg.text(None, s / 2, start + i * fs * 1.1, ln, fs, weight="bold", fill=fg, family=FONT_CONDENSED,
                 max_width=s * 0.86)
    return svg.tostring()


def wrap_words(text: str, width: int = 10, lines: int = 3) -> list[str]:
    """Split a label into at most `lines` lines of about `width` characters."""
    words = text.split()
    out: list[str] = []
    for w in words:
        if out and len(out[-1]) + 1 + len(w) <= width:
            out[-1] += " " + w
        else:
            out.append(w)
    if len(out) > lines:
        out = out[: lines - 1] + [" ".join(out[lines - 1:])]
    return out or [text]


def sheet_svg(items: list[tuple[bytes, str]], size: int, columns: int = 8, title: str = "") -> bytes:
    """A counter sheet: the counters side by side with a caption under each (for the docs and
    the module's chart window)."""
    cell_w, cell_h = size + 24, size + 30
    rows = math.ceil(len(items) / columns) if items else 1
    head = 28 if title else 6
    width, height = columns * cell_w + 12, rows * cell_h + head + 6
    svg = Svg(width, height)
    svg.el(None, "rect", x=0, y=0, width=width, height=height, fill="#ffffff")
    if title:
        svg.text(None, 8, 19, title, 14, anchor="start", weight="bold")
    for i, (counter, caption) in enumerate(items):
        col, row = i % columns, i // columns
        x, y = 6 + col * cell_w + 12, head + row * cell_h
        inner = etree.fromstring(counter)
        inner.set("x", str(x))
        inner.set("y", str(y))
        svg.root.append(inner)
        svg.text(None, x + size / 2, y + size + 14, caption, 9, fill="#333", max_width=cell_w - 4,
                 family=FONT_CONDENSED)
    assert svg.root.tag == f"{{{SVG_NS}}}svg"
    return svg.tostring()


def unit_type_kind(engine, classes: list[str], name: str, label: str) -> str:
    """The symbol of a unit type as every exporter draws it: `nato_kind` of its classes (their
    names, then their labels), then its own name and label."""
    words = list(classes) + [engine.entities[c].label or c for c in classes if c in engine.entities]
    return nato_kind(words, name, label)
