"""SVG charts for player aids: odds charts (the chance of each result of a table, per column and
die-roll modifier) and hit charts (per unit, the chance to hit on one die).

Every bar is a `<g class="bar">` whose `<rect class="seg">` segments carry the exact probability
(`data-p="1/6"`, a fraction) and the result (`data-result`), so tools and tests can read the
numbers back; the segments of a bar add up to exactly 1.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from html import escape

from warcodex.exporters.aids.hits import HitChart
from warcodex.exporters.aids.odds import OFF_TABLE, Category, OddsChart, pct

# A diverging scale (low rows -> high rows), readable when printed in grey: lightness varies too.
# The pale middle of the usual red-blue scale is left out so that every result stays visible.
_SCALE = ["#8e0c25", "#c8372d", "#e8825f", "#f6c09f", "#a8d0e6", "#63a2cf", "#2f6eaf", "#0f3b73"]
_EMPTY = "#f2f2f2"
_OFF = "#9e9e9e"
FONT = "DejaVu Sans, Arial, sans-serif"


def _hex(c: str) -> tuple[int, int, int]:
    return int(c[1:3], 16), int(c[3:5], 16), int(c[5:7], 16)


def _mix(a: str, b: str, t: float) -> str:
    ra, ga, ba = _hex(a)
    rb, gb, bb = _hex(b)
    return "#%02x%02x%02x" % (round(ra + (rb - ra) * t), round(ga + (gb - ga) * t), round(ba + (bb - ba) * t))


def palette(categories: list[Category]) -> list[str]:
    """One colour per category: the empty cell light grey, off-table mid grey, the others spread
    along the diverging scale in category order; when the results are grouped in families, one
    colour of the scale per family (the attacker's worst red, the defender's worst dark blue) and
    shades of it for the family's cells, cells in no family in greys."""
    if any(c.family is not None for c in categories):
        return _family_palette(categories)
    real = [i for i, c in enumerate(categories) if c.text not in ("-", OFF_TABLE)]
    colours = [""] * len(categories)
    for i, c in enumerate(categories):
        if c.text == "-":
            colours[i] = _EMPTY
        elif c.text == OFF_TABLE:
            colours[i] = _OFF
    n = len(real)
    for k, i in enumerate(real):
        if n <= len(_SCALE):
            # spread over the scale, exact scale colours (no blends) so neighbours stay distinct
            colours[i] = _SCALE[round(k * (len(_SCALE) - 1) / (n - 1))] if n > 1 else _SCALE[5]
            continue
        x = k / (n - 1) * (len(_SCALE) - 1)
        lo = int(x)
        hi = min(lo + 1, len(_SCALE) - 1)
        colours[i] = _mix(_SCALE[lo], _SCALE[hi], x - lo)
    return colours


# Result families (attacker's worst first): one hue each, told apart by hue, not only lightness,
# so that neighbouring families never blend; a family's cells are darker and lighter shades of it.
_FAMILY_HUES = ["#b2182b", "#ef8a3c", "#d9b832", "#5aa8d6", "#2166ac", "#5e3c99"]


def _family_palette(categories: list[Category]) -> list[str]:
    n = max(c.family for c in categories if c.family is not None) + 1
    members: dict = {}
    for i, c in enumerate(categories):
        members.setdefault(c.family, []).append(i)
    colours = [""] * len(categories)
    for fam, idx in members.items():
        if fam is None:
            for k, i in enumerate(idx):
                text = categories[i].text
                colours[i] = _EMPTY if text == "-" else _OFF if text == OFF_TABLE else _mix("#707070", "#ffffff", 0.25 * k)
            continue
        base = _FAMILY_HUES[round(fam * (len(_FAMILY_HUES) - 1) / (n - 1))] if n > 1 else _FAMILY_HUES[4]
        for k, i in enumerate(idx):
            shade = -0.2 + 0.65 * k / (len(idx) - 1) if len(idx) > 1 else 0.0  # darker .. lighter
            colours[i] = _mix(base, "#000000", -shade) if shade < 0 else _mix(base, "#ffffff", shade)
    return colours


def text_colour(background: str) -> str:
    r, g, b = _hex(background)
    return "#000000" if (0.299 * r + 0.587 * g + 0.114 * b) > 140 else "#ffffff"


def tint(colour: str, amount: float = 0.55) -> str:
    """A lighter version of a colour, for table cells behind black text."""
    return _mix(colour, "#ffffff", amount)


def _frac(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def odds_chart_svg(chart: OddsChart) -> str:
    colours = palette(chart.categories)
    n_panels = len(chart.panels)
    per_row = min(4, max(1, n_panels))
    n_bars = max(len(chart.drms), 1)
    bar_w = 24 if n_bars > 1 else 40
    gap = 6
    plot_w = n_bars * bar_w + (n_bars - 1) * gap
    panel_w = max(plot_w + 30, 120)
    plot_h = 150
    panel_h = plot_h + 54
    axis_w = 34
    width = axis_w + per_row * panel_w + 10
    rows = (n_panels + per_row - 1) // per_row
    used = [i for i in range(len(chart.categories)) if any(k == i for p in chart.panels for b in p.bars for k, _ in b.segments)]
    legend, legend_h = _legend(chart, used, colours, width)
    height = rows * panel_h + legend_h + 8
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="odds-chart" viewBox="0 0 {width} {height}" '
           f'width="{width}" height="{height}" data-table="{escape(chart.table)}" font-family="{FONT}" font-size="11">',
           f'<title>{escape(chart.title)}: {escape(chart.intro)}</title>']
    for idx, panel in enumerate(chart.panels):
        r, c = divmod(idx, per_row)
        x0 = axis_w + c * panel_w
        y0 = r * panel_h + 18
        base_y = y0 + plot_h
        title_cls = "auto" if panel.automatic else "column"
        out.append(f'<text x="{x0 + panel_w / 2:.1f}" y="{y0 - 5}" text-anchor="middle" font-weight="bold" '
                   f'fill="{"#7a1020" if panel.automatic else "#000000"}" class="{title_cls}">{escape(panel.column)}</text>')
        for frac_y, label in ((0, "0%"), (0.5, "50%"), (1, "100%")):
            y = base_y - frac_y * plot_h
            out.append(f'<line x1="{x0 + 4}" y1="{y:.1f}" x2="{x0 + panel_w - 6}" y2="{y:.1f}" stroke="#bbbbbb" stroke-width="0.5"/>')
            if c == 0:
                out.append(f'<text x="{x0 - 2}" y="{y + 4:.1f}" text-anchor="end" font-size="9" fill="#555555">{label}</text>')
        bars = panel.bars
        bw = bar_w if len(bars) > 1 or not panel.automatic else 40
        total_w = len(bars) * bw + (len(bars) - 1) * gap
        bx = x0 + (panel_w - total_w) / 2
        for bar in bars:
            out.append(f'<g class="bar" data-table="{escape(chart.table)}" data-column="{escape(panel.column)}" '
                       f'data-drm="{bar.drm}" data-automatic="{str(panel.automatic).lower()}">')
            y = base_y
            for k, p in bar.segments:
                if p == 0:
                    continue
                h = float(p) * plot_h
                y -= h
                cat = chart.categories[k]
                out.append(f'<rect class="seg" x="{bx:.1f}" y="{y:.2f}" width="{bw}" height="{h:.2f}" fill="{colours[k]}" '
                           f'stroke="#ffffff" stroke-width="0.6" data-result="{escape(cat.text)}" data-p="{_frac(p)}">'
                           f'<title>{escape(cat.text)}: {pct(p)}</title></rect>')
                if h >= 13:
                    out.append(f'<text x="{bx + bw / 2:.1f}" y="{y + h / 2 + 3.5:.1f}" text-anchor="middle" font-size="8.5" '
                               f'fill="{text_colour(colours[k])}">{pct(p).rstrip("%")}</text>')
            out.append("</g>")
            if bar.label:
                out.append(f'<text x="{bx + bw / 2:.1f}" y="{base_y + 13}" text-anchor="middle" font-size="9.5">{escape(bar.label)}</text>')
            bx += bw + gap
        if len(bars) > 1 and c == 0:
            out.append(f'<text x="{x0 - 2}" y="{base_y + 13}" text-anchor="end" font-size="8.5" fill="#555555">DRM</text>')
    ly = rows * panel_h + 14
    out += [f'<g transform="translate(0 {ly})">', *legend, "</g>"]
    out.append("</svg>")
    return "\n".join(out)


def hits_chart_svg(chart: HitChart) -> str:
    """Per unit type, one horizontal bar per rolled value (attack, defense): hit and miss."""
    rows = [r for r in chart.rows if r.bars]
    label_w = round(max([170.0] + [text_width(r.unit, 11, bold=True) + 12 for r in rows]))  # the longest name whole
    bar_w = 220
    row_h = 15
    n_props = max(len(chart.props), 1)
    block = n_props * row_h + 8
    width = label_w + 60 + bar_w + 60
    height = len(rows) * block + 40
    colours = ["#2166ac", "#e8e8e8"]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="hits-chart" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" data-table="hits" font-family="{FONT}" font-size="11">']
    y = 10
    for row in rows:
        out.append(f'<text x="{label_w - 6}" y="{y + block / 2}" text-anchor="end" font-weight="bold">{escape(row.unit)}</text>')
        for i, bar in enumerate(row.bars):
            by = y + i * row_h
            out.append(f'<text x="{label_w + 54}" y="{by + 10}" text-anchor="end" font-size="9.5">{escape(bar.label)}</text>')
            out.append(f'<g class="bar" data-table="hits" data-column="{escape(row.unit)}" data-drm="{escape(bar.label)}">')
            x = label_w + 60
            for k, p in bar.segments:
                w = float(p) * bar_w
                cat = chart.categories[k]
                out.append(f'<rect class="seg" x="{x:.2f}" y="{by}" width="{w:.2f}" height="{row_h - 3}" fill="{colours[k]}" '
                           f'data-result="{escape(cat.text)}" data-p="{_frac(p)}"><title>{escape(cat.text)}: {pct(p)}</title></rect>')
                x += w
            out.append("</g>")
            hit = bar.segments[0][1]
            out.append(f'<text x="{label_w + 66 + bar_w}" y="{by + 10}" font-size="9.5">{pct(hit)}</text>')
        y += block
    out.append(f'<rect x="{label_w + 60}" y="{height - 20}" width="11" height="11" fill="{colours[0]}"/>'
               f'<text x="{label_w + 75}" y="{height - 11}" font-size="10">{escape(chart.categories[0].label)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _family_groups(chart: OddsChart, used: list[int]) -> list[tuple[str, list[int]]]:
    """(family label, its categories shown) in the families' order, then the cells in none."""
    if not chart.families:
        return []
    groups = [(f.label + (" †" if f.provisional else ""), [k for k in used if chart.categories[k].family == i])
              for i, f in enumerate(chart.families)]
    rest = [k for k in used if chart.categories[k].family is None]
    if rest:
        empty = all(chart.categories[k].text == "-" for k in rest)
        groups.append((chart.categories[rest[0]].label if empty else chart.other_label, rest))
    return [(label, cells) for label, cells in groups if cells]


def _legend_text(cat: Category) -> str:
    """`DR2: Defender retreats 2`; a cell of several codes is shown by its codes alone."""
    if cat.label == cat.text or "/" in cat.text:
        return cat.text
    return f"{cat.text}: {cat.label}"


LEGEND_SIZE = 10  # font size of the legend's text
LEGEND_LINE = 16  # its line height
SWATCH = 11


def text_width(text: str, size: float = LEGEND_SIZE, bold: bool = False) -> float:
    """The width of `text` in the charts' font (DejaVu Sans, the first of FONT), measured with
    matplotlib's font metrics (its own copy of DejaVu), so that a legend is laid out to fit
    instead of being cut."""
    from matplotlib.font_manager import FontProperties

    props = FontProperties(family="DejaVu Sans", size=size, weight="bold" if bold else "normal")
    return _text_to_path().get_text_width_height_descent(text, props, ismath=False)[0]


@lru_cache(maxsize=1)
def _text_to_path():
    from matplotlib.textpath import TextToPath

    return TextToPath()


def wrap_text(text: str, width: float, size: float = LEGEND_SIZE, bold: bool = False) -> list[str]:
    """`text` in lines of at most `width` (broken after spaces, commas and slashes; a single word
    longer than the line is broken where it must), nothing left out."""
    words = re.findall(r"[^\s,/]*[\s,/]*", text)
    lines, line = [], ""
    for word in (w for w in words if w):
        if line and text_width((line + word).rstrip(), size, bold) > width:
            lines.append(line.rstrip())
            line = ""
        while len(word) > 1 and text_width(word.rstrip(), size, bold) > width:  # a word wider than a line
            cut = 1
            while cut < len(word) - 1 and text_width(word[:cut + 1], size, bold) <= width:
                cut += 1
            lines.append(word[:cut])
            word = word[cut:]
        line += word
    if line.strip() or not lines:
        lines.append(line.rstrip())
    return lines


def _legend(chart: OddsChart, used: list[int], colours: list[str], width: float) -> tuple[list[str], float]:
    """The legend's SVG elements (y from 0) and its height. Nothing is cut: with result families,
    one block per family, its name in bold then each of its cells with its own swatch, flowing
    onto as many lines as it needs; without, every result with its swatch in as many columns as
    the longest label allows, a label too long for one line wrapped."""
    groups = _family_groups(chart, used)
    out: list[str] = []
    right = width - 10
    y = 0.0
    if groups:
        labels = [label for label, _ in groups]
        label_w = max(text_width(label, bold=True) for label in labels) + 12
        # the cells start after the widest family name, unless that leaves them too little room
        beside = label_w <= (right - 10) * 0.45
        cells_x = 10 + label_w if beside else 24.0
        for label, cells in groups:
            out.append(f'<g class="family-legend"><text x="10" y="{y:.1f}" font-size="{LEGEND_SIZE}" font-weight="bold" '
                       f'class="family">{escape(label)}</text>')
            if not beside:
                y += LEGEND_LINE
            x = cells_x
            for k in cells:
                code = chart.categories[k].text
                w = SWATCH + 4 + text_width(code) + 12
                if x > cells_x and x + w - 12 > right:
                    x, y = cells_x, y + LEGEND_LINE
                out.append(f'<rect x="{x:.1f}" y="{y - 9:.1f}" width="{SWATCH}" height="{SWATCH}" fill="{colours[k]}" '
                           f'stroke="#666666" stroke-width="0.5" class="family-swatch" data-result="{escape(code)}"/>')
                out.append(f'<text x="{x + SWATCH + 4:.1f}" y="{y:.1f}" font-size="{LEGEND_SIZE}" fill="#333333" '
                           f'class="family-cell" data-result="{escape(code)}">{escape(code)}</text>')
                x += w
            out.append("</g>")
            y += LEGEND_LINE + 2
        return out, y + 4
    texts = [_legend_text(chart.categories[k]) for k in used]
    widest = max((text_width(t) for t in texts), default=0.0) + SWATCH + 4 + 16
    cols = max(1, min(3, int((right - 10) // widest) if widest else 3))
    col_w = (right - 10) / cols
    for r in range(0, len(used), cols):
        lines_in_row = 1
        for c, (k, text) in enumerate(zip(used[r:r + cols], texts[r:r + cols])):
            x = 10 + c * col_w
            lines = wrap_text(text, col_w - SWATCH - 4 - 16)
            lines_in_row = max(lines_in_row, len(lines))
            out.append(f'<rect x="{x:.1f}" y="{y - 9:.1f}" width="{SWATCH}" height="{SWATCH}" fill="{colours[k]}" '
                       f'stroke="#666666" stroke-width="0.5"/>')
            spans = "".join(f'<tspan x="{x + SWATCH + 4:.1f}" dy="{0 if i == 0 else LEGEND_LINE - 3}">{escape(line)}</tspan>'
                            for i, line in enumerate(lines))
            out.append(f'<text y="{y:.1f}" font-size="{LEGEND_SIZE}" class="result" '
                       f'data-result="{escape(chart.categories[k].text)}">{spans}</text>')
        y += LEGEND_LINE + 2 + (lines_in_row - 1) * (LEGEND_LINE - 3)
    return out, y + 4

