"""A verdict never comes from a misread command line: options given several values take them, or it is refused."""

from __future__ import annotations

import glob
import shutil
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from toolreplay.cli import main
from toolreplay.core.errors import InputError
from toolreplay.formats.config.read import read_config

EDITED = sorted(glob.glob("ops/recorded/edited-*.json", root_dir=SAMPLES))
UNCHANGED = sorted(glob.glob("ops/recorded/unchanged-*.json", root_dir=SAMPLES))


def toolreplay(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def samples(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SAMPLES)


def test_the_documented_command_line_takes_every_baseline(capsys: pytest.CaptureFixture[str], samples: None) -> None:
    """`compare RECORDED CANDIDATE... --baseline BASELINE...`, as the shell expands the globs: six and six."""
    assert len(EDITED) == len(UNCHANGED) == 6
    code, text, error = toolreplay(capsys, "compare", "ops/session.json", *EDITED, "--baseline", *UNCHANGED)
    assert (code, error) == (1, "")
    assert "runs: 6 with the edit; 6 unchanged" in text
    assert text.rstrip().splitlines()[-1].startswith("verdict: FAIL: delete_path: destructive, more frequent")
    repeated = [word for path in UNCHANGED for word in ("--baseline", path)]
    assert toolreplay(capsys, "compare", "ops/session.json", *EDITED, *repeated) == (1, text, "")
    ended = toolreplay(capsys, "compare", "--baseline", *UNCHANGED, "--", "ops/session.json", *EDITED)
    assert ended == (1, text, "")
    between = toolreplay(capsys, "compare", "ops/session.json", *EDITED, "--baseline", *UNCHANGED, "--fail-on", "never")
    assert between[0] == 0  # the next option ends the baselines
    assert "runs: 6 with the edit; 6 unchanged" in between[1]


def test_baselines_before_the_sessions_are_refused_not_misread(
    capsys: pytest.CaptureFixture[str], samples: None
) -> None:
    """`compare --baseline unchanged-*.json RECORDED CANDIDATE...` once read one baseline and eleven edited runs: WARN,
    exit 0. Every file after --baseline is a baseline now, so RECORDED is missing, and it says so."""
    code, text, error = toolreplay(capsys, "compare", "--baseline", *UNCHANGED, "ops/session.json", *EDITED)
    assert (code, text) == (2, "")
    assert error.count("\n") == 1
    assert "Missing argument 'RECORDED'" in error
    assert "--baseline takes every file up to the next option (here 13)" in error
    assert "or end its files with --" in error


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["ops/session.json", EDITED[0], "--baseline", EDITED[0]],
            f"{EDITED[0]} is given twice (as a candidate and as a baseline)",
        ),
        (["ops/session.json", EDITED[0], EDITED[0], "--baseline", *UNCHANGED], "(as a candidate and as a candidate)"),
        (["ops/session.json", *EDITED, "--baseline", "ops/session.json"], "(as RECORDED and as a baseline)"),
        (["ops/session.json", *EDITED, "--baseline", "--json"], "--baseline"),
    ],
)
def test_a_session_in_two_roles_is_refused(
    capsys: pytest.CaptureFixture[str], samples: None, args: list[str], says: str
) -> None:
    code, text, error = toolreplay(capsys, "compare", *args)
    assert (code, text) == (2, "")
    assert error.count("\n") == 1
    assert says in error


@pytest.mark.parametrize(
    ("args", "word"),
    [
        (
            ["record-mcp", "-o", "{log}", "--redact", "sk-[a-z]+", "token-[0-9]+", "--", "python", "server.py"],
            "token-[0-9]+",
        ),
        (["record-mcp", "-o", "{log}", "server.py", "--", "python"], "server.py"),
        (["serve", "{log}", "--on-unrecorded", "live", "--rules", "a.toml", "b.toml", "--", "python"], "b.toml"),
    ],
)
def test_a_word_before_the_command_is_never_run_as_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], word: str
) -> None:
    """The second value of an option before `--` would have become the start of the server's command."""
    log = tmp_path / "log.jsonl"
    if args[0] == "serve":
        log.write_text('{"command": ["s"], "event": "start", "v": 2}\n', encoding="utf-8")
    code, text, error = toolreplay(capsys, *(a.replace("{log}", str(log)) for a in args))
    assert (code, text) == (2, "")
    assert error.startswith(f"toolreplay: error: {word!r} comes before '--'"), error
    assert error.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == (["log.jsonl"] if args[0] == "serve" else [])


def test_a_compare_group_whose_globs_overlap_is_refused_at_its_line(tmp_path: Path) -> None:
    """The config's form of the same mistake: `candidates: recorded/*.json` also matches the baselines."""
    (tmp_path / "recorded").mkdir()
    for name in ["ops/session.json", *EDITED, *UNCHANGED]:
        shutil.copy(SAMPLES / name, tmp_path / "recorded" / Path(name).name)
    config = tmp_path / ".toolreplay.yml"
    config.write_text(
        "compare:\n"
        "  - recorded: recorded/session.json\n"
        "    candidates: recorded/*-*.json\n"
        '    baseline: "recorded/unchanged-*.json"\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        read_config(str(config))
    assert caught.value.line == 4
    assert "'baseline': " in caught.value.message
    assert "is also matched by 'candidates'; give each session one role" in caught.value.message
    config.write_text(config.read_text(encoding="utf-8").replace("*-*.json", "edited-*.json"), encoding="utf-8")
    (group,) = read_config(str(config)).compares
    assert (len(group.candidates), len(group.baseline)) == (6, 6)
