"""The check config: every mistake is one message with the file and the line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import SAMPLES, run_cli
from toolreplay.core.errors import InputError, InputErrors
from toolreplay.core.verdict import FailOn
from toolreplay.formats.config.read import discover, read_config
from toolreplay.settings import Unrecorded


@pytest.fixture
def here(tmp_path: Path) -> Path:
    shutil.copy(SAMPLES / "session-dirty.jsonl", tmp_path / "dirty.jsonl")
    shutil.copy(SAMPLES / "ops" / "session.json", tmp_path / "session.json")
    shutil.copy(SAMPLES / "ops" / "prompt-v2.txt", tmp_path / "prompt.txt")
    shutil.copy(SAMPLES / "scope.json", tmp_path / "scope.json")
    return tmp_path


def _error(directory: Path, text: str) -> str:
    path = directory / ".toolreplay.yml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_config(str(path))
    return str(caught.value).replace(str(directory) + "/", "")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("transcripts: dirty.jsonl\nscopes: scope.json\n", ".toolreplay.yml:2: unknown key 'scopes' in the config"),
        (
            "transcripts: dirty.jsonl\nstrict: maybe\n",
            ".toolreplay.yml:2: 'strict': must be a boolean (true or false), found a string",
        ),
        ("transcripts: [missing-*.jsonl]\n", ".toolreplay.yml:1: 'transcripts': missing-*.jsonl matches no file"),
        ("transcripts: dirty.jsonl\nrules: nowhere.toml\n", ".toolreplay.yml:2: 'rules': no such file: nowhere.toml"),
        (
            "transcripts: dirty.jsonl\nfail-on: sometimes\n",
            "'fail-on' must be one of destructive, any-destructive, changed, never",
        ),
        ("transcripts: dirty.jsonl\nalpha: 2\n", ".toolreplay.yml:2: 'alpha' must be between 0 and 1, not 2"),
        ("transcripts: 3\n", ".toolreplay.yml:1: 'transcripts': must be a string, found an integer"),
        ("- dirty.jsonl\n", ".toolreplay.yml:1: the config: must be a mapping, found a list"),
        ("", ".toolreplay.yml: the config is empty"),
        ("transcripts: [dirty.jsonl\n", "not valid YAML"),
        ("strict: true\n", ".toolreplay.yml:1: the config names no recordings"),
        (  # an error in a replay entry is said as itself, not hidden behind "no recordings"
            "replay:\n  sessions: session.json\n  mcp-transport: htp\n",
            ".toolreplay.yml:3: 'mcp-transport' must be one of stdio, http, not 'htp'",
        ),
        (
            "sessions: session.json\nreplay:\n  repeat: 0\n",
            ".toolreplay.yml:3: 'repeat' must be at least 1, not 0",
        ),
        (
            "sessions: session.json\nreplay:\n  sytem: prompt.txt\n",
            ".toolreplay.yml:3: unknown key 'sytem' in a replay",
        ),
        (
            "sessions: session.json\nreplay:\n  agent: scripted:gone.py\n",
            ".toolreplay.yml:3: 'agent': no such file: gone.py",
        ),
        (
            "transcripts: dirty.jsonl\nreplay:\n  repeat: 2\n",
            ".toolreplay.yml:3: a replay needs sessions",
        ),
        (
            "sessions: session.json\ncompare:\n  - recorded: session.json\n    candidates: session.json\n",
            ".toolreplay.yml:3: a compare group needs 'baseline'",
        ),
        (
            "transcripts: dirty.jsonl\nscope:\n  recordings: dirty.jsonl\n",
            ".toolreplay.yml:3: a scope needs 'file'",
        ),
        ("transcripts: dirty.jsonl\ntranscripts: dirty.jsonl\n", '.toolreplay.yml:2: key "transcripts" appears twice'),
    ],
)
def test_config_errors(here: Path, text: str, message: str) -> None:
    assert message in _error(here, text)


def test_a_replays_sessions_are_recordings_the_check_covers(here: Path) -> None:
    path = here / ".toolreplay.yml"
    path.write_text("replay:\n  sessions: session.json\n  system: prompt.txt\n", encoding="utf-8")
    config = read_config(str(path))
    assert config.recordings == config.sessions == (str(here / "session.json"),)
    assert [job.sessions for job in config.replays] == [(str(here / "session.json"),)]
    assert config.patterns == (str(here / "session.json"),)  # held to the base too


def test_every_error_in_a_config_is_said_each_on_its_own_line_in_file_order(here: Path) -> None:
    """A config with an error under several keys and several in one replay entry says them all, not the first;
    the command line prints each as a line of its own and exits 2."""
    path = here / ".toolreplay.yml"
    path.write_text(
        "sessions: [nothing/*.json]\n"
        "rules: missing.toml\n"
        "fail-on: sometimes\n"
        "replay:\n"
        "  - sessions: session.json\n"
        "    mcp-transport: htp\n"
        "    repeat: zero\n"
        "    system: nope.txt\n"
        "  - sessions: session.json\n"
        "    agent: 'scripted:'\n"
        "    repet: 3\n"
        "sytem: x\n",
        encoding="utf-8",
    )
    with pytest.raises(InputErrors) as caught:
        read_config(str(path))
    said = [str(error).replace(f"{here}/", "") for error in caught.value.errors]
    assert said == [
        ".toolreplay.yml:1: 'sessions': nothing/*.json matches no file",
        ".toolreplay.yml:2: 'rules': no such file: missing.toml",
        ".toolreplay.yml:3: 'fail-on' must be one of destructive, any-destructive, changed, never, not 'sometimes'",
        ".toolreplay.yml:6: 'mcp-transport' must be one of stdio, http, not 'htp'",
        ".toolreplay.yml:7: 'repeat' must be a whole number, not 'zero'",
        ".toolreplay.yml:8: 'system': no such file: nope.txt",
        ".toolreplay.yml:10: 'agent' must be a Claude model id, PROVIDER/MODEL, scripted:FILE, "
        "python:MODULE:FUNCTION or cmd:COMMAND, as in openai/gpt-4.1 or python:myagent:run",
        ".toolreplay.yml:11: unknown key 'repet' in a replay; expected one of: sessions, system, tools, agent, "
        + said[-2].split("agent, ", 1)[1],
        ".toolreplay.yml:12: unknown key 'sytem' in the config; expected one of: sessions, "
        + said[-1].split("sessions, ", 1)[1],
    ]
    result = run_cli("check", cwd=here)
    assert result.code == 2
    assert result.stderr.splitlines() == [f"toolreplay: error: {line}" for line in said]


def test_a_number_or_a_switch_in_quotes_is_a_string_and_refused(here: Path) -> None:
    """``repeat: "10"`` is the string 10, refused as ``ten`` and ``true`` are; unquoted, the same text is a number."""
    path = here / ".toolreplay.yml"
    path.write_text(
        "sessions: session.json\nalpha: '0.1'\nreplay:\n  repeat: \"10\"\n  batch: 'true'\n  run-timeout: \"60\"\n",
        encoding="utf-8",
    )
    with pytest.raises(InputErrors) as caught:
        read_config(str(path))
    assert [str(error).replace(f"{here}/", "") for error in caught.value.errors] == [
        ".toolreplay.yml:2: 'alpha' must be a number, not the string '0.1' (write it without quotes)",
        ".toolreplay.yml:4: 'repeat' must be a number, not the string '10' (write it without quotes)",
        ".toolreplay.yml:5: 'batch' must be true or false, not the string 'true' (write it without quotes)",
        ".toolreplay.yml:6: 'run-timeout' must be a number, not the string '60' (write it without quotes)",
    ]
    path.write_text("sessions: session.json\nalpha: 0.1\nreplay:\n  repeat: 10\n  run-timeout: 60\n", "utf-8")
    (job,) = read_config(str(path)).replays
    assert (job.settings.repeat, job.settings.alpha, job.settings.run_timeout) == (10, 0.1, 60.0)


def test_a_full_config(here: Path) -> None:
    path = here / ".toolreplay.yml"
    path.write_text(
        "transcripts: dirty.jsonl\n"
        "sessions: [session.json]\n"
        "scope: {file: scope.json, recordings: dirty.jsonl}\n"
        "strict: yes\n"
        "fail-on: changed\n"
        "alpha: 0.1\n"
        "replay:\n"
        "  system: prompt.txt\n"
        "  repeat: 3\n"
        "  noise: 4\n"
        "  seed: 7\n"
        "  on-unrecorded: stop\n",
        encoding="utf-8",
    )
    config = read_config(str(path))
    assert config.recordings == (str(here / "session.json"), str(here / "dirty.jsonl"))
    assert config.scopes[0].recordings == (str(here / "dirty.jsonl"),)
    assert config.strict
    assert config.fail_on is FailOn.CHANGED
    (job,) = config.replays
    assert job.sessions == (str(here / "session.json"),)
    settings = job.settings
    assert (settings.repeat, settings.noise, settings.seed, settings.alpha) == (3, 4, 7, 0.1)
    assert settings.on_unrecorded is Unrecorded.STOP
    assert settings.system == str(here / "prompt.txt")
    assert job.line == 8


def test_discovery_reports_what_it_cannot_read(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read the directory"):
        discover(str(tmp_path / "missing"))
    (tmp_path / "dangling.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    with pytest.raises(InputError, match=r"dangling\.jsonl: no such file"):
        discover(str(tmp_path))


def test_no_redact_names_shapes_once_each(here: Path) -> None:
    path = here / ".toolreplay.yml"
    path.write_text("sessions: session.json\nno-redact: [basic-auth, bearer-token, basic-auth]\n", encoding="utf-8")
    assert read_config(str(path)).redact_off == ("basic-auth", "bearer-token")
    path.write_text("sessions: session.json\nno-redact: url-password\n", encoding="utf-8")
    assert read_config(str(path)).redact_off == ("url-password",)
    path.write_text("sessions: session.json\n", encoding="utf-8")
    assert read_config(str(path)).redact_off == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "sessions: session.json\nno-redact:\n  - basic-auth\n  - basic\n",
            ".toolreplay.yml:4: 'no-redact': basic is not a secret shape; the shapes are private-key, ",
        ),
        (
            "sessions: session.json\nno-redact: true\n",
            ".toolreplay.yml:2: 'no-redact': must be a string, found a boolean",
        ),
        ("sessions: session.json\nno-redact: []\n", ".toolreplay.yml:2: 'no-redact' is an empty list"),
        ("sessions: session.json\nno-redact: {shapes: all}\n", "'no-redact': must be a string, found a mapping"),
    ],
)
def test_no_redact_mistakes_are_one_line_at_their_line(here: Path, text: str, message: str) -> None:
    error = _error(here, text)
    assert message in error
    assert "\n" not in error
