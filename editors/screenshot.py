"""Render what an editor shows from `warcodex lsp` (a diagnostic and a hover) as an HTML page, for
docs/editors.md: a real VS Code cannot run here, so the page draws the server's real answers.

    .venv/bin/python editors/screenshot.py out.html
    chromium --headless --no-sandbox --hide-scrollbars --screenshot=docs/images/lsp-hover-diagnostics.png --window-size=1250,330 out.html

The server runs as editors run it (a subprocess over stdio); the file is edited as an unsaved
buffer (`u.attack` misspelt), the diagnostics received are drawn as a squiggle with its message,
and the hover of a modifier is drawn as a popup. Code is coloured by the project's Pygments lexer.
"""

from __future__ import annotations

import asyncio
import html
import sys
from pathlib import Path

from lsprotocol import types as T
from markdown_it import MarkdownIt
from pygls.lsp.client import LanguageClient
from pygments import highlight
from pygments.formatters import HtmlFormatter

from warcodex.dsl.lexer import WarcodexLexer

ROOT = Path(__file__).resolve().parents[1]
FILE = ROOT / "games" / "stalingrad42" / "combat.wcx"
FIRST, LAST = 93, 100  # 0-based lines shown: quantity attack_strength (§9.1)


async def ask_server(text: str, edited: str, hover_at: T.Position) -> tuple[list[T.Diagnostic], T.Hover]:
    client = LanguageClient("screenshot", "1")
    published: asyncio.Queue = asyncio.Queue()

    @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params):
        published.put_nowait(params)

    await client.start_io(sys.executable, "-m", "warcodex", "lsp")
    await client.initialize_async(T.InitializeParams(capabilities=T.ClientCapabilities(), root_uri=FILE.parent.as_uri()))
    client.initialized(T.InitializedParams())
    uri = FILE.as_uri()
    client.text_document_did_open(T.DidOpenTextDocumentParams(text_document=T.TextDocumentItem(
        uri=uri, language_id="warcodex", version=1, text=text)))
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[T.TextDocumentContentChangeWholeDocument(text=edited)]))
    while True:
        params = await asyncio.wait_for(published.get(), 60)
        if params.uri == uri and params.version == 2:
            break
    hover = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=hover_at))
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return list(params.diagnostics), hover


def page(lines: list[str], diagnostics: list[T.Diagnostic], hover: T.Hover, hover_line: int) -> str:
    style = HtmlFormatter(style="default").get_style_defs(".code")
    shown = [d for d in diagnostics if FIRST <= d.range.start.line <= LAST]
    rows = []
    for i in range(FIRST, LAST + 1):
        src = lines[i]
        body = highlight(src, WarcodexLexer(), HtmlFormatter(nowrap=True)).rstrip("\n")
        marks = ""
        for d in shown:
            if d.range.start.line == i:
                kind = "error" if d.severity == T.DiagnosticSeverity.Error else "info"
                start, end = d.range.start.character, max(d.range.end.character, d.range.start.character + 1)
                marks += (f'<div class="squiggle {kind}" style="left:{start}ch;width:{end - start}ch"></div>'
                          f'<div class="message {kind}" style="left:{start}ch">{html.escape(d.code or "")}: '
                          f'{html.escape(d.message).replace(chr(10), "<br>")}</div>')
        popup = ""
        if i == hover_line:
            popup = f'<div class="hover">{MarkdownIt().render(hover.contents.value)}</div>'
        rows.append(f'<div class="line"><span class="no">{i + 1}</span><span class="src">{body}{marks}</span>{popup}</div>')
    problems = "".join(
        f'<li class="{"error" if d.severity == T.DiagnosticSeverity.Error else "info"}">'
        f'{html.escape(d.code or "")} · line {d.range.start.line + 1}: {html.escape(d.message.splitlines()[0])}</li>'
        for d in diagnostics)
    return f"""<!doctype html><meta charset="utf-8"><title>warcodex lsp</title>
<style>
body {{ margin:0; font: 14px/1.45 "DejaVu Sans Mono", monospace; background:#fff; color:#222; }}
.bar {{ background:#2c2c32; color:#ddd; padding:6px 12px; font-family: "DejaVu Sans", sans-serif; font-size:13px; }}
.editor {{ padding:10px 0; }}
.line {{ position:relative; white-space:pre; height:21px; }}
.no {{ display:inline-block; width:4ch; color:#999; text-align:right; margin-right:2ch; }}
.src {{ position:relative; display:inline-block; }}
.squiggle {{ position:absolute; top:17px; height:3px; background:
  repeating-linear-gradient(135deg, transparent 0 2px, var(--c) 2px 4px); }}
.squiggle.error {{ --c:#e51400; }} .squiggle.info {{ --c:#1a85ff; }}
.message {{ position:absolute; top:22px; z-index:2; background:#fff4f4; border:1px solid #e51400; padding:2px 6px;
  font-family:"DejaVu Sans", sans-serif; font-size:12px; white-space:pre; }}
.message.info {{ background:#f0f6ff; border-color:#1a85ff; display:none; }}
.hover {{ position:absolute; left:12ch; top:22px; z-index:3; width:900px; white-space:normal; background:#f8f8f8;
  border:1px solid #c8c8c8; box-shadow:0 2px 8px rgba(0,0,0,.25); padding:4px 12px; font-family:"DejaVu Sans", sans-serif;
  font-size:12.5px; line-height:1.35; }}
.hover pre {{ background:#eee; padding:4px 6px; margin:6px 0; }} .hover p {{ margin:6px 0; }}
.hover ol {{ margin:4px 0; padding-left:22px; }}
.problems {{ margin-top:70px; background:#f3f3f3; border-top:1px solid #ccc; padding:4px 12px;
  font-family:"DejaVu Sans", sans-serif; font-size:12px; }}
.problems ul {{ margin:2px 0; padding-left:18px; }} .problems li.error {{ color:#b00000; }} .problems li.info {{ color:#1a5fb4; }}
{style}
</style>
<div class="bar">games/stalingrad42/combat.wcx — unsaved edit: <b>u.attack</b> misspelt <b>u.atack</b>; hover on the
modifier "out of supply" (answers of <code>warcodex lsp</code>, drawn as HTML)</div>
<div class="editor code">{''.join(rows)}</div>
<div class="problems"><b>Problems ({len(diagnostics)})</b><ul>{problems}</ul></div>
"""


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "lsp-screenshot.html")
    text = FILE.read_text(encoding="utf-8")
    edited = text.replace("u.attack > 1", "u.atack > 1", 1)
    lines = edited.split("\n")
    hover_line = next(i for i, s in enumerate(lines) if 'modifier "out of supply" / 2' in s)
    col = lines[hover_line].index("modifier")
    diagnostics, hover = asyncio.run(ask_server(text, edited, T.Position(hover_line, col)))
    out.write_text(page(lines, diagnostics, hover, hover_line), encoding="utf-8")
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
