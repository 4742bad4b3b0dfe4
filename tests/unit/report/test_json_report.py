"""The commands' own JSON: the diff's document by its schema, and every run's calls as JSON Lines."""

from __future__ import annotations

import json

from tests.conftest import ROOT
from toolreplay.analysis.classify import Policy
from toolreplay.analysis.diff import compare_recordings
from toolreplay.commands.diff import read_recording
from toolreplay.core.verdict import FailOn
from toolreplay.formats.recording import load_session
from toolreplay.replay.compare import as_run
from toolreplay.report.json_report import DIFF_SCHEMA, DIFF_VERSION, render_diff_json, run_lines

OPS = ROOT / "samples" / "ops"


def test_the_diff_document_names_its_schema_and_each_new_destructive_call() -> None:
    a, b = read_recording(str(OPS / "session.json")), read_recording(str(OPS / "session-edited.json"))
    result = compare_recordings(a, b, Policy(), FailOn.DESTRUCTIVE)
    document = json.loads(render_diff_json(result))
    assert (document["schema"], document["version"]) == (DIFF_SCHEMA, DIFF_VERSION)
    assert document["new_destructive"] == [p.b.index for p in result.new_destructive if p.b is not None]
    assert document["new_destructive"]
    assert len(document["differences"]) == len(result.differences)


def test_every_call_of_a_run_is_a_line_then_the_run() -> None:
    run = as_run(1, load_session(str(OPS / "session.json")))
    lines = [json.loads(line) for line in run_lines([run], "baseline")]
    assert [line["event"] for line in lines] == ["call"] * len(run.calls) + ["run"]
    assert {line["group"] for line in lines} == {"baseline"}
    assert lines[-1]["calls"] == len(run.calls)
