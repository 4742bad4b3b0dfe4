"""The check's verify unit, with the check's shared context: a sealed file's chain at the line it breaks."""

from __future__ import annotations

from tests.conftest import ROOT
from toolreplay.check.context import Checker
from toolreplay.check.plan import plan
from toolreplay.check.sealed import verify_unit
from toolreplay.core.findings import Rule
from toolreplay.core.outcome import Analysis
from toolreplay.formats.config.read import read_config
from toolreplay.results.locate import Paths


def test_each_sealed_file_is_verified_and_the_edited_one_breaks_at_its_line() -> None:
    config = read_config(str(ROOT / "samples" / ".toolreplay.yml"), ROOT)
    checker = Checker(config, Paths(ROOT))
    units = [unit for unit in plan(config, checker.paths) if unit.analysis is Analysis.VERIFY]
    results = {unit.path.rsplit("/", 1)[1]: verify_unit(checker, unit) for unit in units}
    assert sorted(results) == ["clean.sealed.jsonl", "edited.sealed.jsonl"]
    assert results["clean.sealed.jsonl"].findings == ()
    (broken,) = results["edited.sealed.jsonl"].findings
    assert broken.rule is Rule.CHAIN_BROKEN
    assert (broken.location.path, broken.location.line) == ("samples/sealed/edited.sealed.jsonl", 3)
    assert not checker.broken(str(ROOT / "samples" / "sealed" / "clean.sealed.jsonl"))
