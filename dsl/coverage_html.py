"""The coverage report as a standalone HTML page (jinja2)."""

from __future__ import annotations

from jinja2 import Environment, select_autoescape

from warcodex.dsl.coverage import SectionCoverage, summary, tested_count
from warcodex.dsl.model import GameDef

_TEMPLATE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>Coverage: {{ title }}</title>
<style>
 body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
 table { border-collapse: collapse; width: 100%; }
 th, td { border-bottom: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
 .encoded { color: #1e7b34; } .partial { color: #a66b00; } .not_encoded { color: #b3261e; font-weight: bold; }
 .not_applicable { color: #888; } .cites { color: #555; font-size: 12px; }
 .sum span { margin-right: 1.5em; }
</style></head><body>
<h1>Rules coverage: {{ title }}</h1>
<p class="sum">{% for k, v in counts.items() %}<span class="{{ k }}">{{ v }} {{ k.replace('_', ' ') }}</span>{% endfor %}<span>{{ tested }} tested</span></p>
<table><thead><tr><th>§</th><th>Section</th><th>Status</th><th>Tested</th><th>Encoded by / note</th></tr></thead><tbody>
{% for c in report %}<tr id="s{{ c.number }}">
 <td>§{{ c.number }}</td><td style="padding-left: {{ 8 + 16 * c.depth }}px">{{ c.title }}</td>
 <td class="{{ c.status }}">{{ c.status.replace('_', ' ') }}</td>
 <td class="cites">{{ c.tested_by | join(', ') }}</td>
 <td>{% if c.note %}<div>{{ c.note }}</div>{% endif %}<div class="cites">{{ c.cited_by | join('; ') }}</div></td>
</tr>{% endfor %}
</tbody></table></body></html>
"""

_env = Environment(autoescape=select_autoescape(default=True))


def render_html(game: GameDef, report: list[SectionCoverage]) -> str:
    return _env.from_string(_TEMPLATE).render(title=game.game.header.title(), report=report, counts=summary(report),
                                              tested=tested_count(report))
