"""The cyclic garbage collector, around work that makes or keeps many objects and no cycles: parsed recordings.

Parsed JSON holds no reference cycles, so walking it again and again finds nothing to free; what a command reads
is left out of the walks while it works, and collected as before afterwards.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for a while (unless it already is); what was made meanwhile then joins
    the oldest generation at once (through a freeze, where nothing else is frozen), rather than being walked by
    the next collection."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if not gc.get_freeze_count():
            gc.freeze()
            gc.unfreeze()
        gc.enable()


@contextlib.contextmanager
def frozen_for_gc() -> Iterator[None]:
    """Every object made so far (the recordings read, above all) left out of the cyclic garbage collector's
    walks until the block ends (unless something else froze objects): a command working beside large
    recordings does not pay to walk them again and again. They are collected as before afterwards."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
