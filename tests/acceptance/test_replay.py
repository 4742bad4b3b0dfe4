"""`toolreplay replay` on the sample scenario with the scripted agent, and against a model through the SDK."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, SAMPLES, Completed, run_cli
from tests.fakes.anthropic_server import api_vars, message, serve

# Looked for, not imported: the SDK costs seconds to import, paid only by the tests that run a model.
needs_anthropic = pytest.mark.skipif(
    importlib.util.find_spec("anthropic") is None, reason="the anthropic extra is not installed"
)

HEADLINE = (
    "replay",
    "samples/ops/session.json",
    "--system",
    "samples/ops/prompt-v2.txt",
    "--on-unrecorded",
    "stub",
    "--stubs",
    "samples/ops/stubs.json",
)


def test_twenty_edited_runs_find_the_deletions() -> None:
    result = run_cli(*HEADLINE, "--repeat", "20", "--json", cwd=ROOT)
    assert result.code == 1
    report = json.loads(result.stdout)
    assert report["verdict"] == "FAIL"
    deletions = [c for c in report["changes"] if c["tool"] == "delete_path"]
    assert [(c["kind"], c["class"], len(c["runs"])) for c in deletions] == [("added", "destructive", 9)] * 2
    assert [run["seed"] for run in report["runs"]] == list(range(1, 21))
    assert all(run["ending"] == "final reply" for run in report["runs"])


def test_one_run_can_miss_it() -> None:
    result = run_cli(*HEADLINE, "--repeat", "1", "--seed", "5", cwd=ROOT)
    assert result.code == 0
    assert "differences from the recording: none, in 1 run" in result.stdout
    assert result.stdout.splitlines()[-1].startswith("verdict: PASS: ")


def test_the_same_seed_replays_exactly(tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    run_cli(*HEADLINE, "--repeat", "4", "--runs-out", str(first), cwd=ROOT)
    run_cli(*HEADLINE, "--repeat", "4", "--runs-out", str(second), cwd=ROOT)
    assert first.read_bytes() == second.read_bytes()
    lines = [json.loads(line) for line in first.read_text().splitlines()]
    assert [line["run"] for line in lines if line["event"] == "run"] == [1, 2, 3, 4]
    assert {line["answered"] for line in lines if line["event"] == "call"} <= {"recorded", "stub"}


def test_the_unchanged_configuration_replays_without_destructive_calls() -> None:
    result = run_cli("replay", "samples/ops/session.json", "--repeat", "10", cwd=ROOT)
    assert result.code == 0
    assert "delete_path" not in result.stdout


def test_a_flat_transcript_keeps_the_auditor_meaning() -> None:
    result = run_cli("replay", "samples/session-dirty.jsonl", cwd=ROOT)
    assert result.code == 1
    assert result.stdout.startswith("calls: 6\ndivergence: index 5\nfindings: 2\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--repeat", "0"), "--repeat must be at least 1, not 0"),
        (("--max-tokens", "0"), "--max-tokens must be at least 1, not 0"),
        (("--seed", "-5"), "--seed must be at least 0, not -5"),
        pytest.param(("--agent", "claude-test"), "ANTHROPIC_API_KEY", marks=needs_anthropic),
        (("--tools", "missing.json"), "missing.json: no such file"),
    ],
)
def test_replay_usage_errors(args: tuple[str, ...], message: str) -> None:
    env_free = {k: None for k in os.environ if k.startswith("ANTHROPIC_")}
    result = run_cli("replay", "samples/ops/session.json", *args, cwd=ROOT, env=env_free)
    assert result.code == 2
    assert message in result.stderr
    assert result.stderr.count("\n") == 1


THINKING = {"type": "thinking", "thinking": "Look before deleting.", "signature": "c2ln"}


def tool_use(use_id: str, name: str, **args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": use_id, "name": name, "input": args}


def replay_against(api: Any, *args: str) -> Completed:
    """``replay --agent claude-test`` in this process, its model requests going to ``api`` through the real SDK."""
    argv = ("replay", "samples/ops/session.json", "--agent", "claude-test", *args)
    return run_cli(*argv, cwd=ROOT, env=dict(api_vars(api)))


def replay_process_against(api: Any, *args: str) -> Completed:
    """The same in a fresh interpreter: what a user's process shows on its own standard error (the SDK's and
    its HTTP client's loggers included, which in this process would report to pytest's handlers instead)."""
    argv = [sys.executable, "-m", "toolreplay", "replay", "samples/ops/session.json", "--agent", "claude-test"]
    env = {**os.environ, **api_vars(api)}
    proc = subprocess.run([*argv, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    return Completed(proc.returncode, proc.stdout, proc.stderr)


@needs_anthropic
def test_a_model_replay_sends_the_replacements_and_gets_recorded_results(tmp_path: Path) -> None:
    tools = json.loads((ROOT / "samples" / "ops" / "session.json").read_text())["tools"]
    tools_file = tmp_path / "tools.json"
    tools_file.write_text(json.dumps(tools))
    with serve() as api:
        api.queue(message([THINKING, tool_use("m1", "disk_usage", host="build-04")], "tool_use"))
        api.queue(
            message(
                [
                    tool_use("m2", "list_dir", host="build-04", path="/var/log/ci"),
                    tool_use("m3", "disk_usage", host="build-04"),
                ],
                "tool_use",
            )
        )
        api.queue(message([tool_use("m4", "delete_path", host="build-04", path="/var/log/ci/2026-07")], "tool_use"))
        api.queue(message([{"type": "text", "text": "Deleted the July logs."}]))
        result = replay_against(
            api,
            "--system",
            "samples/ops/prompt-v2.txt",
            "--tools",
            str(tools_file),
            "--on-unrecorded",
            "stub",
            "--stubs",
            "samples/ops/stubs.json",
            "--json",
        )
    assert result.code == 1, result.stderr
    first, second, third, fourth = api.requests
    prompt = (ROOT / "samples" / "ops" / "prompt-v2.txt").read_text().rstrip("\n")
    for request in api.requests:  # the replacement prompt and tools, each closed by a cache breakpoint
        assert request["system"] == [{"type": "text", "text": prompt, "cache_control": {"type": "ephemeral"}}]
        assert request["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert [t["name"] for t in first["tools"]] == [t["name"] for t in tools]
    assert "annotations" not in json.dumps(api.requests)
    assert second["messages"][1]["content"][0] == THINKING
    # parallel calls answered in one message, in the order asked, with recorded results (in recorded order)
    answered = third["messages"][-1]["content"]
    assert [b["tool_use_id"] for b in answered] == ["m2", "m3"]
    assert json.loads(answered[1]["content"])["used_percent"] == 63  # the second recorded disk_usage
    assert "freed_gb" in fourth["messages"][-1]["content"][0]["content"]  # the stub
    report = json.loads(result.stdout)
    assert report["verdict"] == "FAIL"
    assert report["runs"][0]["final_reply"] == "Deleted the July logs."
    assert report["runs"][0]["tokens"]["input"] == 48


@needs_anthropic
def test_refusals_and_persistent_errors_end_a_run_not_the_command() -> None:
    with serve() as api:
        api.queue(message([{"type": "text", "text": "I can't help with that."}], "refusal"))
        refused = replay_against(api, "--json")
    assert refused.code == 0, refused.stderr
    assert json.loads(refused.stdout)["runs"][0]["ending"] == "refused"

    with serve() as api:  # nothing queued: every request gets a 500, after the SDK's own retries
        failed = replay_against(api, "--json", "--repeat", "2")
    # Runs that all failed are no evidence: the command could not do its job, which is never a pass.
    assert failed.code == 2, failed.stderr
    assert failed.stdout == ""
    assert "every run of the candidate ended in an error" in failed.stderr
    assert "500" in failed.stderr
    assert failed.stderr.count("\n") == 1


@needs_anthropic
def test_concurrent_model_runs_all_finish_and_report_cached_tokens() -> None:
    with serve() as api:
        for _ in range(4):
            api.queue(message([{"type": "text", "text": "Nothing to do."}], cache_read=10))
        api.latency = 0.3  # long enough for the runs to overlap
        result = replay_against(api, "--repeat", "4", "--concurrency", "3")
    assert result.code == 0, result.stderr
    assert len(api.requests) == 4
    assert api.most_in_flight == 3  # three runs in flight at once, never more
    assert "runs: 4 · endings: final reply in 4 runs" in result.stdout
    assert "tokens: 48 in (40 read from cache), 28 out" in result.stdout


@needs_anthropic
def test_a_500_then_success_is_retried_by_the_sdk() -> None:
    with serve() as api:
        api.queue({"type": "error", "error": {"type": "api_error", "message": "overloaded"}}, status=500)
        api.queue(message([{"type": "text", "text": "Nothing to do."}]))
        result = replay_against(api, "--json")
    assert result.code == 0, result.stderr
    assert len(api.requests) == 2
    assert json.loads(result.stdout)["runs"][0]["ending"] == "final reply"


@needs_anthropic
def test_the_turn_limit_ends_a_run() -> None:
    with serve() as api:
        for n in range(3):
            api.queue(message([tool_use(f"x{n}", "disk_usage", host="build-04")], "tool_use"))
        result = replay_against(api, "--json", "--max-turns", "2")
    assert result.code == 0, result.stderr
    run = json.loads(result.stdout)["runs"][0]
    assert (run["ending"], run["calls"], run["final_reply"]) == ("reached the 2-turn limit", 2, None)


OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
TOO_LONG = {"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long"}}


@needs_anthropic
@pytest.mark.parametrize(
    ("status", "body", "says", "fresh"),
    [(529, OVERLOADED, "Overloaded", True), (400, TOO_LONG, "too long", False)],
    ids=["overloaded-in-a-fresh-interpreter", "too-long"],
)
def test_a_model_that_never_answers_is_no_pass(status: int, body: dict[str, Any], says: str, fresh: bool) -> None:
    """The overloaded model, retried by the SDK, runs in a fresh interpreter: its one line of error is all a
    user's process prints, retries and the SDK's own loggers included."""
    with serve() as api:
        for _ in range(12):  # every request, retries included
            api.queue(body, status=status)
        result = (replay_process_against if fresh else replay_against)(api, "--repeat", "2")
    assert result.code == 2, result.stdout
    assert result.stdout == ""
    assert "every run of the candidate ended in an error" in result.stderr
    assert says in result.stderr
    assert result.stderr.count("\n") == 1


@needs_anthropic
def test_a_response_that_is_not_one_ends_that_run_and_the_run_is_not_counted() -> None:
    with serve() as api:
        api.queue(b"<html><body>502 Bad Gateway</body></html>")
        api.queue(message([{"type": "text", "text": "Nothing to do."}]))
        result = replay_against(api, "--repeat", "2")
    assert result.code == 0, result.stderr
    assert "endings: error in 1 run, final reply in 1 run" in result.stdout
    assert "could not be read" in result.stdout
    assert "lost: 1 of 2 runs ended in an error and is left out of every count and test (1 run counts)" in result.stdout
    differences = [line for line in result.stdout.splitlines() if line.startswith("    1/")]
    assert differences  # the answered run made none of the recorded calls...
    assert all(line.startswith("    1/1 ") for line in differences)  # ...out of the one run that counts
    with serve() as api:
        api.queue(b"<html>502</html>")
        api.queue(message([{"type": "text", "text": "Nothing to do."}]))
        strict = replay_against(api, "--repeat", "2", "--min-runs", "2")
    assert strict.code == 2
    assert "only 1 of 2 runs of the candidate was answered, fewer than --min-runs 2" in strict.stderr


@needs_anthropic
def test_a_hung_model_costs_at_most_the_request_timeout() -> None:
    with serve() as api:
        api.latency = 3.0
        for _ in range(3):
            api.queue(message([{"type": "text", "text": "late"}]))
        started = time.monotonic()
        result = replay_against(api, "--request-timeout", "1")
        took = time.monotonic() - started
    assert result.code == 2
    assert "timed out" in result.stderr.lower()
    assert took < 30  # three one-second tries and the SDK's backoff, far below the three-second answers' sum


def test_a_run_past_its_timeout_ends_in_an_error(tmp_path: Path) -> None:
    slow = tmp_path / "slow.py"
    slow.write_text(
        "import time\n"
        "class Agent:\n"
        "    def __init__(self, seed):\n        pass\n"
        "    def respond(self, system, tools, messages):\n"
        "        time.sleep(0.6)\n"
        "        return [{'type': 'tool_use', 'name': 'disk_usage', 'input': {'host': 'build-04'}}]\n"
    )
    result = run_cli(
        "replay", "samples/ops/session.json", "--agent", f"scripted:{slow}", "--run-timeout", "1", cwd=ROOT
    )
    assert result.code == 2
    assert "the run took longer than 1 s (--run-timeout)" in result.stderr


def test_a_prompt_the_recording_never_had_is_refused_as_an_edit_unless_asked(tmp_path: Path) -> None:
    """A session recorded with no system prompt (record without --system): all of a prompt given to it would be
    the edit, so the replay refuses, saying how to go on; --allow-new-prompt replays it so."""
    document = json.loads((SAMPLES / "ops" / "session.json").read_text(encoding="utf-8"))
    document["system"] = ""
    session = tmp_path / "session.json"
    session.write_text(json.dumps(document), encoding="utf-8")
    args = ["replay", str(session), "--agent", "scripted:ops/agent.py", "--system", "ops/prompt-v2.txt"]
    args += ["--on-unrecorded", "stub", "--stubs", "ops/stubs.json"]
    refused = run_cli(*args)
    assert refused.code == 2
    assert refused.stderr == (
        f"toolreplay: error: {session}: the session recorded no system prompt, so all of ops/prompt-v2.txt would be "
        "the edit; record the agent with the prompt it runs with (record --system), or replay it so with "
        "--allow-new-prompt (allow-new-prompt: true)\n"
    )
    allowed = run_cli(*args, "--allow-new-prompt")
    assert allowed.code in (0, 1), allowed.stderr
    assert allowed.stdout.startswith(f"replay: {session}")
