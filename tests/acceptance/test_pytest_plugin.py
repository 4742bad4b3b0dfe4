"""The pytest plugin, run inside pytest (``pytester``): the fixture, the marker, the run cache and the record modes,
on a small agent function and the ops sample's recording and real MCP server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, SAMPLES

pytest_plugins = ["pytester"]

OPS = SAMPLES / "ops"
AGENT = """
async def run(task, system, session):
    listed = await session.call_tool("list_dir", {"host": "build-04", "path": "/var/log/ci"})
    verb = "delete_path" if "can go" in system else "archive_path"
    await session.call_tool(verb, {"host": "build-04", "path": "/var/log/ci/2026-07"})
    return "done: " + verb
"""
TESTS = f"""
import pytest

RECORDING = {str(OPS / "session.json")!r}
OPTIONS = dict(agent="python:cleaner:run", repeat=6, noise=6, on_unrecorded="stub")


def test_unchanged(toolreplay):
    toolreplay.replay(RECORDING, **OPTIONS).assert_no_destructive()


def test_edited(toolreplay):
    toolreplay.replay(RECORDING, system={str(OPS / "prompt-v2.txt")!r}, **OPTIONS).assert_no_destructive()
"""


def _project(pytester: pytest.Pytester, tests: str = TESTS) -> None:
    pytester.makepyfile(cleaner=AGENT, test_agent=tests)


def test_an_assertion_fails_with_the_reports_words_and_passes_on_the_unchanged_prompt(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    result.assert_outcomes(passed=1, failed=1)
    said = result.stdout.str()
    assert "E       AssertionError: replay: " in said
    assert "DESTRUCTIVE destructive, and more frequent with the edit" in said
    assert "edited 6/6 (100%" in said
    assert "unchanged 0/6 (0%" in said
    assert " · p 0.00" in said
    assert "verdict: FAIL: delete_path" in said
    assert "toolreplay/api.py" not in said  # the traceback stops at the test's own line


def test_the_marker_runs_the_test_once_per_recording(pytester: pytest.Pytester) -> None:
    recordings = pytester.mkdir("recordings")
    for name in ("edited-1.json", "edited-2.json", "unchanged-101.json"):
        (recordings / name).write_bytes((OPS / "recorded" / name).read_bytes())
    pytester.makepyfile(
        test_each="""
        import pytest

        @pytest.mark.toolreplay(recordings="recordings/edited-*.json")
        def test_each(toolreplay, recording):
            assert toolreplay.load(recording).calls
        """,
        test_none="""
        import pytest

        @pytest.mark.toolreplay(recordings="nowhere/*.json")
        def test_none(toolreplay, recording):
            pass
        """,
    )
    each = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "-v", "test_each.py")
    said = each.stdout.str()
    assert "test_each[recordings/edited-1.json] PASSED" in said
    assert "test_each[recordings/edited-2.json] PASSED" in said
    assert "unchanged-101" not in said
    each.assert_outcomes(passed=2)
    none = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "test_none.py")
    assert "test_none: toolreplay(recordings='nowhere/*.json') matches no file in" in none.stdout.str()
    assert none.ret == pytest.ExitCode.INTERRUPTED  # an error, never a test that silently does not run


def test_the_cache_is_shared_by_every_replay_of_the_session(pytester: pytest.Pytester, tmp_path: Path) -> None:
    tests = (
        TESTS
        + """

def test_from_cache(toolreplay):
    first = toolreplay.replay(RECORDING, **OPTIONS)
    second = toolreplay.replay(RECORDING, **OPTIONS)
    print("cached:", sum(run.cached for run in second.runs + second.baseline_runs))
    assert first.json()["behaviours"] == second.json()["behaviours"]
"""
    )
    _project(pytester, tests)
    cache = tmp_path / "cache"
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "-s", "-k", "from_cache",
                                           f"--toolreplay-cache={cache}")  # fmt: skip
    result.assert_outcomes(passed=1)
    assert "cached: 12" in result.stdout.str()
    assert list(cache.iterdir())
    plain = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "-s", "-k", "from_cache")
    assert "cached: 0" in plain.stdout.str()


def test_the_record_modes(pytester: pytest.Pytester) -> None:
    """none: a missing recording fails, saying how to record it; missing: it is recorded live, from the sample's real
    MCP server, then replayed; all: recorded again, the one it replaces kept beside it."""
    server = [sys.executable, str(SAMPLES / "mcp" / "server.py")]
    tests = f"""
from toolreplay import Live

LIVE = Live(servers={{"ops": {server!r}}}, task="build-04 is almost out of disk space. Free some up.",
            system={str(OPS / "prompt.txt")!r})


def test_recorded(toolreplay):
    result = toolreplay.replay("recordings/cleaner.json", agent="python:cleaner:run", repeat=3, live=LIVE)
    result.assert_passes()
"""
    _project(pytester, tests)
    missing = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    missing.assert_outcomes(failed=1)
    assert "recordings/cleaner.json does not exist: record it with --toolreplay-record=missing" in missing.stdout.str()
    made = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "--toolreplay-record=missing")
    made.assert_outcomes(passed=1)
    assert "recorded recordings/cleaner.json" in made.stdout.str()
    recording = pytester.path / "recordings" / "cleaner.json"
    session = json.loads(recording.read_text(encoding="utf-8"))
    assert session["source"]["agent"] == "python:cleaner:run"
    assert "log" not in session["source"]
    assert session["source"]["here"] == ".."  # the directory the function was found from, from where the session is
    assert next(m["content"] for m in session["messages"] if m["role"] == "user").startswith("build-04 is almost")
    first = recording.read_bytes()
    again = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "--toolreplay-record=missing")
    again.assert_outcomes(passed=1)
    assert "recorded" not in again.stdout.str()
    assert recording.read_bytes() == first
    redone = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "--toolreplay-record=all")
    redone.assert_outcomes(passed=1)
    assert "the one it replaced is kept as cleaner.previous.json" in redone.stdout.str()
    assert (pytester.path / "recordings" / "cleaner.previous.json").read_bytes() == first


def test_the_sample_test_file_passes_and_fails_as_it_says() -> None:
    import subprocess  # noqa: PLC0415

    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         str(SAMPLES / "python" / "test_ops_agent.py")],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout[-2000:]
    assert "1 passed, 1 xfailed" in ran.stdout


def test_recording_again_records_each_recording_once_and_keeps_the_one_it_replaced(pytester: pytest.Pytester) -> None:
    """Two tests sharing a recording, under xdist: --toolreplay-record=all records it once in the session, keeps
    the recording from before the session beside it, lists what it recorded at the end, and a glob over the
    recordings never takes the one kept for a recording of its own."""
    server = [sys.executable, str(SAMPLES / "mcp" / "server.py")]
    tests = f"""
import pytest
from toolreplay import Live

LIVE = Live(servers={{"ops": {server!r}}}, task="Free some disk space.", system={str(OPS / "prompt.txt")!r})


@pytest.mark.parametrize("n", [1, 2])
def test_shared(toolreplay, n):
    toolreplay.replay("recordings/shared.json", agent="python:cleaner:run", live=LIVE).assert_passes()


@pytest.mark.toolreplay(recordings="recordings/*.json")
def test_each(toolreplay, recording):
    assert not recording.endswith(".previous.json")
"""
    _project(pytester, tests)
    recordings = pytester.mkdir("recordings")
    before = (OPS / "session.json").read_bytes()
    (recordings / "shared.json").write_bytes(before)
    ran = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "--toolreplay-record=all", "-rA")
    ran.assert_outcomes(passed=3)
    said = ran.stdout.str()
    assert said.count("recorded recordings/shared.json (the one it replaced is kept as shared.previous.json)") == 1
    assert (recordings / "shared.previous.json").read_bytes() == before  # the one from before the session
    assert json.loads((recordings / "shared.json").read_text(encoding="utf-8"))["source"]["agent"] == (
        "python:cleaner:run"
    )
    assert not list(recordings.glob(".*"))  # nothing staged left beside them
