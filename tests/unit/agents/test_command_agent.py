"""A cmd: agent's words, its placeholders, and what its output says it replied and spent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolreplay.agent_spec import AgentSpecError, ProgramSpec, fill, parse_agent
from toolreplay.agents.program import Ended, read_reply, run_program


def test_a_command_is_split_as_a_shell_would_but_never_run_by_one() -> None:
    spec = parse_agent("cmd:claude -p {task} --append-system-prompt 'a b; rm -rf /'")
    assert isinstance(spec, ProgramSpec)
    assert spec.words == ("claude", "-p", "{task}", "--append-system-prompt", "a b; rm -rf /")
    assert spec.show() == "cmd:claude -p {task} --append-system-prompt 'a b; rm -rf /'"
    with pytest.raises(AgentSpecError, match="No closing quotation"):
        parse_agent("cmd:claude 'unclosed")
    with pytest.raises(AgentSpecError, match="needs a command"):
        parse_agent("cmd:''")


def test_placeholders_fill_whole_words_and_anything_else_in_braces_stays() -> None:
    values = {"task": "free space; $(reboot)", "run": "3", "seed": "3", "workdir": "/w", "mcp_config": "/c.json"}
    words = ["-p", "{task}", "--settings", '{"a": {run}}', "{unknown}", "x{seed}y", "{mcp_config}"]
    assert fill(words, {**values, "system": "/s", "here": "/h"}) == [
        "-p", "free space; $(reboot)", "--settings", '{"a": 3}', "{unknown}", "x3y", "/c.json",
    ]  # fmt: skip


def _reply(tmp_path: Path, text: str | bytes) -> tuple[str | None, float, int, bool]:
    out = tmp_path / "stdout"
    out.write_bytes(text if isinstance(text, bytes) else text.encode())
    reply = read_reply(out)
    return reply.text, reply.usage.cost_usd, reply.usage.input_tokens, reply.failed


def test_claude_codes_json_result_gives_the_reply_and_what_it_spent(tmp_path: Path) -> None:
    result = {
        "type": "result", "result": "Archived.", "is_error": False, "total_cost_usd": 0.0123,
        "usage": {"input_tokens": 40, "output_tokens": 9, "cache_read_input_tokens": 3},
    }  # fmt: skip
    assert _reply(tmp_path, json.dumps(result, indent=2)) == ("Archived.", 0.0123, 40, False)
    stream = "\n".join(json.dumps(line) for line in ({"type": "system"}, {"type": "assistant"}, result))
    assert _reply(tmp_path, stream) == ("Archived.", 0.0123, 40, False)
    assert _reply(tmp_path, json.dumps({**result, "is_error": True}))[3] is True


def test_anything_else_gives_its_last_line_and_nothing_spent(tmp_path: Path) -> None:
    assert _reply(tmp_path, "working...\nDone: 2 archived.\n\n") == ("Done: 2 archived.", 0.0, 0, False)
    bad = {"result": 5, "usage": "lots", "total_cost_usd": "free"}
    assert _reply(tmp_path, json.dumps(bad)) == (json.dumps(bad), 0.0, 0, False)
    nested = "[" * 100_000 + "]" * 100_000
    assert _reply(tmp_path, nested)[0] == nested[:100_000]
    negative = {"result": "x", "total_cost_usd": -1, "usage": {"input_tokens": -5}}
    assert _reply(tmp_path, json.dumps(negative)) == ("x", 0.0, 0, False)
    assert _reply(tmp_path, b"\xff\xfe junk \x00\n") == ("\ufffd\ufffd junk \x00", 0.0, 0, False)
    assert _reply(tmp_path, "") == (None, 0.0, 0, False)
    for cost in ("1e400", "-1e400", "1e300", str(10**400), "NaN"):  # not a cost: non-finite, absurd, or unreadable
        assert _reply(tmp_path, f'{{"result": "x", "total_cost_usd": {cost}}}')[:2] == ("x", 0.0)


def test_a_program_that_cannot_start_is_an_ending_with_its_reason(tmp_path: Path) -> None:
    out, err = tmp_path / "out", tmp_path / "err"
    for argv, reason in ((["echo", "a\x00b"], "null byte"), ([str(tmp_path / "missing")], "No such file")):
        assert run_program(argv, tmp_path, tmp_path, out, err, 5.0).code == 127
        assert reason in err.read_text(encoding="utf-8")


def test_how_a_program_ended_in_words() -> None:
    assert [Ended(code, 30).words() for code in (0, 1, -9, None)] == [
        "exited", "exited with 1", "killed by signal 9", "timed out after 30 s",
    ]  # fmt: skip


def test_a_program_that_cannot_be_found_says_so_and_how_to_name_it(tmp_path: Path) -> None:
    import shutil  # noqa: PLC0415

    from tests.conftest import SAMPLES, run_cli  # noqa: PLC0415

    shutil.copy(SAMPLES / "ops" / "session.json", tmp_path / "session.json")
    (tmp_path / "agents").mkdir()
    for name in ("agents/agent.sh", "agent.sh"):
        (tmp_path / name).write_text("#!/bin/sh\necho done\n")
        (tmp_path / name).chmod(0o755)

    def error(program: str, cwd: Path = tmp_path) -> str:
        result = run_cli("replay", "session.json", "--agent", f"cmd:{program} {{mcp_config}}", "--repeat", "2", cwd=cwd)
        assert result.code == 2, result.stdout
        assert result.stderr.startswith("toolreplay: error: "), result.stderr
        assert result.stderr.count("\n") == 1, result.stderr
        return result.stderr

    # a relative path names nothing in the run's own working directory, however it is written; {here} does
    for program in ("agents/agent.sh", "./agents/agent.sh", "agents/missing.sh"):
        said = error(program)
        assert f"the program {program} could not be started (No such file or directory)" in said
        assert f"write {{here}}/{program.removeprefix('./')} (" in said
    # a bare name is looked up on PATH: the hint only when a file of that name is where {here} points
    assert "write {here}/agent.sh" in error("agent.sh")
    assert error("no-such-agent-anywhere").endswith("could not be started (No such file or directory)\n")
    # an absolute path that is wrong, or a file that is not executable, gets no hint it does not need
    assert error(str(tmp_path / "missing")).endswith(
        f"{tmp_path / 'missing'} could not be started (No such file or directory)\n"
    )
    (tmp_path / "agent.sh").chmod(0o644)
    assert error("{here}/agent.sh").endswith(f"{tmp_path / 'agent.sh'} could not be started (Permission denied)\n")
    # a config's agent the same: {here} is the config's directory
    (tmp_path / ".toolreplay.yml").write_text(
        'sessions: session.json\nreplay:\n  sessions: session.json\n  agent: "cmd:agents/agent.sh"\n  repeat: 1\n'
    )
    checked = run_cli("check", "--config", ".toolreplay.yml", cwd=tmp_path)
    assert (checked.code, checked.stderr.count("\n")) == (2, 1)
    assert "agents/agent.sh could not be started" in checked.stderr
    assert "write {here}/agents/agent.sh" in checked.stderr
    # with the placeholder the same program runs
    ran = run_cli("replay", "session.json", "--agent", "cmd:{here}/agents/agent.sh", "--repeat", "1", cwd=tmp_path)
    assert (ran.code, ran.stderr) == (0, "")
    assert "endings: final reply in 1 run" in ran.stdout
