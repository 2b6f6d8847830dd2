"""How an aid writes what the facts say: in one language (declared labels and the aid's captions),
rule expressions in words, numbers and turns as players read them, and every rulebook section it
cites (collected for the aid's section index).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from warcodex.dsl import ast
from warcodex.exporters.aids.words import Labels, Words, num_text
from warcodex.interpreter.values import Entity


@dataclass
class Ref:
    """A citation of a rulebook section."""
    number: str
    title: str


@dataclass
class Source:
    """Where a table's numbers come from: rulebook, player aid, provisional (with why), derived."""
    kind: str
    label: str
    note: str | None = None
    refs: list[Ref] = field(default_factory=list)

    @property
    def provisional(self) -> bool:
        return self.kind == "provisional"


class AidWriter:
    """The facts of one game and scenario, written in one language."""

    def __init__(self, facts, lang: str) -> None:
        self.facts = facts
        self.game = facts.game
        self.labels = Labels(self.game, lang)
        self.words = Words(self.game, self.labels)
        self.cited: dict[str, Ref] = {}

    def refs(self, citations) -> list[Ref]:
        """The sections cited, each once, recorded for the section index."""
        out = []
        for c in OrderedDict.fromkeys(citations or ()):
            entry = self.game.sections.get(c)
            ref = Ref(c, entry.title if entry is not None else "")
            self.cited.setdefault(c, ref)
            out.append(ref)
        return out

    def source(self, header: ast.Header) -> Source:
        prov = header.provenance
        kind = prov.kind if prov is not None else "rulebook"
        return Source(kind, self.ui("src_" + kind), prov.note if prov is not None else None, self.refs(header.citations))

    def ui(self, key: str, **kw) -> str:
        return self.labels.ui(key, **kw)

    def label(self, name: str) -> str:
        return self.labels.name(name)

    def of(self, decl) -> str:
        return self.labels.of(decl)

    def cond(self, e) -> str | None:
        return self.words(e) if e is not None else None

    def value(self, v) -> str:
        """A property value: a declared name by its label, a list joined, a number as printed."""
        if isinstance(v, Entity):
            return self.label(v.name)
        if isinstance(v, tuple):
            return ", ".join(self.value(x) for x in v)
        if isinstance(v, str):
            return v
        if v is None:
            return "—"
        return num_text(v)

    def turns(self, turns, last: int | None = None) -> str:
        """Turns as a player reads them: `turn 3`, `turns 3–5`, `from turn 17` (to the last turn),
        `3, 5, 7`; `never reached` for none."""
        turns = list(turns)
        if not turns:
            return self.ui("never")
        if turns == list(range(turns[0], turns[-1] + 1)):
            if len(turns) == 1:
                return self.ui("turn_n", t=turns[0])
            if last is not None and turns[-1] == last:
                return self.ui("from_turn", t=turns[0])
            return self.ui("turns_range", a=turns[0], b=turns[-1])
        return ", ".join(str(t) for t in turns)
