"""The language server driven as an editor drives it: `warcodex lsp` in a subprocess, LSP messages
over its stdin/stdout (pytest-lsp). Edits are sent as unsaved buffers: no file is written."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = Path(__file__).resolve().parents[1]
GAME = ROOT / "games" / "stalingrad42"
COMBAT = GAME / "combat.wcx"
pytestmark = pytest.mark.asyncio(loop_scope="module")


# facts (hover) are built in the background after a pause; they have a test of their own on Tiny
SERVER = [sys.executable, "-m", "warcodex", "lsp"]


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(
    server_command=SERVER, server_env=dict(os.environ, WARCODEX_LSP_FACTS="0")))
async def client(lsp_client: LanguageClient):
    result = await lsp_client.initialize_session(T.InitializeParams(
        capabilities=pytest_lsp.client_capabilities("visual-studio-code"), root_uri=GAME.as_uri()))
    lsp_client.server_capabilities = result.capabilities  # what the server announced
    yield
    await lsp_client.shutdown_session()


def _uri(path: Path) -> str:
    return path.as_uri()


def _find(text: str, needle: str, nth: int = 0) -> T.Position:
    """The position of the nth occurrence of `needle` (columns in UTF-16 units, as VS Code counts)."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at)
    col = at - (text.rfind("\n", 0, at) + 1)
    return T.Position(line, len(text[at - col:at].encode("utf-16-le")) // 2)


async def _diagnostics_after(client: LanguageClient, uri: str, predicate, timeout: float = 120.0):
    """Wait for published diagnostics of `uri` that satisfy `predicate` (a generous wait, not a speed
    test: a cold check of Stalingrad takes over 20 s of wall time on the shared machine under load)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        found = client.diagnostics.get(uri)
        if found is not None and predicate(found):
            return found
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise AssertionError(f"no matching diagnostics for {uri}: {found}")
        try:
            await asyncio.wait_for(client.wait_for_notification(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), remaining)
        except asyncio.TimeoutError:
            pass


async def _open(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    client.text_document_did_open(T.DidOpenTextDocumentParams(text_document=T.TextDocumentItem(
        uri=_uri(path), language_id="warcodex", version=version, text=text if text is not None else path.read_text())))
    return _uri(path)


async def test_error_is_reported_at_its_range_and_cleared(client: LanguageClient):
    text = COMBAT.read_text()
    uri = await _open(client, COMBAT, text)
    # the bundled game checks clean: only provisional data, as information
    clean = await _diagnostics_after(client, uri, lambda ds: True)
    assert all(d.severity == T.DiagnosticSeverity.Information for d in clean)
    assert all(d.code == "W-provisional" for d in clean)

    # a misspelt unit property inside attack_strength (§9.1): `u.attack` -> `u.atack`
    start = _find(text, "u.attack > 1")
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[T.TextDocumentContentChangePartial(
            range=T.Range(T.Position(start.line, start.character + 2), T.Position(start.line, start.character + 8)),
            text="atack")]))
    found = await _diagnostics_after(client, uri, lambda ds: any(d.severity == T.DiagnosticSeverity.Error for d in ds))
    errors = [d for d in found if d.severity == T.DiagnosticSeverity.Error]
    assert [d.code for d in errors] == ["E-unknown-property"]
    assert "atack" in errors[0].message and "hint:" in errors[0].message
    assert errors[0].range == T.Range(T.Position(start.line, start.character + 2),
                                      T.Position(start.line, start.character + 7))

    # typing it back clears the error
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[T.TextDocumentContentChangeWholeDocument(text=text)]))
    await _diagnostics_after(client, uri, lambda ds: not any(d.severity == T.DiagnosticSeverity.Error for d in ds))


async def test_syntax_error_while_typing_keeps_other_files_checked(client: LanguageClient):
    text = COMBAT.read_text()
    uri = await _open(client, COMBAT, text)
    broken = text + "\nquantity half_typed(u: unit\n"
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=10),
        content_changes=[T.TextDocumentContentChangeWholeDocument(text=broken)]))
    found = await _diagnostics_after(client, uri, lambda ds: any(d.code == "E-syntax" for d in ds))
    syntax = [d for d in found if d.code == "E-syntax"]
    # at the end of the half-typed line, where ')' is missing
    assert syntax[0].range.start == T.Position(broken.count("\n") - 1, len("quantity half_typed(u: unit"))
    assert "expected ')'" in syntax[0].message
    # a file declared elsewhere still resolves: hover in another file answers
    movement = await _open(client, GAME / "movement.wcx")
    hover = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=movement),
        position=_find((GAME / "movement.wcx").read_text(), "is_oos")))
    assert hover is not None and "marked Out of Supply" in hover.contents.value
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=11),
        content_changes=[T.TextDocumentContentChangeWholeDocument(text=text)]))
    await _diagnostics_after(client, uri, lambda ds: not any(d.code == "E-syntax" for d in ds))


async def test_hover_on_a_modifier_shows_its_stage_and_section(client: LanguageClient):
    text = COMBAT.read_text()
    uri = await _open(client, COMBAT, text)
    pos = _find(text, 'modifier "out of supply"')
    hover = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=pos))
    value = hover.contents.value
    assert "quantity `attack_strength`" in value
    assert "§16.4 (Out-of-supply penalties)" in value
    # attack_strength's modifiers: -1 winter (add) first, then the two halvings and the doubling
    assert "Stage: **multiply** — applies 3 of 4" in value


async def test_hover_on_a_quantity_lists_modifiers_in_composition_order(client: LanguageClient):
    text = COMBAT.read_text()
    uri = await _open(client, COMBAT, text)
    hover = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=_find(text, "attack_strength(u: unit")))
    value = hover.contents.value
    assert "quantity attack_strength(u: unit, target: location): int" in value
    assert "ru: Сила атаки" in value and "§9.1 (" in value
    order = [value.index(label) for label in ('"winter: -1 (never below 1)"', '"attacking across a major river"',
                                              '"out of supply"', '"Axis mountain unit attacking a mountain hex"')]
    assert order == sorted(order)
    assert "1. add:" in value and "4. multiply:" in value


async def test_definition_jumps_to_another_file(client: LanguageClient):
    text = COMBAT.read_text()
    uri = await _open(client, COMBAT, text)
    result = await client.text_document_definition_async(T.DefinitionParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=_find(text, "is_oos(u)")))
    assert len(result) == 1
    target = result[0]
    assert target.uri == _uri(GAME / "movement.wcx")
    movement = (GAME / "movement.wcx").read_text().split("\n")
    assert movement[target.range.start.line].startswith("function is_oos(u: unit)")
    assert movement[target.range.start.line][target.range.start.character:target.range.end.character] == "is_oos"


async def test_completion_after_section_sign_offers_titles(client: LanguageClient):
    text = COMBAT.read_text()
    uri = await _open(client, COMBAT, text)
    pos = _find(text, "§16.4")
    result = await client.text_document_completion_async(T.CompletionParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=T.Position(pos.line, pos.character + 1),
        context=T.CompletionContext(trigger_kind=T.CompletionTriggerKind.TriggerCharacter, trigger_character="§")))
    items = {i.label: i for i in result.items}
    assert items["16.4"].detail == "Out-of-supply penalties"
    assert items["9.5.2"].detail == "Major rivers"
    assert "attack_strength" not in items  # only sections after §


async def test_references_and_rename_span_files(client: LanguageClient):
    text = COMBAT.read_text()
    uri = await _open(client, COMBAT, text)
    pos = _find(text, "is_oos(u)")
    refs = await client.text_document_references_async(T.ReferenceParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=pos,
        context=T.ReferenceContext(include_declaration=True)))
    files = {Path(r.uri).name for r in refs}
    expected = {p.name for p in GAME.glob("*.wcx") if "is_oos(" in p.read_text() and p.name != "units_test.wcx"}
    assert files >= expected - {"units_test.wcx"} and "movement.wcx" in files
    edit = await client.text_document_rename_async(T.RenameParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=pos, new_name="out_of_supply_marked"))
    assert set(edit.changes) == {r.uri for r in refs}
    assert sum(len(v) for v in edit.changes.values()) == len(refs)
    assert all(e.new_text == "out_of_supply_marked" for v in edit.changes.values() for e in v)


async def test_document_symbols_are_grouped_by_section(client: LanguageClient):
    uri = await _open(client, COMBAT)
    symbols = await client.text_document_document_symbol_async(T.DocumentSymbolParams(
        text_document=T.TextDocumentIdentifier(uri=uri)))
    groups = {s.name: s for s in symbols if s.kind == T.SymbolKind.Namespace}
    assert "§9.1 Combat strength" in groups or any(name.startswith("§9.1 ") for name in groups)
    group = next(s for name, s in groups.items() if name.startswith("§9.1 "))
    assert "attack_strength" in [c.name for c in group.children]


async def test_formatting_returns_the_fmt_layout(client: LanguageClient):
    from warcodex.dsl.formatter import format_text

    path = GAME / "victory.wcx"
    text = path.read_text()
    messy = text.replace("\n  ", "\n      ", 3)
    uri = await _open(client, path, messy)
    edits = await client.text_document_formatting_async(T.DocumentFormattingParams(
        text_document=T.TextDocumentIdentifier(uri=uri), options=T.FormattingOptions(tab_size=2, insert_spaces=True)))
    assert len(edits) == 1 and edits[0].range.start == T.Position(0, 0)
    assert edits[0].new_text == format_text(messy, str(path)) == format_text(text, str(path))
    client.text_document_did_close(T.DidCloseTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=uri)))


async def test_semantic_tokens_colour_names_by_what_they_denote(client: LanguageClient):
    text = COMBAT.read_text()
    uri = await _open(client, COMBAT, text)
    legend = client.server_capabilities.semantic_tokens_provider.legend.token_types
    result = await client.text_document_semantic_tokens_full_async(T.SemanticTokensParams(
        text_document=T.TextDocumentIdentifier(uri=uri)))
    data, line, col, tokens = result.data, 0, 0, {}
    lines = text.split("\n")
    for i in range(0, len(data), 5):
        dl, dc, length, typ, _ = data[i:i + 5]
        line, col = line + dl, (col + dc if dl == 0 else dc)
        tokens[(line, col)] = (lines[line][col:col + length], legend[typ])
    pos = _find(text, "quantity attack_strength")
    assert tokens[(pos.line, pos.character + len("quantity "))] == ("attack_strength", "function")
    pos = _find(text, "is_oos(u)")
    assert tokens[(pos.line, pos.character)] == ("is_oos", "function")
    assert tokens[(pos.line, pos.character + len("is_oos("))] == ("u", "parameter")
    pos = _find(text, "§16.4")
    assert tokens[(pos.line, pos.character)] == ("§16.4", "macro")


async def test_code_lens_on_the_sections_list(client: LanguageClient):
    path = GAME / "sections.wcx"
    text = path.read_text()
    uri = await _open(client, path, text)
    lenses = await client.text_document_code_lens_async(T.CodeLensParams(text_document=T.TextDocumentIdentifier(uri=uri)))
    lines = text.split("\n")
    by_line = {lens.range.start.line: lens.command.title for lens in lenses}
    line_92 = next(i for i, s in enumerate(lines) if s.strip().startswith('§9.5.2 "Major rivers"'))
    assert by_line[line_92].startswith("encoded · ")
    assert len(lenses) == sum(1 for s in lines if s.strip().startswith("§"))


async def test_workspace_symbols_and_local_rename(client: LanguageClient):
    text = COMBAT.read_text()
    uri = await _open(client, COMBAT, text)
    symbols = await client.workspace_symbol_async(T.WorkspaceSymbolParams(query="atkstr"))
    assert "attack_strength" in {s.name for s in symbols}
    # `u` of attack_strength is a parameter: renaming it stays inside the quantity
    pos = _find(text, "attack_strength(u: unit")
    pos = T.Position(pos.line, pos.character + len("attack_strength("))
    edit = await client.text_document_rename_async(T.RenameParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=pos, new_name="unit_"))
    lines = sorted(e.range.start.line for e in edit.changes[uri])
    assert set(edit.changes) == {uri}
    assert lines[0] == pos.line and lines[-1] <= pos.line + 6 and len(lines) >= 8
    # a built-in cannot be renamed
    pos = _find(text, "adjacent(u.loc)")
    assert await client.text_document_prepare_rename_async(T.PrepareRenameParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=pos)) is None


TINY = ROOT / "games" / "tiny"


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(
    server_command=SERVER, server_env=dict(os.environ, WARCODEX_LSP_FACTS_DELAY="0")))
async def tiny_client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(T.InitializeParams(
        capabilities=pytest_lsp.client_capabilities("neovim"), root_uri=TINY.as_uri()))
    yield
    await lsp_client.shutdown_session()


async def test_hover_shows_facts_of_the_compiled_game(tiny_client: LanguageClient):
    """Once the facts are built (in the background), a unit type's hover says who owns it and how
    many start on the map: the Meeting Engagement set-up (§9) places three Soviet rifle divisions."""
    path = TINY / "components.wcx"
    text = path.read_text()
    uri = await _open(tiny_client, path, text)
    pos = _find(text, "unit rifle")
    pos = T.Position(pos.line, pos.character + len("unit "))
    for _ in range(100):
        hover = await tiny_client.text_document_hover_async(T.HoverParams(
            text_document=T.TextDocumentIdentifier(uri=uri), position=pos))
        if "Facts of scenario" in hover.contents.value:
            break
        await asyncio.sleep(0.1)
    value = hover.contents.value
    assert "Owned by: soviet (inferred)" in value
    assert "At the start: 3 unit(s)" in value


async def test_a_file_of_no_game_gets_its_syntax_errors(tiny_client: LanguageClient, tmp_path):
    path = tmp_path / "notes.wcx"
    path.write_text('terrain forest "Forest" §1\nquantity q(u: unit "label" {\n')
    uri = await _open(tiny_client, path)
    found = await _diagnostics_after(tiny_client, uri, lambda ds: len(ds) > 0)
    assert [d.code for d in found] == ["E-syntax"]
    assert found[0].range.start.line == 1  # `(u: unit "label"`: the ')' is missing on line 2
