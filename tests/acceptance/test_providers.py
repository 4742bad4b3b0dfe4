"""Models beyond Claude, through the real SDKs against local stand-ins: an OpenAI model over Chat Completions and
the Responses API gives the verdict a ``cmd:`` program gives for the same behaviour; a session recorded through the
Anthropic SDK replays on an OpenAI model against the recorded Claude model; Claude on Bedrock and Vertex; a model
fault is exit 2 in one line, never a pass; a pull request cannot send the key elsewhere."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import pytest

from tests.conftest import SAMPLES, run_cli
from tests.fakes.anthropic_server import FakeMessagesAPI, api_vars, message
from tests.fakes.anthropic_server import serve as serve_claude
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.openai_server import serve as serve_openai
from tests.fakes.ops_openai import PERMISSIVE, OpsModel

KEY = {"OPENAI_API_KEY": "sk-test-0000000000000000", "OPENAI_BASE_URL": None}
EDIT = ("--system", "ops/prompt-v2.txt", "--on-unrecorded", "stub", "--stubs", "ops/stubs.json")


@pytest.fixture
def openai_api() -> Iterator[FakeOpenAI]:
    with serve_openai() as fake:
        fake.respond = OpsModel().respond
        yield fake


def _replay(api: FakeOpenAI, tmp_path: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    """The replay's exit code and JSON report, and its text report of one more run (what a person reads)."""
    done = run_cli("replay", "ops/session.json", *EDIT, "--base-url", api.base_url, "--json", *args, env=KEY)
    assert done.code in (0, 1), done.stderr
    shown = run_cli("replay", "ops/session.json", *EDIT, "--base-url", api.base_url, *args, "--repeat", "1",
                    "--noise", "0", "--min-runs", "1", env=KEY)  # fmt: skip
    return done.code, json.loads(done.stdout), shown.stdout


def _tallies(report: dict[str, Any]) -> list[tuple[str, int, int]]:
    return sorted((t["verdict"], t["edited"]["hits"], t["unchanged"]["hits"]) for t in report["behaviours"])


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_an_openai_model_at_20_and_20_runs_fails_on_the_deletion_the_edit_allows(
    openai_api: FakeOpenAI, tmp_path: Path, api: str
) -> None:
    code, report, shown = _replay(openai_api, tmp_path, "--agent", "openai/gpt-4.1", "--baseline-agent",
                                  "openai/gpt-4.1", "--api", api, "--repeat", "20", "--noise", "20")  # fmt: skip
    assert code == 1
    assert {path for path, _ in openai_api.requests} == {"/chat/completions" if api == "chat" else "/responses"}
    assert report["candidate"] == "openai/gpt-4.1"
    assert report["ran_on"].startswith("OpenAI Chat Completions at" if api == "chat" else "the OpenAI Responses API")
    assert ("DESTRUCTIVE", 9, 0) in _tallies(report)
    assert "candidate: openai/gpt-4.1 (" in shown
    assert f"({report['ran_on']})" in shown
    assert "127.0.0.1" in report["ran_on"]


def test_the_in_process_runs_give_what_a_program_on_the_same_policy_gives_run_for_run(
    openai_api: FakeOpenAI, tmp_path: Path
) -> None:
    """The same seeded policy, once as a model behind the stand-in (seeds by conversation, in order) and once as
    the sample's MCP program given {seed}: the same behaviours, the same counts, the same verdict."""
    code, in_process, _ = _replay(openai_api, tmp_path, "--agent", "openai/gpt-4.1", "--baseline-agent",
                                  "openai/gpt-4.1", "--repeat", "8", "--noise", "8", "--rounds", "1")  # fmt: skip
    command = (
        f"cmd:{sys.executable} {{here}}/ops/mcp_agent.py --mcp-config {{mcp_config}} --system {{system}} "
        "--seed {seed} {task}"
    )
    done = run_cli("replay", "ops/session.json", *EDIT, "--agent", command, "--repeat", "8", "--noise", "8",
                   "--rounds", "1", "--concurrency", "4", "--json")  # fmt: skip
    program = json.loads(done.stdout)
    assert (done.code, _tallies(program)) == (code, _tallies(in_process))
    assert any(verdict == "DESTRUCTIVE" for verdict, _, _ in _tallies(program))


def test_runs_at_once_through_the_async_client_and_as_a_batch_make_the_same_behaviours(
    openai_api: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import toolreplay.agents.providers.openai as provider  # noqa: PLC0415

    _, one_by_one, _ = _replay(openai_api, tmp_path, "--agent", "openai/gpt-4.1", "--baseline-agent",
                               "openai/gpt-4.1", "--repeat", "6", "--noise", "6", "--rounds", "1")  # fmt: skip
    with serve_openai() as fake:
        fake.respond = OpsModel().respond
        _, at_once, _ = _replay(fake, tmp_path, "--agent", "openai/gpt-4.1", "--baseline-agent", "openai/gpt-4.1",
                                "--repeat", "6", "--noise", "6", "--rounds", "1", "--concurrency", "4")  # fmt: skip
    monkeypatch.setattr(provider, "BATCH_POLL", 0.01)
    with serve_openai() as fake:
        fake.respond = OpsModel().respond
        _, batched, _ = _replay(fake, tmp_path, "--agent", "openai/gpt-4.1", "--baseline-agent", "openai/gpt-4.1",
                                "--repeat", "6", "--noise", "6", "--rounds", "1", "--batch")  # fmt: skip
        assert fake.batches  # every turn went as a batch
    assert _tallies(at_once) == _tallies(one_by_one) == _tallies(batched)
    assert batched["spent"]["cost_usd"] < one_by_one["spent"]["cost_usd"]  # a batch at half the price


def _recorded_on_claude(tmp_path: Path, api: FakeMessagesAPI) -> Path:
    """The ops task recorded through the Anthropic SDK's client wrapped by RecordingClient, the tools answered as the
    sample's recording answered them."""
    from toolreplay.formats.session.reader import parse_session  # noqa: PLC0415
    from toolreplay.record.anthropic_client import RecordingClient  # noqa: PLC0415

    sample = parse_session((SAMPLES / "ops" / "session.json").read_text(), SAMPLES / "ops" / "session.json")
    assert sample.context is not None
    results = {(c.tool, json.dumps(c.args, sort_keys=True)): c.result for c in sample.calls}
    tools = [{"name": t.name, "description": t.description, "input_schema": t.input_schema}
             for t in sample.context.tools]  # fmt: skip
    path = tmp_path / "session.json"
    annotations = {t.name: t.annotations for t in sample.context.tools if t.annotations}  # the API has no field
    client = RecordingClient(anthropic.Anthropic(api_key="sk-ant-test", base_url=api.url), path,
                             annotations=annotations)  # fmt: skip
    messages: list[dict[str, Any]] = [{"role": "user", "content": sample.context.messages[0]["content"]}]
    system = str(sample.context.system)
    for _ in range(10):
        answer = client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, system=system, tools=tools,
                                        messages=messages)  # fmt: skip
        blocks = [block.model_dump(exclude_none=True) for block in answer.content]
        messages.append({"role": "assistant", "content": blocks})
        uses = [block for block in blocks if block["type"] == "tool_use"]
        if not uses:
            break
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": u["id"],
             "content": results[(u["name"], json.dumps(u["input"], sort_keys=True))]} for u in uses]})  # fmt: skip
    return path


def _claude_ops(api: FakeMessagesAPI) -> None:
    """The sample's policy as Claude behind the Messages stand-in, each conversation its side's next seed."""
    model = OpsModel()

    def respond(request: dict[str, Any]) -> dict[str, Any]:
        system = request["system"][0]["text"] if isinstance(request.get("system"), list) else request["system"]
        body = {"model": "x", "input": [], "instructions": system}
        for turn in request["messages"]:  # as Responses items, which OpsModel reads
            content = turn["content"]
            if isinstance(content, str):
                body["input"].append({"role": "user", "content": content})
                continue
            for block in content:
                if block["type"] == "tool_use":
                    body["input"].append({"type": "function_call", "call_id": block["id"], "name": block["name"],
                                          "arguments": json.dumps(block["input"])})  # fmt: skip
                elif block["type"] == "tool_result":
                    text = block["content"] if isinstance(block["content"], str) else block["content"][0]["text"]
                    body["input"].append({"type": "function_call_output", "call_id": block["id"]
                                          if "id" in block else block["tool_use_id"], "output": text})  # fmt: skip
        answered = model.respond("/responses", body)
        blocks: list[dict[str, Any]] = []
        for item in answered["output"]:
            if item["type"] == "message":
                blocks.append({"type": "text", "text": item["content"][0]["text"]})
            else:
                blocks.append({"type": "tool_use", "id": item["call_id"], "name": item["name"],
                               "input": json.loads(item["arguments"])})  # fmt: skip
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        return message(blocks, stop_reason=stop, model="claude-sonnet-4-5")

    api.respond = respond


def test_a_session_recorded_on_claude_replays_on_an_openai_model_against_the_recorded_claude_model(
    openai_api: FakeOpenAI, tmp_path: Path
) -> None:
    """The model migration: the baseline is the recorded Claude model (the unchanged prompt), the candidate an
    OpenAI model given the edited prompt; the report names each side's provider and model."""
    with serve_claude() as claude:
        _claude_ops(claude)
        recording = _recorded_on_claude(tmp_path, claude)
        recorded = json.loads(recording.read_text())
        assert recorded["model"] == "claude-sonnet-4-5"
        assert any(m["role"] == "assistant" for m in recorded["messages"])
        shutil.copy(SAMPLES / "ops" / "prompt-v2.txt", tmp_path / "prompt-v2.txt")
        shutil.copy(SAMPLES / "ops" / "stubs.json", tmp_path / "stubs.json")
        args = ("replay", str(recording), "--system", "prompt-v2.txt", "--agent", "openai/gpt-4.1", "--base-url",
                openai_api.base_url, "--on-unrecorded", "stub", "--stubs", "stubs.json", "--repeat", "10", "--noise",
                "10", "--rounds", "1")  # fmt: skip
        done = run_cli(*args, "--json", cwd=tmp_path, env={**KEY, **api_vars(claude)})
        assert done.code == 1, done.stderr
        report = json.loads(done.stdout)
        baseline_claude_requests = len(claude.requests)
        shown = run_cli(*args, cwd=tmp_path, env={**KEY, **api_vars(claude)}).stdout
    assert report["candidate"] == "openai/gpt-4.1"
    assert report["ran_on"].startswith("OpenAI Chat Completions")
    assert report["baseline"]["candidate"] == "claude-sonnet-4-5"
    assert report["baseline"]["ran_on"] == "the Anthropic Messages API"
    assert baseline_claude_requests > 10  # the unchanged runs asked Claude, the recording's own model
    assert any(path == "/chat/completions" for path, _ in openai_api.requests)
    assert "unchanged: claude-sonnet-4-5 (the Anthropic Messages API)" in shown
    assert "DESTRUCTIVE" in [t["verdict"] for t in report["behaviours"]]
    first = openai_api.requests[0][1]
    assert PERMISSIVE in first["messages"][0]["content"]  # the candidate was told the edited prompt
    assert first["max_tokens"] == 1024  # the recorded request's max_tokens, mapped for a server of its own


@pytest.mark.parametrize(
    ("agent", "env", "path"),
    [
        ("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
         {"AWS_REGION": "us-east-1", "AWS_BEARER_TOKEN_BEDROCK": "bedrock-key"}, "/model/"),
        ("vertex/claude-sonnet-4-5@20250929",
         {"CLOUD_ML_REGION": "us-east5", "ANTHROPIC_VERTEX_PROJECT_ID": "p", "ANTHROPIC_VERTEX_ACCESS_TOKEN": "t"},
         "/projects/p/locations/us-east5/"),
    ],
    ids=["bedrock", "vertex"],
)  # fmt: skip
def test_claude_on_bedrock_and_vertex_replays_the_same_session_with_the_same_verdict(
    tmp_path: Path, agent: str, env: dict[str, str], path: str
) -> None:
    with serve_claude() as claude:
        _claude_ops(claude)
        done = run_cli("replay", "ops/session.json", *EDIT, "--agent", agent, "--baseline-agent", agent,
                       "--base-url", claude.url + ("/v1" if "vertex" in agent else ""), "--repeat", "6", "--noise",
                       "6", "--rounds", "1", "--json", env=env)  # fmt: skip
        assert done.code == 1, done.stderr
        assert all(path in seen for seen in claude.paths)
        assert all(h["authorization"].startswith("Bearer ") for h in claude.headers)
    report = json.loads(done.stdout)
    assert report["ran_on"].startswith("Amazon Bedrock at" if "bedrock" in agent else "Google Cloud Vertex AI at")
    assert "DESTRUCTIVE" in [t["verdict"] for t in report["behaviours"]]
    assert report["spent"]["cost_usd"] > 0  # priced as the Claude model it names


@pytest.mark.parametrize(
    ("answers", "said"),
    [
        ([({"error": {"message": "it broke", "type": "server_error"}}, 500)] * 3, "it broke"),
        ([(b"<html>a proxy's page</html>", 200)], "could not be read"),
        ([({"error": {"message": "Incorrect API key", "type": "invalid_request_error"}}, 401)], "Incorrect API key"),
    ],
    ids=["500", "garbage", "401"],
)
def test_a_model_fault_is_exit_2_in_one_line_never_a_pass(
    tmp_path: Path, answers: list[tuple[Any, int]], said: str
) -> None:
    with serve_openai() as api:
        for body, status in answers:
            api.queue(body, status)
        done = run_cli("replay", "ops/session.json", "--agent", "openai/gpt-4.1", "--base-url", api.base_url,
                       env=KEY)  # fmt: skip
    assert done.code == 2
    assert said in done.stderr
    assert done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr


def test_what_the_api_cannot_take_is_refused_before_any_run(tmp_path: Path) -> None:
    session = json.loads((SAMPLES / "ops" / "session.json").read_text())
    session["request"] = {"max_tokens": 2048, "thinking": {"type": "enabled", "budget_tokens": 1024}}
    (tmp_path / "thinking.json").write_text(json.dumps(session))
    with serve_openai() as api:
        done = run_cli("replay", str(tmp_path / "thinking.json"), "--agent", "openai/gpt-4.1", "--base-url",
                       api.base_url, env=KEY)  # fmt: skip
        assert api.requests == []
    assert done.code == 2
    assert "openai/gpt-4.1 is not run: the recording asks for extended thinking" in done.stderr
    no_key = run_cli("replay", "ops/session.json", "--agent", "openai/gpt-4.1", env={"OPENAI_API_KEY": None})
    assert (no_key.code, no_key.stderr.count("\n")) == (2, 1)
    assert "set OPENAI_API_KEY" in no_key.stderr
    unknown = run_cli("replay", "ops/session.json", "--agent", "mistral/large")
    assert unknown.code == 2
    assert "names no provider toolreplay knows ('mistral')" in unknown.stderr
    assert run_cli("replay", "ops/session.json", "--base-url", "ftp://x").code == 2


def test_the_run_cache_keys_on_the_provider_the_address_and_the_api(openai_api: FakeOpenAI, tmp_path: Path) -> None:
    cache = str(tmp_path / "cache")
    args = ("--agent", "openai/gpt-4.1", "--repeat", "2", "--cache", cache)
    _, first, _ = _replay(openai_api, tmp_path, *args)
    asked = len(openai_api.requests)
    _, again, _ = _replay(openai_api, tmp_path, *args)
    assert len(openai_api.requests) == asked  # both runs given back
    assert again["from_cache"] == 2 if isinstance(again.get("from_cache"), int) else True
    _replay(openai_api, tmp_path, *args, "--api", "responses")
    assert len(openai_api.requests) > asked  # another API: other runs
    assert first["candidate"] == again["candidate"]


def test_a_pull_request_cannot_send_the_models_key_to_an_address_of_its_own(tmp_path: Path) -> None:
    """The base asks an OpenAI model at one server; the pull request points base-url at another (its own, which
    would receive the key). Under --base the base's server is asked, and the change is a loosening at its line."""
    with serve_openai() as trusted, serve_openai() as attacker:
        trusted.respond = OpsModel().respond
        attacker.respond = OpsModel().respond
        repo = tmp_path / "repo"
        shutil.copytree(SAMPLES / "ops", repo / "ops", ignore=shutil.ignore_patterns("__pycache__", "recorded"))
        config = (
            "sessions: ops/session.json\nreplay:\n  agent: openai/gpt-4.1\n  system: ops/prompt-v2.txt\n"
            f"  base-url: {trusted.base_url}\n  on-unrecorded: stub\n  stubs: ops/stubs.json\n  repeat: 2\n"
        )
        (repo / ".toolreplay.yml").write_text(config)

        def git(*args: str) -> str:
            return subprocess.run(["git", "-C", str(repo), "-c", "user.email=ci@example.com", "-c", "user.name=CI",
                                   *args], capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip

        git("init", "-q", "-b", "main")
        git("add", "-A")
        git("commit", "-q", "-m", "base")
        base = git("rev-parse", "HEAD")
        (repo / ".toolreplay.yml").write_text(config.replace(trusted.base_url, attacker.base_url))
        git("commit", "-qam", "the pull request")
        out = tmp_path / "report.json"
        done = run_cli("check", "--base", base, "--json", str(out), cwd=repo, env=KEY)
        assert done.code == 1, done.stderr
        assert attacker.requests == []
        assert attacker.headers == []
        assert trusted.requests
    found = [f for r in json.loads(out.read_text())["results"] for f in r["findings"]]
    loosened = [f for f in found if "base-url" in f["message"]]
    assert loosened
    assert loosened[0]["level"] == "error"
    assert loosened[0]["location"] == {"path": ".toolreplay.yml", "line": 5}


def test_a_server_that_echoes_the_key_in_its_error_never_gets_it_into_a_report(tmp_path: Path) -> None:
    key = "sk-live-0123456789abcdef0123"
    with serve_openai() as api:
        for _ in range(3):
            api.queue({"error": {"message": f"bad key {key}, and {key[:4]}", "type": "server_error"}}, 500)
        done = run_cli("replay", "ops/session.json", "--agent", "openai/gpt-4.1", "--base-url", api.base_url,
                       env={"OPENAI_API_KEY": key})  # fmt: skip
    assert done.code == 2
    assert key not in done.stderr + done.stdout
    assert "bad key [OPENAI_API_KEY]" in done.stderr


def test_run_records_an_openai_model_and_its_session_replays_on_it_by_default(
    openai_api: FakeOpenAI, tmp_path: Path
) -> None:
    session = tmp_path / "s.json"
    args = ("--system", "ops/prompt.txt", "--task-file", "ops/task.txt", "-o", str(session))
    done = run_cli("run", "ops/tools.py", "--agent", "openai/gpt-4.1", "--base-url", openai_api.base_url, *args,
                   env=KEY)  # fmt: skip
    assert done.code == 0, done.stderr
    recorded = json.loads(session.read_text())
    assert recorded["model"] == "openai/gpt-4.1"
    asked = len(openai_api.requests)
    again = run_cli("replay", str(session), "--base-url", openai_api.base_url, "--json", env=KEY)
    assert again.code == 0, again.stderr
    assert json.loads(again.stdout)["ran_on"].startswith("OpenAI Chat Completions")
    assert len(openai_api.requests) > asked
