"""A small SVG builder on lxml (never string concatenation) and the SVG -> PNG step (cairosvg)."""

from __future__ import annotations

import colorsys
import hashlib
from typing import Any

from lxml import etree

SVG_NS = "http://www.w3.org/2000/svg"
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
FONT_CONDENSED = "DejaVu Sans Condensed, Arial Narrow, sans-serif"
# Average advance of a character, in em, for fitting text without a font engine.
CHAR_EM = {"normal": 0.56, "bold": 0.64, "condensed": 0.50, "condensed-bold": 0.56}


def _attr_name(key: str) -> str:
    return key.rstrip("_").replace("_", "-")


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.2f}".rstrip("0").rstrip(".")
    return str(v)


class Svg:
    def __init__(self, width: float, height: float) -> None:
        self.width, self.height = width, height
        self.root = etree.Element(f"{{{SVG_NS}}}svg", nsmap={None: SVG_NS},
                                  width=_fmt(width), height=_fmt(height),
                                  viewBox=f"0 0 {_fmt(width)} {_fmt(height)}", version="1.1")

    def resize(self, width: float, height: float) -> None:
        self.width, self.height = width, height
        self.root.set("width", _fmt(width))
        self.root.set("height", _fmt(height))
        self.root.set("viewBox", f"0 0 {_fmt(width)} {_fmt(height)}")

    def el(self, parent: etree._Element | None, tag: str, text: str | None = None, **attrs: Any) -> etree._Element:
        e = etree.SubElement(self.root if parent is None else parent, f"{{{SVG_NS}}}{tag}",
                             {_attr_name(k): _fmt(v) for k, v in attrs.items() if v is not None})
        if text is not None:
            e.text = text
        return e

    def group(self, parent: etree._Element | None = None, **attrs: Any) -> etree._Element:
        return self.el(parent, "g", **attrs)

    def polygon(self, parent, points, **attrs: Any) -> etree._Element:
        return self.el(parent, "polygon", points=" ".join(f"{_fmt(x)},{_fmt(y)}" for x, y in points), **attrs)

    def polyline(self, parent, points, **attrs: Any) -> etree._Element:
        return self.el(parent, "polyline", points=" ".join(f"{_fmt(x)},{_fmt(y)}" for x, y in points),
                       fill="none", **attrs)

    def line(self, parent, a, b, **attrs: Any) -> etree._Element:
        return self.el(parent, "line", x1=a[0], y1=a[1], x2=b[0], y2=b[1], **attrs)

    def text(self, parent, x: float, y: float, text: str, size: float, *, anchor: str = "middle",
             weight: str = "normal", fill: str = "#000", family: str = FONT, max_width: float | None = None,
             **attrs: Any) -> etree._Element:
        """Text with its baseline at y; shrunk (font size) to fit max_width if given."""
        if max_width is not None:
            size = fit_size(text, size, max_width, weight, condensed=family == FONT_CONDENSED)
        return self.el(parent, "text", text, x=x, y=y, font_size=size, font_family=family, font_weight=weight,
                       text_anchor=anchor, fill=fill, **attrs)

    def tostring(self) -> bytes:
        return etree.tostring(self.root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


def fit_size(text: str, size: float, max_width: float, weight: str = "normal", condensed: bool = False) -> float:
    key = ("condensed-" if condensed else "") + ("bold" if weight == "bold" else "normal")
    key = key.replace("condensed-normal", "condensed")
    width = len(text) * CHAR_EM[key] * size
    return size if width <= max_width or not text else max(size * max_width / width, 5.0)


def text_width(text: str, size: float, weight: str = "normal", condensed: bool = False) -> float:
    key = ("condensed-" if condensed else "") + ("bold" if weight == "bold" else "normal")
    key = key.replace("condensed-normal", "condensed")
    return len(text) * CHAR_EM[key] * size


_PNG_CACHE: dict[tuple[bytes, float], bytes] = {}
_PNG_CACHE_LIMIT = 256 * 2**20  # bytes of PNG kept: a game's counters and boards, several times
_png_cached = 0


def to_png(svg: bytes, scale: float = 1.0) -> bytes:
    """Rasterise with cairosvg (a runtime dependency; it needs the system's libcairo).

    Remembered per process by the SVG's digest: the modules of a game's scenarios share most of
    their art (the board, the counters), and cairosvg takes most of an export's time."""
    import cairosvg

    global _png_cached
    key = (hashlib.sha256(svg).digest(), scale)
    png = _PNG_CACHE.get(key)
    if png is None:
        png = cairosvg.svg2png(bytestring=svg, scale=scale)
        if _png_cached + len(png) > _PNG_CACHE_LIMIT:
            _PNG_CACHE.clear()
            _png_cached = 0
        _PNG_CACHE[key] = png
        _png_cached += len(png)
    return png


# ---------------------------------------------------------------------------- colours
def hex_to_rgb(color: str) -> tuple[int, int, int]:
    c = color.lstrip("#")
    if len(c) == 3:
        c = "".join(ch * 2 for ch in c)
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


def rgb_to_hex(rgb: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{max(0, min(255, round(v))):02x}" for v in rgb)


def mix(color: str, other: str, t: float) -> str:
    """`color` moved a fraction t towards `other`."""
    a, b = hex_to_rgb(color), hex_to_rgb(other)
    return rgb_to_hex(tuple(x + (y - x) * t for x, y in zip(a, b)))


def luminance(color: str) -> float:
    r, g, b = (v / 255 for v in hex_to_rgb(color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ink_on(color: str) -> str:
    """Black or white text, whichever reads better on `color`."""
    return "#000000" if luminance(color) > 0.55 else "#ffffff"


def stable_color(name: str, saturation: float = 0.35, value: float = 0.85) -> str:
    """A deterministic colour for a name nobody gave a colour to."""
    h = int(hashlib.sha256(name.encode()).hexdigest()[:6], 16) / 0xFFFFFF
    return rgb_to_hex(tuple(v * 255 for v in colorsys.hsv_to_rgb(h, saturation, value)))
