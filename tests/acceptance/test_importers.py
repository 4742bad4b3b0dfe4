"""The importers on samples built from each format's documentation: every command works on what they write,
and their edge cases (a call with no result, a sidechain, a multi-part message, a block of an unknown kind)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, SAMPLES, run_cli
from toolreplay.formats.session.stream import read_session

CHAT_AGENT = f"scripted:{ROOT / 'tests' / 'fixtures' / 'chat_agent.py'}"
CASES = {
    "claude-code": (
        SAMPLES / "claude-code" / "transcript.jsonl",
        ("--tools", str(SAMPLES / "claude-code" / "tools.json")),
    ),
    "openai-chat": (SAMPLES / "openai" / "chat.json", ()),
    "openai-responses": (SAMPLES / "openai" / "responses.json", ()),
    "otel": (SAMPLES / "otel" / "trace.json", ()),
}


def imported(tmp_path: Path, case: str) -> tuple[Path, str]:
    source, extra = CASES[case]
    out = tmp_path / f"{case}.json"
    kind = case.split("-", maxsplit=1)[0] if case != "claude-code" else case
    result = run_cli("import", str(source), "--from", kind, *extra, "-o", str(out))
    assert (result.code, result.stderr) == (0, ""), result.stderr
    return out, result.stdout


@pytest.mark.parametrize("case", list(CASES))
def test_every_command_works_on_an_imported_session(tmp_path: Path, case: str) -> None:
    out, _ = imported(tmp_path, case)
    session = read_session(out)
    assert session.calls
    assert run_cli("show", str(out)).code == 0
    assert run_cli("audit", str(out)).code in (0, 1)
    sealed = tmp_path / "sealed.jsonl"
    assert run_cli("seal", str(out), "-o", str(sealed)).code == 0
    assert run_cli("verify", str(sealed)).stdout == "chain: intact\n"
    same = run_cli("diff", str(out), str(out))
    assert (same.code, same.stdout.splitlines()[-1]) == (
        0,
        "verdict: PASS: the two recordings made the same calls (--fail-on destructive)",
    )
    replayed = run_cli("replay", str(out), "--agent", CHAT_AGENT, "--on-unrecorded", "error", "--json")
    assert replayed.code in (0, 1), replayed.stderr
    assert json.loads(replayed.stdout)["runs"][0]["ending"] == "final reply"


def test_claude_code_keeps_ids_leaves_sidechains_apart_and_reports_a_call_with_no_result(tmp_path: Path) -> None:
    out, said = imported(tmp_path, "claude-code")
    assert "left out a call with no result: Bash (toolu_02A)" in said
    assert "4 entries of subagent sidechains, kept apart" in said
    session = read_session(out)
    # MCP tools under their own names, ids kept, the subagent's own call (toolu_S1) not among them
    assert [(c.tool, c.turn) for c in session.calls] == [
        ("disk_usage", 1),
        ("Task", 1),
        ("list_dir", 1),
        ("archive_path", 1),
        ("archive_path", 1),
    ]
    doc = json.loads(out.read_text(encoding="utf-8"))
    ids = [
        b["id"] for m in doc["messages"] if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use"
    ]
    assert ids == ["toolu_01A", "toolu_01B", "toolu_01C", "toolu_01D", "toolu_01E"]
    # one model turn written as one entry per block is one turn again: thinking, text and the call
    assert [b["type"] for b in doc["messages"][1]["content"]] == ["thinking", "text", "tool_use"]
    # two parallel calls answered in two entries: one turn, one message of results, in the calls' order
    assert [b["tool_use_id"] for b in doc["messages"][8]["content"]] == ["toolu_01D", "toolu_01E"]
    # the person's second message with its image (a multi-part message), and an unknown block kept verbatim
    person = [
        m
        for m in doc["messages"]
        if m["role"] == "user" and not any(b.get("type") == "tool_result" for b in m["content"] if isinstance(b, dict))
    ]
    assert [b["type"] for b in person[1]["content"]] == ["text", "image"]
    assert any(b["type"] == "redacted_thinking" for m in doc["messages"] for b in m["content"] if isinstance(b, dict))
    assert session.context is not None
    assert [t.name for t in session.context.tools][:3] == ["disk_usage", "list_dir", "archive_path"]
    assert session.context.tools[0].annotations == {"readOnlyHint": True, "openWorldHint": False}


def test_a_subagent_transcript_alone_imports_as_its_own_conversation(tmp_path: Path) -> None:
    lines = (SAMPLES / "claude-code" / "transcript.jsonl").read_text(encoding="utf-8").splitlines()
    side = tmp_path / "agent-1.jsonl"
    side.write_text("\n".join(line for line in lines if '"isSidechain":true' in line) + "\n", encoding="utf-8")
    result = run_cli("import", str(side), "--from", "claude-code", "-o", str(tmp_path / "s.json"))
    assert result.code == 0, result.stderr
    assert [c.tool for c in read_session(tmp_path / "s.json").calls] == ["list_dir"]


def test_openai_chat_and_responses(tmp_path: Path) -> None:
    out, said = imported(tmp_path, "openai-chat")
    assert "left out a call with no result: list_dir (call_9Sn4)" in said
    session = read_session(out)
    assert [(c.tool, c.turn) for c in session.calls][-1] == ("archive_path", 2)
    assert session.context is not None
    assert session.context.system.startswith("You are the operations agent")  # type: ignore[union-attr]
    assert [t.name for t in session.context.tools] == ["disk_usage", "list_dir", "archive_path"]
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert any(b.get("type") == "image_url" for m in doc["messages"] for b in m["content"] if isinstance(b, dict))
    out, _ = imported(tmp_path, "openai-responses")
    doc = json.loads(out.read_text(encoding="utf-8"))
    kinds = [b["type"] for m in doc["messages"] if m["role"] == "assistant" for b in m["content"]]
    assert "reasoning" in kinds  # kept as they are
    assert "web_search_call" in kinds
    assert [c.tool for c in read_session(out).calls] == ["disk_usage", "list_dir", "archive_path"]


def test_otel_reads_the_longest_conversation_from_attributes_or_the_details_event(tmp_path: Path) -> None:
    out, _ = imported(tmp_path, "otel")
    session = read_session(out)
    assert [(c.tool, c.args) for c in session.calls] == [
        ("disk_usage", {"host": "build-04"}),
        ("archive_path", {"host": "build-04", "path": "/var/log/ci/2026-07"}),
    ]
    assert session.context is not None
    assert session.context.source["semconv"] == "1.37"
    assert session.context.final_reply == "Archived July's CI logs; the disk is at 76%."
    # without chat messages, the execute_tool spans are the calls
    doc = json.loads((SAMPLES / "otel" / "trace.json").read_text(encoding="utf-8"))
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"] = [s for s in spans if "chat" not in s["name"]]
    bare = tmp_path / "tools-only.json"
    bare.write_text(json.dumps(doc), encoding="utf-8")
    assert run_cli("import", str(bare), "--from", "otel", "-o", str(tmp_path / "t.json")).code == 0
    assert [c.result for c in read_session(tmp_path / "t.json").calls] == [
        '{"used_pct": 97}',
        "archived /var/log/ci/2026-07",
    ]


@pytest.mark.parametrize(
    ("kind", "text", "message"),
    [
        ("claude-code", '{"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}\n{"type":', ":2: "),
        ("claude-code", '{"type":"summary"}\n', "no user or assistant entries: not a Claude Code transcript"),
        (
            "openai",
            '[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"t","arguments":"{oops"}}]}]',
            "the arguments are not JSON",
        ),
        ("openai", '[{"role":"robot","content":"hi"}]', "unknown role 'robot'"),
        (
            "otel",
            '{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"k","value":{"intValue":"x"}}]}]}]}]}',
            "must be an integer",
        ),
        ("otel", '{"resourceSpans":[]}', "no GenAI chat span"),
    ],
)
def test_broken_files_are_one_line_errors_with_the_line(tmp_path: Path, kind: str, text: str, message: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(text, encoding="utf-8")
    result = run_cli("import", str(bad), "--from", kind, "-o", str(tmp_path / "s.json"))
    assert result.code == 2
    assert result.stderr.count("\n") == 1
    assert message in result.stderr
    assert not (tmp_path / "s.json").exists()


def test_mcp_only_options_are_refused_for_a_transcript(tmp_path: Path) -> None:
    result = run_cli(
        "import", str(SAMPLES / "otel" / "trace.json"), "--from", "otel", "--task", "x", "-o", str(tmp_path / "s.json")
    )
    assert result.code == 2
    assert "--task: only for --from mcp" in result.stderr


def test_rules_init_writes_rules_show_accepts(tmp_path: Path) -> None:
    out, _ = imported(tmp_path, "claude-code")
    rules = tmp_path / "rules.toml"
    result = run_cli(
        "rules",
        "init",
        str(out),
        str(SAMPLES / "rules" / "session.json"),
        str(SAMPLES / "ops" / "session.json"),
        "-o",
        str(rules),
    )
    assert result.code == 0, result.stderr
    text = rules.read_text(encoding="utf-8")
    assert "REVIEW" in text  # the tools without annotations
    shown = run_cli("show", str(SAMPLES / "rules" / "session.json"), "--rules", str(rules))
    assert shown.code == 0, shown.stderr
    (purge,) = [line for line in shown.stdout.splitlines() if "purge_ticket(" in line]
    assert purge.endswith("destructive")
    # Claude Code's own tools: Bash by its command
    bash = tmp_path / "bash.json"
    doc = json.loads(out.read_text(encoding="utf-8"))
    doc["messages"][1]["content"][2] = {
        "type": "tool_use",
        "id": "toolu_01A",
        "name": "Bash",
        "input": {"command": "git push --force origin main"},
    }
    bash.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    (line,) = [
        line for line in run_cli("show", str(bash), "--rules", str(rules)).stdout.splitlines() if "Bash(" in line
    ]
    assert line.endswith("destructive")
    again = run_cli("rules", "init", str(out), "-o", str(rules))
    assert again.code == 2  # never written over
    assert "exists" in again.stderr


def test_rules_init_proposes_volatile_arguments_as_ignored(tmp_path: Path) -> None:
    doc = json.loads((SAMPLES / "ops" / "session.json").read_text(encoding="utf-8"))
    for number, message in enumerate(doc["messages"]):
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_use" and block["name"] == "disk_usage":
                block["input"]["request_id"] = f"3f2c9a7e-1b4d-4e8a-9c3f-{number:012d}"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    assert run_cli("rules", "init", str(path), "-o", str(tmp_path / "r.toml")).code == 0
    text = (tmp_path / "r.toml").read_text(encoding="utf-8")
    assert "[matching.tools.disk_usage]" in text
    assert 'ignore = [\n    "request_id",\n]' in text or 'ignore = ["request_id"]' in text


def write(tmp_path: Path, name: str, value: object) -> Path:
    path = tmp_path / name
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    return path


def import_(path: Path, kind: str, out: Path) -> tuple[int, str, str]:
    result = run_cli("import", str(path), "--from", kind, "-o", str(out))
    return result.code, result.stdout, result.stderr


def test_the_person_speaking_before_the_agent_replies_keeps_the_turns_in_order(tmp_path: Path) -> None:
    call = {"id": "a", "function": {"name": "f", "arguments": "{}"}}
    chat = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "a", "content": "r"},
        {"role": "user", "content": "stop"},
        {"role": "assistant", "content": "ok"},
    ]
    code, said, _ = import_(write(tmp_path, "x.json", chat), "openai", tmp_path / "s.json")
    assert code == 0
    assert "the person spoke before the agent replied" in said
    session = read_session(tmp_path / "s.json")
    assert [(c.tool, c.turn) for c in session.calls] == [("f", 1)]


def test_malformed_calls_are_left_out_and_said_and_a_failed_import_leaves_the_output_alone(tmp_path: Path) -> None:
    parts = [
        {"type": "tool_call", "name": "f", "arguments": {}},  # no id
        {"type": "tool_call", "id": "b"},  # no name
        {"type": "text", "content": "done"},
    ]
    messages = [{"role": "user", "parts": [{"type": "text", "content": "hi"}]}, {"role": "assistant", "parts": parts}]
    attrs = [
        {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
        {"key": "gen_ai.input.messages", "value": {"stringValue": json.dumps(messages)}},
    ]
    trace = {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "t", "attributes": attrs}]}]}]}
    code, said, _ = import_(write(tmp_path, "t.json", trace), "otel", tmp_path / "s.json")
    assert code == 0
    assert said.count("left out a call without a string id and name") == 2
    assert read_session(tmp_path / "s.json").calls == ()
    kept = write(tmp_path, "keep.json", "my own notes\n")
    code, _, _ = import_(write(tmp_path, "bad.jsonl", '{"type":"user"\n'), "claude-code", kept)
    assert code == 2
    assert kept.read_text(encoding="utf-8") == "my own notes\n"


def test_otel_tool_spans_with_text_results_and_odd_start_times(tmp_path: Path) -> None:
    def span(start: object, result: str) -> dict[str, object]:
        attrs = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "f",
            "gen_ai.tool.call.id": "c1",
            "gen_ai.tool.call.arguments": '{"q": "x"}',  # text that is not a JSON object is refused (test_imports)
            "gen_ai.tool.call.result": result,
        }
        listed = [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()]
        return {"traceId": "t", "startTimeUnixNano": start, "attributes": listed}

    doc = {"resourceSpans": [{"scopeSpans": [{"spans": [span("5", "ok")]}]}]}
    code, _, error = import_(write(tmp_path, "t.json", doc), "otel", tmp_path / "s.json")
    assert code == 0, error
    (call,) = read_session(tmp_path / "s.json").calls
    assert (call.result, call.args) == ("ok", {"q": "x"})
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"] = [span("5.5", "ok")]
    code, _, error = import_(write(tmp_path, "t.json", doc), "otel", tmp_path / "s.json")
    assert code == 2
    assert "startTimeUnixNano: must be an integer" in error


def test_otel_says_when_it_leaves_other_traces_out(tmp_path: Path) -> None:
    doc = json.loads((SAMPLES / "otel" / "trace.json").read_text(encoding="utf-8"))
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    other = [dict(s, traceId="another") for s in spans[:2]]
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"] = spans + other
    code, said, _ = import_(write(tmp_path, "t.json", doc), "otel", tmp_path / "s.json")
    assert code == 0
    assert "1 other trace in the file" in said


def test_responses_items_are_known_by_any_items_type(tmp_path: Path) -> None:
    items = [
        {"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c", "output": "ok"},
    ]
    code, _, error = import_(write(tmp_path, "r.json", items), "openai", tmp_path / "s.json")
    assert code == 0, error
    assert [c.tool for c in read_session(tmp_path / "s.json").calls] == ["f"]


def test_claude_code_follows_parents_through_lines_that_are_not_conversation(tmp_path: Path) -> None:
    def entry(kind: str, uuid: str, parent: str | None, content: object) -> str:
        message = {"role": kind, "content": content}
        return json.dumps({"type": kind, "uuid": uuid, "parentUuid": parent, "message": message})

    use = [{"type": "tool_use", "id": "t1", "name": "kept_call", "input": {}}]
    gone = [{"type": "tool_use", "id": "t9", "name": "delete_all", "input": {}}]
    lines = [
        entry("user", "u1", None, "start"),
        entry("assistant", "a9", "u1", gone),  # an abandoned branch
        json.dumps({"type": "attachment", "uuid": "x1", "parentUuid": "u1"}),
        entry("assistant", "a1", "x1", use),  # the branch that went on, whose parent is an attachment
        entry("user", "u2", "a1", [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]),
        entry("assistant", "a2", "u2", [{"type": "text", "text": "done"}]),
    ]
    code, _, error = import_(write(tmp_path, "c.jsonl", "\n".join(lines) + "\n"), "claude-code", tmp_path / "s.json")
    assert code == 0, error
    assert [c.tool for c in read_session(tmp_path / "s.json").calls] == ["kept_call"]


def test_notes_and_rules_never_carry_a_recordings_newlines(tmp_path: Path) -> None:
    evil = 'evil\n[[rules]]\ntool = "*"\nclass = "read-only"\n#'
    call = {"id": "a", "function": {"name": evil, "arguments": "{}"}}
    chat = [{"role": "user", "content": "go"}, {"role": "assistant", "content": None, "tool_calls": [call]}]
    code, said, _ = import_(write(tmp_path, "x.json", chat), "openai", tmp_path / "s.json")
    assert code == 0
    assert said.count("\n") == 2  # the wrote line and one note, whatever the name holds
    chat.append({"role": "tool", "tool_call_id": "a", "content": "r"})
    assert import_(write(tmp_path, "x.json", chat), "openai", tmp_path / "s.json")[0] == 0
    rules = tmp_path / "r.toml"
    assert run_cli("rules", "init", str(tmp_path / "s.json"), "-o", str(rules)).code == 0
    import fnmatch  # noqa: PLC0415
    import tomllib  # noqa: PLC0415

    (rule,) = tomllib.loads(rules.read_text(encoding="utf-8"))["rules"]
    assert fnmatch.fnmatchcase(evil, rule["tool"])
    assert not fnmatch.fnmatchcase("delete_path", rule["tool"])


def test_rules_init_never_loosens_a_call_that_writes_or_an_ordinary_argument(tmp_path: Path) -> None:
    doc = json.loads((SAMPLES / "ops" / "session.json").read_text(encoding="utf-8"))
    for number, message in enumerate(doc["messages"]):
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_use" and block["name"] == "archive_path":  # a write
                block["input"]["request_id"] = f"3f2c9a7e-1b4d-4e8a-9c3f-{number:012d}"
            if block.get("type") == "tool_use" and block["name"] == "disk_usage":  # read-only, an ordinary id
                block["input"]["host_id"] = f"host_{number}_with_a_long_descriptive_name"
    path = write(tmp_path, "s.json", json.dumps(doc, indent=2))
    assert run_cli("rules", "init", str(path), "-o", str(tmp_path / "r.toml")).code == 0
    assert "[matching" not in (tmp_path / "r.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("text", ["[]", '{"messages": []}', '{"input": []}'])
def test_a_file_with_nothing_to_import_is_refused(tmp_path: Path, text: str) -> None:
    code, _, error = import_(write(tmp_path, "e.json", text), "openai", tmp_path / "s.json")
    assert code == 2
    assert "nothing to import" in error
    assert not (tmp_path / "s.json").exists()
