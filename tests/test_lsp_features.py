"""The language server's features in process, on every bundled game and on a file with every
construct of the grammar; the editor grammars kept in sync with the Lark grammar."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lark.grammar import NonTerminal

from warcodex.dsl import ast, lexer
from warcodex.dsl.parser import grammar_parser
from warcodex.lsp import names as N
from warcodex.lsp.completion import complete
from warcodex.lsp.keywords import declaration_keywords, keywords
from warcodex.lsp.outline import document_symbols, section_lenses
from warcodex.lsp.project import GameProject, norm
from warcodex.lsp.resolve import GameIndex
from warcodex.lsp.server import _describe_target, server
from warcodex.lsp.textmate import grammar, grammar_words, render
from warcodex.lsp.tokens import TOKEN_TYPES, semantic_tokens

ROOT = Path(__file__).resolve().parents[1]
GAMES = sorted(p.parent.name for p in (ROOT / "games").glob("*/game.wcx"))


@pytest.fixture(scope="module", params=GAMES)
def checked(request):
    project = GameProject(ROOT / "games" / request.param)
    found = project.refresh()
    return project, GameIndex(project), found


def test_every_bundled_game_checks_clean_in_the_server(checked):
    project, index, found = checked
    assert project.game is not None and len(project.order) >= 5
    codes = {d.code for ds in found.values() for d in ds}
    assert codes <= {"W-provisional"}, codes


def test_every_name_resolves_and_hovers_without_error(checked):
    project, index, _ = checked
    resolved = 0
    for pf in project.parsed_files():
        for occ in pf.names.occurrences:
            target = index.resolve(pf, occ)
            text = _describe_target(server, project, index, target)
            if target.kind in ("decl", "section", "builtin", "local"):
                assert text, (pf.path, occ)
                resolved += 1
        assert document_symbols(pf.module, project.game.sections) is not None
        data = semantic_tokens(index, pf)
        assert len(data) % 5 == 0 and all(t < len(TOKEN_TYPES) for t in data[3::5])
    assert resolved > 200


def test_each_declaration_is_found_from_each_use(checked):
    """Every use of a declared name resolves to a declaration of that name, and references of
    every declaration include its own name token."""
    project, index, _ = checked
    for name, decls in list(index.decls.items())[:60]:
        path, decl = decls[0]
        pf = project.files[path]
        occ = pf.names.at(decl.header.span.line - 1, decl.header.span.column - 1)
        assert occ is not None and occ.role == N.DECL and occ.name == name
        target = index.resolve(pf, occ)
        refs = index.references(target)
        assert any(r.path == path and r.line == occ.line and r.col == occ.col for r in refs)


def test_sections_list_gets_a_coverage_lens(checked):
    from warcodex.dsl.coverage import coverage

    project, index, _ = checked
    cov = {c.number: c for c in coverage(project.game)}
    lenses = [lens for pf in project.parsed_files() for lens in section_lenses(pf.module, cov)]
    assert len(lenses) == len(project.game.sections)
    titles = {lens.command.title.split(" · ")[0] for lens in lenses}
    assert titles <= {"encoded", "partial", "not encoded", "not applicable"} and "encoded" in titles


def test_tiny_hover_texts_follow_the_rules():
    project = GameProject(ROOT / "games" / "tiny")
    project.refresh()
    index = GameIndex(project)
    path = norm(ROOT / "games" / "tiny" / "combat.wcx")
    text = Path(path).read_text()
    lines = text.split("\n")
    line = next(i for i, s in enumerate(lines) if s.startswith("quantity defense_strength"))
    pf, occ, target = index.at(path, line, lines[line].index("defense_strength"))
    hover = _describe_target(server, project, index, target)
    # §7.5 halving first (multiply stage, written first), then the two doublings of group doubling
    assert '1. multiply: `"disrupted" / 2 round up when u is disrupted` §7.5 (' in hover
    assert "2. multiply: `\"in a town\" * 2 when terrain(u.loc) is town group doubling`" in hover
    # a terrain name used in a rule: hover shows the entity with its provenance and citations
    col = lines[line + 3].index("is town") + 3
    pf, occ, target = index.at(path, line + 3, col)
    assert target.kind == "decl" and target.decls[0][1].kind == "terrain"


def test_rename_of_a_terrain_reaches_the_map(tmp_path):
    import shutil

    game = tmp_path / "tiny"
    shutil.copytree(ROOT / "games" / "tiny", game)
    project = GameProject(game)
    project.refresh()
    index = GameIndex(project)
    target = index.resolve(*_decl_occurrence(project, index, "forest"))
    in_map = index.map_references(target)
    assert in_map and all(Path(loc.path).suffix == ".wcmap" for loc in in_map)
    map_text = Path(in_map[0].path).read_text().split("\n")
    assert all(map_text[loc.line][loc.col:loc.end] == "forest" for loc in in_map)


def _decl_occurrence(project, index, name):
    path, decl = index.decls[name][0]
    pf = project.files[path]
    return pf, pf.names.at(decl.header.span.line - 1, decl.header.span.column - 1)


def test_every_construct_of_the_grammar_is_indexed():
    """tests/data/all_constructs.wcx has every construct: each declaration's name is found as
    one, and no name token is left unclassified."""
    from warcodex.dsl.parser import parse_with_tree

    path = ROOT / "tests" / "data" / "all_constructs.wcx"
    tree, module = parse_with_tree(path.read_text(), str(path))
    names = N.index_file(tree, module)
    decls = [d for d in N.iter_decls(module) if d.header.span is not None and not isinstance(d, (ast.Trigger,))
             and d.header.span.end_column - d.header.span.column == len(d.name)]
    found = {(o.line, o.col) for o in names.occurrences if o.role == N.DECL}
    assert {(d.header.span.line - 1, d.header.span.column - 1) for d in decls} == found
    roles = {o.role for o in names.occurrences}
    assert roles >= {N.DECL, N.BINDER, N.USE, N.FIELD, N.KEY, N.TYPE, N.CITATION, N.SECTION}


def test_role_tables_name_rules_of_the_grammar():
    """The few grammar rules the name index treats specially must exist (a renamed rule would
    silently fall back to 'uses names')."""
    rules = {r.origin.name for r in grammar_parser().rules} | {r.alias for r in grammar_parser().rules if r.alias}
    special = set(N.BINDERS) | set(N.KEYS) | N.FIELDS | N.TYPES | {N.SECTION_LIST}
    assert special <= rules, special - rules


def test_completion_offers_sections_fields_and_names():
    project = GameProject(ROOT / "games" / "tiny")
    project.refresh()
    index = GameIndex(project)
    pf = project.files[norm(ROOT / "games" / "tiny" / "combat.wcx")]
    sections = {i.label: i.detail for i in complete(index, pf, "  modifier \"x\" + 1 §7.", 0, 22)}
    assert sections["7.3"] == project.game.sections["7.3"].title
    fields = {i.label for i in complete(index, pf, "  base: u.", 0, 10)}
    assert {"steps", "loc", "attack", "has_attacked"} <= fields
    names = {i.label: i for i in complete(index, pf, "  base: att", 3, 11)}
    assert "attack_strength" in names and names["odds"].detail.startswith("odds(attack: num, defense: num)")
    assert "quantity" in names and "u" in names  # a keyword, and a local of the enclosing quantity


def test_textmate_grammar_is_generated_from_the_lark_grammar():
    committed = ROOT / "editors" / "vscode" / "syntaxes" / "warcodex.tmLanguage.json"
    assert committed.read_text() == render(), "regenerate: python -m warcodex.lsp.textmate > " + str(committed)
    assert grammar_words(json.loads(committed.read_text())) == set(keywords())


def test_pygments_lexer_knows_every_keyword_of_the_grammar():
    lexed = set(lexer._DECL_CLASS + lexer._DECL_FUNC + lexer._DECL_VAR + lexer._DECL_BARE + lexer._KEYWORDS
                + lexer._OPERATOR_WORDS + lexer._CONSTANTS + lexer._PROVENANCE + ("override",))
    assert set(keywords()) <= lexed, set(keywords()) - lexed
    # `on EVENT` has a rule of its own in the lexer
    lexer_decls = set(lexer._DECL_CLASS + lexer._DECL_FUNC + lexer._DECL_VAR + lexer._DECL_BARE) | {"on"}
    assert set(declaration_keywords()) <= lexer_decls, set(declaration_keywords()) - lexer_decls


def test_keywords_come_from_the_grammar_terminals():
    assert {"quantity", "modifier", "terrain", "side_var", "at_most", "provisional", "clamp"} <= set(keywords())
    decl_rules = [exp[0].name for r in grammar_parser().rules if r.origin.name == "decl"
                  for exp in [r.expansion] if isinstance(exp[0], NonTerminal)]
    assert len(decl_rules) >= 15
    assert {"quantity", "unit", "terrain", "var", "on", "phase", "card"} <= set(declaration_keywords())


def test_section_lens_counts_rule_tests():
    from warcodex.dsl.coverage import coverage

    project = GameProject(ROOT / "games" / "tiny")
    project.refresh()
    cov = {c.number: c for c in coverage(project.game)}
    module = project.files[norm(ROOT / "games" / "tiny" / "sections.wcx")].module
    lenses = {lens.command.title for lens in section_lenses(module, cov, {"7.3": 2, "7.4": 1})}
    assert any(t.endswith(" · 2 tests") for t in lenses) and any(t.endswith(" · 1 test") for t in lenses)
    assert any(t.endswith(" · 0 tests") for t in lenses)


def test_hover_on_a_provisional_property_says_so():
    """Tiny's rifle division has invented counter values (provisional): hovering its `attack`
    key shows the value and that it is not published."""
    from warcodex.lsp.server import _prop_at
    from warcodex.lsp.describe import describe_prop

    project = GameProject(ROOT / "games" / "tiny")
    project.refresh()
    path = norm(ROOT / "games" / "tiny" / "components.wcx")
    lines = Path(path).read_text().split("\n")
    start = next(i for i, s in enumerate(lines) if s.startswith("unit rifle"))
    line = next(i for i in range(start, len(lines)) if lines[i].strip().startswith("attack:"))
    decl, prop = _prop_at(project.files[path].module, line, lines[line].index("attack"))
    text = describe_prop(decl, prop, project.game)
    assert text.startswith("**attack** of unit `rifle`: `")
    assert "PROVISIONAL" in text and "invented counter values" in text


def test_incremental_checks_agree_with_a_full_check():
    """After edits (an error typed, then undone) the server's cached re-check reports exactly what
    `warcodex check` reports, for an error in one file and the provisional data of all."""
    from warcodex.dsl.checker import check_path

    def key(ds):
        return sorted((d.code, norm(d.span.file), d.span.line, d.span.column, d.message) for d in ds)

    folder = ROOT / "games" / "axis-allies-1941"
    project = GameProject(folder)
    first = project.refresh()
    _, full = check_path(folder)
    assert key(d for ds in first.values() for d in ds) == key(full.items)
    path = norm(folder / "combat.wcx")
    text = Path(path).read_text()
    assert "u.attack" in text
    project.buffers[path] = text.replace("u.attack", "u.attack + undeclared_thing", 1)
    edited = project.refresh()
    assert [d.code for d in edited[path] if d.code != "W-provisional"] == ["E-undefined"]
    project.buffers[path] = text
    again = project.refresh()
    assert key(d for ds in again.values() for d in ds) == key(full.items)
