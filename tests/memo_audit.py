"""Playing a real game while auditing what the engine remembers (tests/test_memo.py,
tests/test_search_memo.py): after every change, each remembered value or search is computed again
and compared (`Memos.audit`, `SearchMemo.audit`)."""

from __future__ import annotations

from warcodex.interpreter.context import Context
from warcodex.interpreter.play import agents_for, start


class _Auditing(Context):
    """A context that, after every change, runs its class's `audit` (the wrong entries found, or
    None when there is nothing to audit yet) and fails on the first wrong entry."""

    audits = 0

    def audit(self) -> list | None:
        raise NotImplementedError

    def sync_memos(self):
        values = super().sync_memos()
        was, self.tracing = self.tracing, False
        try:
            found = self.audit()
        finally:
            self.tracing = was
        if found is not None:
            self.audits += 1
            assert not found, found[:5]
        return values


class RuleValues(_Auditing):
    """Every rule value the memos hold (interpreter/memo.py) equals a fresh evaluation."""

    def audit(self):
        return self._memos.audit(self, self.engine.compiler.bodies())


class Searches(_Auditing):
    """Every remembered movement search (interpreter/search_memo.py) equals one run afresh."""

    def audit(self):
        return None if self._searches is None else self._searches.audit(self)


def audited_game(engine, scenario: str, seed: int, auditing: type[_Auditing], actions: int | None):
    """Play `actions` random actions (None: the whole scenario), invariants checked and every sync
    audited; return the game's context (its `audits`, how many syncs were audited)."""
    game = start(engine, scenario, seed, agents_for(engine, ["random"], seed), trace=False, check_invariants=True)
    game.ctx.__class__ = auditing  # the runner keeps this context: every sync is audited
    game.run(max_actions=actions)
    return game.ctx
