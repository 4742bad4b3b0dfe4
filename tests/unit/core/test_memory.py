"""The collector around work on parsed recordings: left out of its walks while the work runs, as before after."""

from __future__ import annotations

import gc

from toolreplay.core.memory import collector_paused, frozen_for_gc


def test_what_was_made_is_frozen_for_the_block_only_and_an_outer_freeze_is_left_alone() -> None:
    assert gc.get_freeze_count() == 0
    with frozen_for_gc():
        assert gc.get_freeze_count() > 0
        with frozen_for_gc():  # someone froze already: theirs to undo
            inner = gc.get_freeze_count()
        assert gc.get_freeze_count() == inner
    assert gc.get_freeze_count() == 0


def test_the_collector_is_off_in_the_block_and_on_after_unless_it_was_off() -> None:
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
