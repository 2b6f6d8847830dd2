"""Python's cyclic garbage collector paused around work that allocates much, keeps most of it and
makes no reference cycles (parsing a large rules file, an exact odds computation): its automatic
passes would scan the growing heap again and again and find nothing to free. Reference counting
still frees what the work drops."""

from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def cycle_collection_paused():
    """Automatic cyclic garbage collection off for the block; as it was, after (also on an error)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
