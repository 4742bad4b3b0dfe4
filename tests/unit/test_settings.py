"""Replay settings: the same values through `replay`'s options and a config give the same settings or error."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import click
import pytest

from tests.conftest import ROOT, SAMPLES, run_cli
from toolreplay.cli.options import settings_options
from toolreplay.core.errors import InputError, UsageError
from toolreplay.formats.config.read import read_config
from toolreplay.settings import ReplaySettings, SettingError, Unrecorded, parse_settings


def through_cli(options: dict[str, str]) -> ReplaySettings:
    """The settings `replay` builds from these options."""
    seen: list[ReplaySettings] = []

    @click.command()
    @settings_options()
    def command(settings: ReplaySettings) -> None:
        seen.append(settings)

    args = [part for key, value in options.items() for part in (f"--{key}", value)]
    command.main(args, standalone_mode=False)
    return seen[0]


def through_config(directory: Path, options: dict[str, str]) -> ReplaySettings:
    """The settings `check` builds from the same values in a config's replay entry."""
    shutil.copy(SAMPLES / "ops" / "session.json", directory / "session.json")
    entries = "".join(f"  {key}: {value or repr('')}\n" for key, value in options.items())
    path = directory / ".toolreplay.yml"
    replay = f"replay:\n{entries}" if entries else "replay: {}\n"
    path.write_text(f"sessions: session.json\n{replay}", encoding="utf-8")
    (job,) = read_config(str(path), allow_outside=True).replays  # the samples lie outside tmp_path
    return job.settings


GOOD = [
    {},
    {"repeat": "3", "seed": "0", "noise": "4", "alpha": "0.1"},
    {"max-turns": "2", "max-tokens": "100", "concurrency": "3", "on-unrecorded": "stop"},
    {"repeat": "010", "alpha": "5e-2", "seed": "+7"},
    {"agent": "claude-test", "on-unrecorded": "stub", "stubs": str(SAMPLES / "ops" / "stubs.json")},
    {"system": str(SAMPLES / "ops" / "prompt-v2.txt")},
]


@pytest.mark.parametrize("options", GOOD)
def test_the_same_values_give_the_same_settings(tmp_path: Path, options: dict[str, str]) -> None:
    assert through_cli(options) == through_config(tmp_path, options)


def test_the_defaults_are_the_records(tmp_path: Path) -> None:
    assert through_cli({}) == ReplaySettings() == through_config(tmp_path, {})


BAD = [
    ({"repeat": "0"}, "repeat", "must be at least 1, not 0"),
    ({"seed": "-5"}, "seed", "must be at least 0, not -5"),
    ({"noise": "-1"}, "noise", "must be at least 0, not -1"),
    ({"concurrency": "0"}, "concurrency", "must be at least 1, not 0"),
    ({"max-turns": "0"}, "max-turns", "must be at least 1, not 0"),
    ({"max-tokens": "0"}, "max-tokens", "must be at least 1, not 0"),
    ({"alpha": "1.5"}, "alpha", "must be between 0 and 1, not 1.5"),
    ({"alpha": "0"}, "alpha", "must be between 0 and 1, not 0"),
    ({"alpha": "nan"}, "alpha", "must be between 0 and 1, not nan"),
    ({"stubs": str(SAMPLES / "ops" / "stubs.json")}, "stubs", "are used only with on-unrecorded stub"),
    ({"repeat": "1.5"}, "repeat", "must be a whole number, not '1.5'"),
    ({"repeat": "0x10"}, "repeat", "must be a whole number, not '0x10'"),
    ({"seed": "1:00"}, "seed", "must be a whole number, not '1:00'"),
    ({"repeat": "10001"}, "repeat", "must be at most 10,000, not 10001"),
    ({"on-unrecorded": "bogus"}, "on-unrecorded", "must be one of stop, error, stub, not 'bogus'"),
    ({"alpha": "0.5.1"}, "alpha", "must be a number between 0 and 1, not '0.5.1'"),
    ({"system": ""}, "system", "must name a file, not an empty string"),
    ({"repeat": "0", "alpha": "2"}, "repeat", "must be at least 1, not 0"),
]


@pytest.mark.parametrize(("options", "key", "problem"), BAD)
def test_the_same_bad_values_give_the_same_error(
    tmp_path: Path, options: dict[str, str], key: str, problem: str
) -> None:
    with pytest.raises(UsageError) as on_the_command_line:
        through_cli(options)
    assert on_the_command_line.value.message == f"--{key} {problem}"
    with pytest.raises(InputError) as in_a_config:
        through_config(tmp_path, options)
    assert in_a_config.value.message == f"'{key}' {problem}"
    assert in_a_config.value.line == 3  # the line of the offending value: the first of the entry


def test_the_record_refuses_what_the_readers_refuse() -> None:
    values: dict[str, Any] = {"max_tokens": 0}
    with pytest.raises(ValueError, match="max-tokens must be at least 1, not 0"):
        ReplaySettings(**values)
    assert ReplaySettings(on_unrecorded=Unrecorded.STUB, stubs="s.json").stubs == "s.json"


def test_replay_finds_the_recorded_scripted_agent_from_any_directory() -> None:
    """The sample session records `scripted:samples/ops/agent.py`, a path from the repository root."""
    from_root = run_cli("replay", "samples/ops/session.json", "--repeat", "2", "--noise", "2", cwd=ROOT)
    from_samples = run_cli("replay", "ops/session.json", "--repeat", "2", "--noise", "2", cwd=SAMPLES)
    assert from_root.code == from_samples.code == 0, from_samples.stderr
    assert "candidate: scripted:samples/ops/agent.py" in from_samples.stdout
    assert from_root.stdout.replace("samples/ops/session.json", "ops/session.json") == from_samples.stdout


def test_min_runs_beyond_the_runs_and_designs_beyond_the_exact_tests_are_refused() -> None:
    from toolreplay.settings import SettingError, parse_settings  # noqa: PLC0415

    with pytest.raises(SettingError, match="min-runs must be at most the runs of each configuration"):
        parse_settings({"repeat": "5", "min_runs": "6"})
    with pytest.raises(SettingError, match=r"min-runs must be at most the runs of each configuration \(3\)"):
        parse_settings({"repeat": "5", "noise": "3", "min_runs": "4"})
    with pytest.raises(SettingError, match="rounds times the runs of a round must be at most 1,000 a side"):
        parse_settings({"repeat": "400", "noise": "400"})


def test_a_server_renamed_twice_is_refused() -> None:
    from toolreplay.settings import SettingError, parse_server_names  # noqa: PLC0415

    assert parse_server_names("a=x,b=y") == (("a", "x"), ("b", "y"))
    with pytest.raises(SettingError, match="renames a twice; give each server one new name"):
        parse_server_names("a=x,a=y")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("localhost:8000/v1", "must be an http:// or https:// URL with a host"),
        ("ftp://example.com", "must be an http:// or https:// URL with a host"),
        ("http://", "must be an http:// or https:// URL with a host"),
        ("http://host:port/v1", "must be an http:// or https:// URL"),
        ("http://user:sk-secret@host/v1", "must hold no credentials"),
    ],
)
def test_a_base_url_is_an_address_and_holds_no_key(text: str, said: str) -> None:
    with pytest.raises(SettingError, match=re.escape(said)):
        parse_settings({"base_url": text})
    assert parse_settings({"base_url": "http://127.0.0.1:8000/v1"}).base_url == "http://127.0.0.1:8000/v1"
    assert parse_settings({"api": "responses"}).api.value == "responses"
    with pytest.raises(SettingError, match="api must be one of chat, responses"):
        parse_settings({"api": "completions"})
