"""The run cache: a run kept under its key reads back as it was made, and nothing untrusted is used."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tests.conftest import ROOT
from toolreplay.formats.recording import load_session
from toolreplay.replay.cache import RunCache, digest_of
from toolreplay.replay.compare import as_run
from toolreplay.replay.engine import Run


def _run() -> Run:
    return as_run(3, load_session(str(ROOT / "samples" / "ops" / "session.json")))


def test_a_kept_run_reads_back_as_it_was_made(tmp_path: Path) -> None:
    cache = RunCache(tmp_path / "cache", days=7)
    key = digest_of({"model": "m", "seed": 3})
    assert cache.get(key) is None
    cache.put(key, _run(), {"model": "m"})
    kept = RunCache(tmp_path / "cache", days=7).get(key)
    assert kept is not None
    assert kept.cached
    made = _run()
    unplaced = tuple(dataclasses.replace(call, line=0) for call in made.calls)
    assert dataclasses.replace(kept, cached=False) == dataclasses.replace(made, calls=unplaced)
    assert (cache.stored, cache.hits) == (1, 0)


def test_an_old_or_edited_entry_is_not_used_and_is_said(tmp_path: Path) -> None:
    cache = RunCache(tmp_path / "cache", days=7, now=lambda: 0.0)
    key = digest_of({"model": "m"})
    cache.put(key, _run(), {"model": "m"})
    later = RunCache(tmp_path / "cache", days=7, now=lambda: 8 * 86400.0)
    assert later.get(key) is None
    assert later.expired == 1
    (entry,) = (tmp_path / "cache").rglob("*.json")
    entry.write_text(entry.read_text(encoding="utf-8").replace('"final reply"', '"no final reply"', 1), "utf-8")
    edited = RunCache(tmp_path / "cache", days=7, now=lambda: 0.0)
    assert edited.get(key) is None
    assert len(edited.ignored) == 1
    assert digest_of({"a": 1, "b": 2}) == digest_of({"b": 2, "a": 1})  # canonical: the key does not hang on order
