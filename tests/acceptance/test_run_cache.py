"""The run cache: a run is driven once for everything that decides it, and given back after.

The sample's scripted agent (in this process, so cheap to run 20 + 20 times), a model through the real SDK against
the local stand-in of the Messages API (counting the requests it gets), and a program: each replayed twice, and
again with one input changed, which must miss.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SAMPLES, run_cli
from tests.fakes.anthropic_server import api_vars, message, serve
from toolreplay.replay import cache as cache_module

HEADLINE = ("replay", "ops/session.json", "--system", "ops/prompt-v2.txt", "--repeat", "20", "--noise", "20")


def _replay(cache: Path, *more: str) -> tuple[dict[str, Any], str, str]:
    result = run_cli(*HEADLINE, "--cache", str(cache), "--json", *more)
    assert result.code in (0, 1), result.stderr
    return json.loads(result.stdout), result.stdout, result.stderr


def _reused(document: dict[str, Any]) -> tuple[int, int]:
    """Runs from the cache: with the edit, unchanged."""
    return document["from_cache"]["runs"], document["baseline"]["from_cache"]["runs"]


def _without_cache_fields(value: Any) -> Any:
    """A report with what says where its runs came from left out: the rest must not depend on it."""
    if isinstance(value, dict):
        return {k: _without_cache_fields(v) for k, v in value.items() if k not in ("cached", "from_cache", "spent")}
    if isinstance(value, list):
        return [_without_cache_fields(v) for v in value]
    return value


def test_a_second_replay_drives_nothing_and_reports_the_same(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first, _, said = _replay(cache)
    assert _reused(first) == (0, 0)
    assert "the run cache" in said
    assert "0 runs from it, 40 kept" in said
    assert len(list(cache.glob("*/*.json"))) == 40
    second, text, said = _replay(cache)
    assert _reused(second) == (20, 20)
    assert "40 runs from it, 0 kept" in said
    assert _without_cache_fields(second) == _without_cache_fields(first)  # the same verdict, the same evidence
    assert second["verdict"] == "FAIL"
    third = run_cli(*HEADLINE, "--cache", str(cache), "--json")
    assert third.stdout == text  # warm again: byte for byte
    plain = run_cli(*HEADLINE, "--cache", str(cache))
    assert "runs with the edit from the run cache: 20 of 20" in plain.stdout
    assert "runs unchanged from the run cache: 20 of 20" in plain.stdout


def test_a_prompt_change_drives_only_the_edited_runs(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _replay(cache)
    prompt = tmp_path / "prompt-v3.txt"
    prompt.write_text((SAMPLES / "ops" / "prompt-v2.txt").read_text(encoding="utf-8") + "Be brief.\n", "utf-8")
    changed, _, _ = _replay(cache, "--system", str(prompt))
    assert _reused(changed) == (0, 20)  # the unchanged runs main paid for, reused


@pytest.mark.parametrize(
    ("more", "reused"),
    [
        (("--max-turns", "30"), (0, 0)),  # a setting of both sides
        (("--cache-key", "agent 2.0"), (0, 0)),  # what toolreplay cannot see, said by the user
        (("--on-unrecorded", "stub", "--stubs", "ops/stubs.json"), (0, 0)),  # how unrecorded calls are answered
        (("--seed", "2"), (0, 0)),  # every seed: the baseline's start 10,000 above the first
        (("--run-timeout", "600"), (20, 20)),  # no run met the timeout, so a longer one changes none
    ],
    ids=["max-turns", "cache-key", "stubs", "seed", "run-timeout"],
)
def test_what_a_changed_input_reuses(tmp_path: Path, more: tuple[str, ...], reused: tuple[int, int]) -> None:
    cache = tmp_path / "cache"
    _replay(cache)
    changed, _, _ = _replay(cache, *more)
    assert _reused(changed) == reused


def test_changed_tools_miss_for_the_edited_side(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _replay(cache)
    session = json.loads((SAMPLES / "ops" / "session.json").read_text(encoding="utf-8"))
    tools = session["tools"]
    tools[0]["description"] += " Reports in gigabytes."
    file = tmp_path / "tools.json"
    file.write_text(json.dumps(tools), encoding="utf-8")
    changed, _, _ = _replay(cache, "--tools", str(file))
    assert _reused(changed) == (0, 20)


def test_a_new_version_of_toolreplay_misses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    _replay(cache)
    monkeypatch.setattr(cache_module, "__version__", "99.0.0")
    changed, _, _ = _replay(cache)
    assert _reused(changed) == (0, 0)


def test_a_corrupted_entry_is_ignored_said_and_made_again(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _replay(cache)
    entry = sorted(cache.glob("*/*.json"))[0]
    entry.write_text(entry.read_text(encoding="utf-8").replace('"ending": "', '"ending": "x'), encoding="utf-8")
    second, _, said = _replay(cache)
    assert sum(_reused(second)) == 39
    assert f"{entry}: ignored, it fails its own digest" in said
    assert "39 runs from it, 1 kept" in said
    third, _, said = _replay(cache)  # the entry made again, whole
    assert sum(_reused(third)) == 40
    assert "ignored" not in said


def test_an_entry_past_its_time_is_not_used(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _replay(cache)
    old, _, said = _replay(cache, "--cache-days", "0")
    assert _reused(old) == (0, 0)
    assert "40 older than 0 days not used" in said
    fresh, _, _ = _replay(cache)  # the runs made in their place
    assert _reused(fresh) == (20, 20)


def test_a_cache_that_is_a_file_or_refused_twice_is_one_line(tmp_path: Path) -> None:
    file = tmp_path / "cache"
    file.write_text("", encoding="utf-8")
    for args, says in [
        (("--cache", str(file)), "the cache must be a directory"),
        (("--cache", str(tmp_path / "c"), "--no-cache"), "--cache and --no-cache: give one"),
        (("--cache-days", "-1"), "--cache-days must be between 0 and 3650 days"),
    ]:
        result = run_cli(*HEADLINE, *args)
        assert result.code == 2, result.stderr
        assert says in result.stderr
        assert result.stderr.count("\n") == 1


def test_a_model_replayed_twice_is_asked_once(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    args = ("replay", "ops/session.json", "--agent", "claude-test-1", "--repeat", "3", "--cache", str(cache))
    with serve() as api:
        api.respond = lambda request: message([{"type": "text", "text": "Nothing to do."}])
        first = run_cli(*args, "--json", env=api_vars(api))
        asked = len(api.requests)
        second = run_cli(*args, "--json", env=api_vars(api))
        again = len(api.requests) - asked
        third = run_cli(*args, "--json", "--max-tokens", "512", env=api_vars(api))
        changed = len(api.requests) - asked - again
        run_cli(*args, "--agent", "claude-test-2", env=api_vars(api))  # another model
        other = len(api.requests) - asked - again - changed
    assert first.code == 0, first.stderr
    assert (asked, again, changed, other) == (3, 0, 3, 3)
    document = json.loads(second.stdout)
    assert document["from_cache"]["runs"] == 3
    assert document["spent"]["input"] == 0  # nothing new was spent
    assert document["from_cache"]["saved"]["input"] == json.loads(first.stdout)["spent"]["input"] > 0
    assert json.loads(third.stdout)["from_cache"]["runs"] == 0


def test_a_model_run_that_failed_is_asked_again(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    args = ("replay", "ops/session.json", "--agent", "claude-test-1", "--cache", str(cache), "--json")
    with serve() as api:
        api.queue({"type": "error", "error": {"type": "invalid_request_error", "message": "no"}}, status=400)
        failed = run_cli(*args, env=api_vars(api))
        api.respond = lambda request: message([{"type": "text", "text": "Nothing to do."}])
        answered = run_cli(*args, env=api_vars(api))
    assert failed.code == 2  # every run ended in an error: nothing was replayed, and nothing kept
    assert json.loads(answered.stdout)["from_cache"]["runs"] == 0
    assert len(list(cache.glob("*/*.json"))) == 1  # the answered run, kept now


PROGRAM = """\
import json, pathlib, sys
import os
marks = pathlib.Path(os.environ["MARKS"])
marks.write_text(marks.read_text() + "ran\\n" if marks.exists() else "ran\\n")
print("Nothing to do.")
"""


def test_a_program_is_cached_by_the_files_its_command_names(tmp_path: Path) -> None:
    program, marks, cache = tmp_path / "agent.py", tmp_path / "marks.txt", tmp_path / "cache"
    program.write_text(PROGRAM, encoding="utf-8")
    args = ("replay", "ops/session.json", "--agent", f"cmd:{sys.executable} {program}", "--repeat", "2")
    env = {"MARKS": str(marks)}  # not named by the command: a file it names is part of the key
    for _ in range(2):
        result = run_cli(*args, "--cache", str(cache), env=env)
        assert result.code == 0, result.stderr
    assert marks.read_text(encoding="utf-8").count("ran") == 2  # the second replay ran nothing
    program.write_text(PROGRAM + "# the agent's next version\n", encoding="utf-8")
    result = run_cli(*args, "--cache", str(cache), env=env)
    assert result.code == 0, result.stderr
    assert marks.read_text(encoding="utf-8").count("ran") == 4  # its file changed: both runs again


def _repository(tmp_path: Path) -> Path:
    """A repository holding the samples, for a check whose config the test writes."""
    here = tmp_path / "repo"
    shutil.copytree(SAMPLES, here / "samples", ignore=shutil.ignore_patterns("__pycache__"))
    (here / ".git").mkdir()
    return here


def test_check_reuses_runs_from_the_configs_cache_and_says_so(tmp_path: Path) -> None:
    here = _repository(tmp_path)
    config = here / ".toolreplay.yml"
    config.write_text(
        "sessions: [samples/ops/session.json]\n"
        "replay:\n"
        "  - system: samples/ops/prompt-v2.txt\n"
        "    repeat: 20\n"
        "    noise: 20\n"
        "    cache: .toolreplay-cache\n",
        encoding="utf-8",
    )
    first = run_cli("check", "--json", "first.json", cwd=here)
    second = run_cli("check", "--json", "second.json", cwd=here)
    assert first.code == second.code == 1, first.stderr
    assert "the run cache .toolreplay-cache: 0 runs from it, 40 kept" in first.stderr
    assert "the run cache .toolreplay-cache: 40 runs from it, 0 kept" in second.stderr
    document = json.loads((here / "second.json").read_text(encoding="utf-8"))
    replayed = [result for result in document["results"] if result["analysis"] == "replay"]
    assert "(40 of 40 runs from the run cache)" in replayed[0]["summary"]
    third = run_cli("check", "--json", "third.json", cwd=here)
    assert (here / "third.json").read_bytes() == (here / "second.json").read_bytes()  # warm again: byte for byte
    assert third.stdout == second.stdout
    off = run_cli("check", "--no-cache", cwd=here)
    assert "run cache" not in off.stderr + off.stdout


def _budgeted(*more: str) -> tuple[Any, int, str]:
    """The headline against a model on the local API (each run one answer of 12 tokens in, 7 out), with ``more``."""
    model = "claude-sonnet-4-5"
    args = (
        "replay",
        "ops/session.json",
        "--agent",
        model,
        "--baseline-agent",
        model,
        "--repeat",
        "20",
        "--noise",
        "20",
    )
    with serve() as api:
        api.respond = lambda request: message([{"type": "text", "text": "Nothing to do."}])
        result = run_cli(*args, *more, env=api_vars(api))
        asked = len(api.requests)
    return result, asked, result.stdout


@pytest.mark.parametrize("budget", [("--max-tokens-total", "190"), ("--max-cost", "0.00145")], ids=["tokens", "usd"])
def test_a_budget_that_allows_10_of_40_runs_stops_at_10_and_never_passes(budget: tuple[str, str]) -> None:
    result, asked, text = _budgeted(*budget, "--json")
    assert asked == 10  # ten runs of one request each; no 11th started
    document = json.loads(text)
    # the two sides in turn, so what the budget allowed can still be weighed: 5 edited runs against 5 unchanged
    assert (len(document["runs"]), len(document["baseline"]["runs"])) == (5, 5)
    assert document["budget"].startswith("stopped by its budget after 10 runs (")
    assert document["verdict"] == "WARN"  # what ten runs show, and never a pass
    assert result.code == 0
    plain = _budgeted(*budget)[2]
    assert "stopped by its budget after 10 runs" in plain
    assert "verdict: WARN" in plain


def test_a_dollar_budget_for_a_model_without_a_price_is_refused_before_any_run() -> None:
    result, asked, _ = _budgeted("--max-cost", "1", "--baseline-agent", "claude-test-unknown")
    assert result.code == 2
    assert asked == 0
    assert "no price is known for claude-test-unknown" in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize(("lifetime", "control"), [([], {"type": "ephemeral"}), (["--prompt-cache", "1h"],
                         {"type": "ephemeral", "ttl": "1h"})], ids=["5m", "1h"])  # fmt: skip
def test_the_prompt_cache_lives_as_long_as_asked(lifetime: list[str], control: dict[str, str]) -> None:
    """The breakpoints after the system prompt and the tools carry the lifetime asked for (five minutes is the
    API's default, sent as no ttl)."""
    args = ("replay", "ops/session.json", "--agent", "claude-sonnet-4-5", "--system", "ops/prompt-v2.txt")
    with serve() as api:
        api.respond = lambda request: message([{"type": "text", "text": "Nothing to do."}])
        result = run_cli(*args, *lifetime, env=api_vars(api))
        (request,) = api.requests
    assert result.code == 0, result.stderr
    assert request["system"][-1]["cache_control"] == control
    assert request["tools"][-1]["cache_control"] == control


def test_a_prompt_cache_lifetime_the_api_lacks_is_refused() -> None:
    result = run_cli("replay", "ops/session.json", "--prompt-cache", "2h")
    assert result.code == 2
    assert "--prompt-cache must be one of 5m, 1h, not '2h'" in result.stderr


def _turns(request: dict[str, Any]) -> dict[str, Any]:
    """A model that asks for the disk usage, then answers."""
    if len(request["messages"]) == 1:
        return message([{"type": "tool_use", "id": "toolu_1", "name": "disk_usage", "input": {"host": "build-04"}}],
                       "tool_use")  # fmt: skip
    return message([{"type": "text", "text": "build-04 is at 97%."}])


def test_batched_runs_go_in_step_one_batch_per_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolreplay.agents.providers import anthropic as claude  # noqa: PLC0415

    monkeypatch.setattr(claude, "BATCH_POLL", 0.01)
    model = "claude-sonnet-4-5"
    args = ["replay", "ops/session.json", "--agent", model, "--baseline-agent", model, "--repeat", "3", "--noise", "3"]
    args.append("--batch")
    with serve() as api:
        api.respond = _turns
        api.batch_polls = 3  # each batch is still in progress the first looks
        result = run_cli(*args, "--json", env=api_vars(api))
    assert result.code in (0, 1), result.stderr
    assert list(api.batches) == [f"msgbatch_{n:04d}" for n in range(1, 5)]  # two turns a side, each one batch
    assert [len(results) for results in api.batches.values()] == [3, 3, 3, 3]  # every run of the side in each
    document = json.loads(result.stdout)
    assert [run["calls"] for run in document["runs"]] == [1, 1, 1]
    assert {run["ending"] for run in document["runs"]} == {"final reply"}
    assert all(run["final_reply"] == "build-04 is at 97%." for run in document["runs"])


def test_a_batch_past_the_run_timeout_is_cancelled_and_its_runs_end_in_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolreplay.agents.providers import anthropic as claude  # noqa: PLC0415

    monkeypatch.setattr(claude, "BATCH_POLL", 0.05)
    args = ("replay", "ops/session.json", "--agent", "claude-sonnet-4-5", "--repeat", "2", "--batch")
    with serve() as api:
        api.respond = _turns
        api.batch_polls = 10**6
        result = run_cli(*args, "--run-timeout", "1", env=api_vars(api))
    assert result.code == 2
    assert "had not ended by the run timeout; it was cancelled" in result.stderr
    assert api.cancelled == ["msgbatch_0001"]


def test_batch_is_for_a_model() -> None:
    result = run_cli("replay", "ops/session.json", "--agent", "scripted:ops/agent.py", "--batch")
    assert result.code == 2
    assert "batch: only a model's runs are sent as batches" in result.stderr


PAYING = """\
import json
print(json.dumps({"type": "result", "result": "done", "total_cost_usd": 1.0}))
"""


def test_a_budget_with_the_cache_reports_what_it_could_and_pays_each_run_once(tmp_path: Path) -> None:
    program = tmp_path / "paying.py"
    program.write_text(PAYING, encoding="utf-8")
    args = ["replay", "ops/session.json", "--agent", f"cmd:{sys.executable} {program}", "--repeat", "5"]
    args += ["--max-cost", "2.5", "--cache", str(tmp_path / "cache"), "--json"]
    first = json.loads(run_cli(*args).stdout)
    assert (len(first["runs"]), first["verdict"]) == (2, "WARN")  # $1 a run: two fit in $2.50
    second = json.loads(run_cli(*args).stdout)  # the two kept are free; two more fit
    assert (len(second["runs"]), second["from_cache"]["runs"], second["verdict"]) == (4, 2, "WARN")
    assert second["spent"]["cost_usd"] == 2.0


def test_a_python_programs_own_modules_are_part_of_its_key(tmp_path: Path) -> None:
    """A program that imports a module beside it (as the sample's mcp_agent.py imports agent.py): a change to the
    module misses, though the command never names it."""
    (tmp_path / "policy.py").write_text("REPLY = 'Nothing to do.'\n", encoding="utf-8")
    program = tmp_path / "agent.py"
    program.write_text("import sys\nsys.path.insert(0, sys.argv[1])\nimport policy\nprint(policy.REPLY)\n", "utf-8")
    args = ["replay", "ops/session.json", "--agent", f"cmd:{sys.executable} {program} {tmp_path}"]
    args += ["--cache", str(tmp_path / "cache"), "--json"]
    assert json.loads(run_cli(*args).stdout)["from_cache"]["runs"] == 0
    assert json.loads(run_cli(*args).stdout)["from_cache"]["runs"] == 1
    (tmp_path / "policy.py").write_text("REPLY = 'Deleted the old logs.'\n", encoding="utf-8")
    changed = json.loads(run_cli(*args).stdout)
    assert changed["from_cache"]["runs"] == 0
    assert changed["runs"][0]["final_reply"] == "Deleted the old logs."


@pytest.mark.parametrize("entry", ["fifo", "device", "infinite-index", "made-at-no-time"])
def test_a_hostile_entry_is_ignored_and_said(tmp_path: Path, entry: str) -> None:
    """An entry that is a FIFO (a read would block), a device (a read would never end), or one whose digest holds
    but whose run cannot be (an index past any number) or whose time never came: said, and the run made again."""
    cache = tmp_path / "cache"
    args = ("replay", "ops/session.json", "--cache", str(cache), "--json")
    assert run_cli(*args).code == 0
    (path,) = cache.glob("*/*.json")
    data = path.read_bytes()
    path.unlink()
    if entry == "fifo":
        os.mkfifo(path)
    elif entry == "device":
        path.symlink_to("/dev/zero")
    else:
        body = json.loads(data)["entry"]
        if entry == "infinite-index":
            body["run"]["calls"][0]["index"] = float("inf")
        else:
            body["made"] = float("nan")
        text = json.dumps(body, sort_keys=True).encode()
        digest = hashlib.sha256(text).hexdigest().encode()
        path.write_bytes(b'{"digest": "%s", "entry": %s}\n' % (digest, text))
    result = run_cli(*args)
    assert result.code == 0, result.stderr
    assert f"{path}: ignored" in result.stderr
    assert json.loads(result.stdout)["from_cache"]["runs"] == 0


def test_a_models_runs_are_reported_at_its_list_price_and_a_batch_at_half() -> None:
    """Each run of one answer of 12 tokens in and 7 out, on a model at $3 and $15 a million: $0.000141."""
    costs = []
    for more in ([], ["--batch"]):
        args = ["replay", "ops/session.json", "--agent", "claude-sonnet-4-5", "--repeat", "3", "--json", *more]
        with serve() as api:
            api.respond = lambda request: message([{"type": "text", "text": "Nothing to do."}])
            result = run_cli(*args, env=api_vars(api))
        assert result.code == 0, result.stderr
        document = json.loads(result.stdout)
        assert [run["cost_usd"] for run in document["runs"]] == [round(0.000141 / (1 + len(more)), 6)] * 3
        assert document["spent"]["cost_usd"] == round(sum(run["cost_usd"] for run in document["runs"]), 6)
        costs.append(document["spent"]["cost_usd"])
    assert costs[0] == 0.000423
    assert costs[1] < costs[0] / 1.9


def test_a_configs_own_prices_price_a_model_the_table_lacks(tmp_path: Path) -> None:
    here = _repository(tmp_path)
    config = here / ".toolreplay.yml"
    config.write_text(
        "sessions: [samples/ops/session.json]\n"
        "prices:\n"
        "  claude-test: {input: 1000, output: 2000}\n"  # $0.012 in, $0.014 out: $0.026 a run
        "replay:\n"
        "  agent: claude-test-1\n"
        "  repeat: 4\n"
        "  max-cost: 0.06\n",
        encoding="utf-8",
    )
    with serve() as api:
        api.respond = lambda request: message([{"type": "text", "text": "Nothing to do."}])
        result = run_cli("check", "--json", "out.json", cwd=here, env=api_vars(api))
        asked = len(api.requests)
    assert result.code == 0, result.stderr
    assert asked == 2  # $0.026 each: two fit in $0.06, a third would not
    document = json.loads((here / "out.json").read_text(encoding="utf-8"))
    assert document["verdict"] == "WARN"
    assert document["counts"]["budget-spent"] == 1
    config.write_text(config.read_text(encoding="utf-8").replace("output: 2000", "output: -1"), encoding="utf-8")
    refused = run_cli("check", cwd=here)
    assert refused.code == 2
    assert ".toolreplay.yml:3" in refused.stderr
    assert "must be dollars per million tokens" in refused.stderr


def test_a_run_its_timeout_ended_is_never_kept(tmp_path: Path) -> None:
    """A program's run that its timeout ended (after calls, so it counts) is driven again next time: the timeout is
    not in the key, so a longer one must not be given the cut-short run."""
    from toolreplay.formats.recording import load_session  # noqa: PLC0415
    from toolreplay.replay.cache import CachedRunner, RunCache  # noqa: PLC0415
    from toolreplay.replay.engine import ReplaySetup, Run  # noqa: PLC0415
    from toolreplay.replay.progress import Progress  # noqa: PLC0415
    from toolreplay.settings import Unrecorded  # noqa: PLC0415

    class Ending:
        """Runs that end as told: the runner seam's contract, without a program behind it."""

        def __init__(self, ending: str) -> None:
            self.ending = ending
            self.driven = 0

        def runs(self, setup: ReplaySetup, seeds: Any, start: int, progress: Progress) -> list[Run]:
            self.driven += len(seeds)
            return [Run(start + n, seed, (), (), self.ending, None) for n, seed in enumerate(seeds)]

    setup = ReplaySetup(load_session(str(SAMPLES / "ops" / "session.json")), "", (), Unrecorded.ERROR, None, 50)
    for ending, kept in (("timed out after 1 s", 0), ("final reply", 2)):
        cache = RunCache(tmp_path / ending.replace(" ", "-"), 7)
        inner = Ending(ending)
        runner = CachedRunner(inner, cache, {"program": ["p"]})
        for _ in range(2):
            runner.runs(setup, [1, 2], 1, Progress(2, io.StringIO()))
        assert (cache.stored, inner.driven) == (kept, 4 if not kept else 2)


def test_a_budget_at_the_configs_top_bounds_the_whole_check_spread_over_its_replays(tmp_path: Path) -> None:
    """``max-cost`` at the top: each replay may take what is left divided among the replays still to run, so what
    one leaves unspent goes to the next; each says what it spent, and the check never goes past the bound."""
    here = _repository(tmp_path)
    program = here / "paying.py"
    program.write_text(PAYING, encoding="utf-8")  # $1 a run
    agent = f"cmd:{sys.executable} {{here}}/paying.py"
    config = here / ".toolreplay.yml"
    config.write_text(
        "sessions: [samples/ops/session.json]\n"
        "max-cost: 4\n"
        "replay:\n"
        f"  - {{agent: '{agent}', repeat: 1}}\n"  # its share is $2; it spends $1
        f"  - {{agent: '{agent}', repeat: 5}}\n",  # its share is what is left: $3
        encoding="utf-8",
    )
    result = run_cli("check", "--json", "out.json", cwd=here)
    assert result.code == 0, result.stderr
    document = json.loads((here / "out.json").read_text(encoding="utf-8"))
    replays = [unit for unit in document["results"] if unit["analysis"] == "replay"]
    assert [len(unit["runs"]) for unit in replays] == [1, 3]
    assert [unit["summary"].rsplit("; ", 1)[1] for unit in replays] == [
        "spent $1.0000, 0 tokens of the check's budget",
        "spent $3.0000, 0 tokens of the check's budget",
    ]
    assert document["counts"]["budget-spent"] == 1  # the second was stopped by it, and says so
    config.write_text("sessions: [samples/ops/session.json]\nmax-cost: 4\n", encoding="utf-8")
    refused = run_cli("check", cwd=here)
    assert refused.code == 2
    assert refused.stderr == (
        "toolreplay: error: .toolreplay.yml:2: a budget bounds the replays, and the config has none\n"
    )


def test_a_wrapper_scripts_program_beside_it_is_part_of_its_key(tmp_path: Path) -> None:
    """The documented wrapper (``cmd:sh {here}/agent/run.sh``, which starts ``agent.py`` beside it): an edit to
    ``agent.py``, tracked by git beside the script, misses the cache, though the command never names it; a file
    ``cache-files:`` names does too; the note says which files the key covered."""
    here = _repository(tmp_path)
    shutil.rmtree(here / ".git")
    agent = here / "agent"
    agent.mkdir()
    (agent / "run.sh").write_text(f'exec {sys.executable} "$(dirname "$0")/agent.py"\n', encoding="utf-8")
    (agent / "agent.py").write_text("print('Nothing to do.')\n", encoding="utf-8")
    (here / "prompts.txt").write_text("one\n", encoding="utf-8")
    (here / ".toolreplay.yml").write_text(
        "sessions: [samples/ops/session.json]\n"
        "replay:\n"
        "  agent: 'cmd:sh {here}/agent/run.sh'\n"
        "  cache: .cache\n"
        "  cache-files: [prompts.txt]\n",
        encoding="utf-8",
    )
    git = ["git", "-C", str(here), "-c", "user.email=ci@example.com", "-c", "user.name=CI"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "agent"], check=True)

    def from_cache() -> tuple[int, str]:
        done = run_cli("check", "--json", "out.json", cwd=here)
        assert done.code == 0, done.stderr
        note = next(line for line in done.stderr.splitlines() if "the run cache" in line)
        found = re.search(r": (\d+) runs? from it", note)
        assert found, note
        return int(found.group(1)), note

    assert from_cache()[0] == 0
    hits, note = from_cache()
    assert hits == 1
    assert "a program's runs keyed on 3 files (agent/run.sh, agent/agent.py, prompts.txt;" in note
    (agent / "agent.py").write_text("print('Deleted the old logs.')\n", encoding="utf-8")
    assert from_cache()[0] == 0  # the program beside the script changed: a miss
    assert from_cache()[0] == 1
    (here / "prompts.txt").write_text("two\n", encoding="utf-8")
    assert from_cache()[0] == 0  # a file cache-files names changed: a miss
