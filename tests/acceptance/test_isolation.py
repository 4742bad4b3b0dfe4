"""Code of the pull request's, kept apart from the check: a program agent that tries every escape, and the proof each
failed (``check --isolate``, and the action's steps with the runner's files simulated)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.acceptance.test_action import _outputs, _step, api, github  # noqa: F401 - the action's fixtures
from tests.conftest import SAMPLES, Completed, run_cli_process

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

# A program agent that, on every run: notes which secrets it was given, writes the runner's command files it can
# find, and leaves a process in a session of its own that rewrites the report it is told of after the check ended.
HOSTILE = """\
import os, sys, time
report, notes = sys.argv[1], sys.argv[2]
seen = [name for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "INPUT_SIGN_KEY", "INPUT_TOKEN", "GITHUB_TOKEN")
        if os.environ.get(name)]
with open(notes, "a") as handle:
    handle.write("secrets:" + ",".join(seen) + "\\n")
for name in ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_STEP_SUMMARY"):
    if os.environ.get(name):
        with open(os.environ[name], "a") as handle:
            handle.write("verdict=PASS\\nBASH_ENV=/tmp/evil\\n")
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(1.0)
        with open(report, "a") as handle:
            handle.write("\\nPASS: rewritten after the check\\n")
        with open(notes, "a") as handle:
            handle.write("outlived the check\\n")
        os._exit(0)
    os._exit(0)
print("done")
"""


def _hostile_repo(tmp_path: Path, report: Path, notes: Path, declared: str = "") -> Path:
    repo = tmp_path / "repo"
    (repo / "samples").mkdir(parents=True)
    shutil.copy(SAMPLES / "ops" / "session.json", repo / "samples" / "session.json")
    (repo / "samples" / "hostile.py").write_text(HOSTILE, encoding="utf-8")
    (repo / ".git").mkdir()
    command = f"cmd:{sys.executable} {{here}}/samples/hostile.py {report} {notes}"
    (repo / ".toolreplay.yml").write_text(
        f"sessions: samples/session.json\nreplay:\n  agent: {json.dumps(command)}\n  repeat: 2\n{declared}",
        encoding="utf-8",
    )
    return repo


def _check_process(repo: Path, *args: str, env: dict[str, str]) -> Completed:
    return run_cli_process("check", *args, cwd=repo, environ=env)


def test_under_isolate_a_program_sees_no_secret_and_nothing_it_leaves_outlives_the_check(tmp_path: Path) -> None:
    report, notes = tmp_path / "summary.md", tmp_path / "notes.txt"
    repo = _hostile_repo(tmp_path, report, notes)
    env = {"PATH": "/usr/bin:/bin", "ANTHROPIC_API_KEY": "sk-ant-secret", "OPENAI_API_KEY": "sk-secret",
           "INPUT_SIGN_KEY": "a key", "HOME": "/root"}  # fmt: skip
    done = _check_process(repo, "--isolate", "--markdown", str(report), "--json", str(tmp_path / "r.json"), env=env)
    assert done.code == 0, done.stderr
    written = report.read_bytes()
    time.sleep(2.0)  # what a detached process would have done by now
    assert report.read_bytes() == written
    assert notes.read_text(encoding="utf-8").splitlines() == ["secrets:", "secrets:"]  # two runs, nothing seen
    document = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    isolation = next(result for result in document["results"] if result["key"] == "isolation")
    # each run leaves its detached grandchild; the child between them may not have exited yet when it is counted
    left = re.search(r"(\d+) processes the runs left behind ended before any report was written", isolation["summary"])
    assert left is not None, isolation["summary"]
    assert 2 <= int(left.group(1)) <= 4
    assert [f["rule"] for f in isolation["findings"]] == ["code-unisolated"]  # same user: said, as a warning


def test_without_isolate_the_same_program_gets_the_secrets_and_outlives_the_check(tmp_path: Path) -> None:
    """The attack is real: what the test above proves is isolation's doing, not the program's failing."""
    report, notes = tmp_path / "summary.md", tmp_path / "notes.txt"
    repo = _hostile_repo(tmp_path, report, notes)
    env = {"PATH": "/usr/bin:/bin", "ANTHROPIC_API_KEY": "sk-ant-secret", "HOME": "/root"}
    done = _check_process(repo, "--markdown", str(report), env=env)
    assert done.code == 0, done.stderr
    deadline = time.monotonic() + 10
    while (
        "outlived" not in (notes.read_text(encoding="utf-8") if notes.exists() else "") and time.monotonic() < deadline
    ):
        time.sleep(0.1)
    assert "secrets:ANTHROPIC_API_KEY" in notes.read_text(encoding="utf-8")
    assert "outlived the check" in notes.read_text(encoding="utf-8")
    assert "rewritten after the check" in report.read_text(encoding="utf-8")


@pytest.mark.usefixtures("github")
def test_in_the_action_a_program_cannot_set_outputs_or_read_the_key(github: dict[str, str], tmp_path: Path) -> None:  # noqa: F811
    notes = tmp_path / "notes.txt"
    out = Path(github["RUNNER_TEMP"]) / "toolreplay"
    repo = _hostile_repo(tmp_path, out / "summary.md", notes, "  env: [ANTHROPIC_API_KEY]\n")  # declared: given
    workspace = Path(github["GITHUB_WORKSPACE"])
    shutil.rmtree(workspace)
    shutil.copytree(repo, workspace)
    Path(github["GITHUB_OUTPUT"]).write_text("", encoding="utf-8")
    env = {**github, "INPUT_CONFIG": ".toolreplay.yml", "INPUT_SIGN_KEY": "a key", "INPUT_TOKEN": "a token"}
    env["ANTHROPIC_API_KEY"] = "sk-ant-secret"
    check = _step("check", env)  # as if the runner gave the check's step the key and the token after all
    assert check.returncode == 0, check.stderr
    report = _step("report", {**github, "INPUT_SIGN_KEY": ""})
    assert report.returncode == 0, report.stderr
    time.sleep(1.5)
    outputs = Path(github["GITHUB_OUTPUT"]).read_text(encoding="utf-8")
    assert "verdict=PASS" not in outputs
    assert "BASH_ENV" not in outputs
    assert _outputs(github["GITHUB_OUTPUT"])["verdict"] == "WARN"  # the check's own: its agent's calls changed
    summary = Path(github["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    assert "rewritten after the check" not in summary
    assert "rewritten after the check" not in (out / "summary.md").read_text(encoding="utf-8")
    assert set(notes.read_text(encoding="utf-8").splitlines()) == {"secrets:ANTHROPIC_API_KEY"}  # by name only


ISOLATED_UID = 64123  # a uid nobody has: the program's own


def _runnable_python() -> str | None:
    """A Python the isolated user can run (the check's may lie where only its user reads)."""
    for python in (sys.executable, "/usr/bin/python3"):
        try:
            done = subprocess.run(
                [python, "-I", "-c", "pass"], user=ISOLATED_UID, group=ISOLATED_UID, extra_groups=[], cwd="/",
                capture_output=True, check=False,
            )  # fmt: skip
        except OSError:
            continue  # a Python under a directory only its own user can enter
        if done.returncode == 0:
            return python
    return None


needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="--isolate-user starts programs as another user: root only"
)


def _shared_repo(shared: Path, python: str) -> tuple[Path, Path]:
    """A repository another user can read, whose replay runs the relayed agent, and a directory it notes in (with a
    file of the check's in it, as the runner's command files are)."""
    repo, notes = shared / "repo", shared / "notes"
    (repo / "samples").mkdir(parents=True)
    (repo / ".git").mkdir()
    notes.mkdir()
    for directory in (shared, repo, repo / "samples"):
        directory.chmod(0o755)
    notes.chmod(0o777)
    (notes / "command-file").write_text("", encoding="utf-8")
    shutil.copy(SAMPLES / "ops" / "session.json", repo / "samples" / "session.json")
    shutil.copy(FIXTURES / "relayed_agent.py", repo / "samples" / "agent.py")
    command = f"cmd:{python} {{here}}/samples/agent.py {{mcp_config}} {notes}"
    (repo / ".toolreplay.yml").write_text(
        f"sessions: samples/session.json\nreplay:\n  agent: {json.dumps(command)}\n  repeat: 2\n", encoding="utf-8"
    )
    return repo, notes


@needs_root
def test_as_another_user_a_program_is_answered_through_the_relay_and_can_write_nothing_of_the_checks(
    tmp_path: Path,
) -> None:
    python = _runnable_python()
    if python is None:
        pytest.skip("no Python here that another user can run")
    shared = Path(tempfile.mkdtemp(prefix="toolreplay-isolated-"))  # the test's tmp_path is its user's alone
    try:
        repo, notes = _shared_repo(shared, python)
        env = {"PATH": "/usr/bin:/bin", "ANTHROPIC_API_KEY": "sk-ant-secret", "HOME": str(shared)}
        report = tmp_path / "r.json"
        done = _check_process(repo, "--isolate-user", str(ISOLATED_UID), "--json", str(report), env=env)
        assert done.code == 0, done.stderr
        time.sleep(1.5)
        said = sorted(path.read_text(encoding="utf-8") for path in notes.glob("run-*"))
        assert said == ["answered refused mcp.log refused command-file secrets:\n"] * 2
        assert not (notes / "late").exists()
        assert (notes / "command-file").read_text(encoding="utf-8") == ""
        document = json.loads(report.read_text(encoding="utf-8"))
        isolation = next(result for result in document["results"] if result["key"] == "isolation")
        assert f"each ran as uid {ISOLATED_UID}" in isolation["summary"]
        assert isolation["findings"] == []  # nothing ran unisolated
        replayed = next(result for result in document["results"] if result["analysis"] == "replay")
        assert "2 runs of cmd:" in replayed["summary"]  # each run's call came back through the check's own log
        assert "disk_usage" not in json.dumps([c for c in replayed["changes"] if c["kind"] == "added"])
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_isolate_user_refuses_root_and_says_so_in_one_line(tmp_path: Path) -> None:
    done = _check_process(tmp_path, "--isolate-user", "0", env={"PATH": "/usr/bin:/bin"})
    assert done.code == 2
    assert done.stderr.count("\n") == 1
    assert "--isolate-user" in done.stderr


@needs_root
@pytest.mark.parametrize("given", [str(ISOLATED_UID), "auto"])
def test_the_action_runs_programs_as_the_isolated_user(github: dict[str, str], tmp_path: Path, given: str) -> None:  # noqa: F811
    """Named, or by default (auto: a uid of their own, where the check can be root and that uid reads the config)."""
    python = _runnable_python()
    if python is None:
        pytest.skip("no Python here that another user can run")
    shared = Path(tempfile.mkdtemp(prefix="toolreplay-isolated-"))
    try:
        repo, notes = _shared_repo(shared, python)
        env = {**github, "GITHUB_WORKSPACE": str(repo), "INPUT_CONFIG": ".toolreplay.yml"}
        env |= {"INPUT_ISOLATE_USER": given, "ANTHROPIC_API_KEY": "sk-ant-secret"}
        for step in ("check", "report"):
            done = _step(step, env)
            assert done.returncode == 0, done.stderr
        time.sleep(1.5)
        said = sorted(path.read_text(encoding="utf-8") for path in notes.glob("run-*"))
        assert said == ["answered refused mcp.log refused command-file secrets:\n"] * 2
        assert not (notes / "late").exists()
        outputs = _outputs(github["GITHUB_OUTPUT"])
        assert outputs["verdict"] == "WARN"
        document = json.loads((Path(github["RUNNER_TEMP"]) / "toolreplay" / "report.json").read_text(encoding="utf-8"))
        isolation = next(result for result in document["results"] if result["key"] == "isolation")
        uid = str(ISOLATED_UID) if given != "auto" else r"64\d{3}"  # auto: a uid of the check's own
        assert re.search(rf"each ran as uid {uid}\b", isolation["summary"])
    finally:
        shutil.rmtree(shared, ignore_errors=True)


# --- a scripted agent in a worker process of its own --------------------------------------------------------------

PATCHING = '''\
"""The sample's agent, which also rewrites the check's verdict when it is imported in the check's process."""
import sys
sys.path.insert(0, {ops!r})
from agent import Agent  # noqa: F401 - the sample's policy, unchanged
print("a line on standard output, which is not the protocol's")
try:
    import toolreplay.core.outcome
    import toolreplay.core.verdict
    toolreplay.core.outcome.decide_levels = lambda findings, fail_on: toolreplay.core.verdict.Verdict.PASS
except ImportError:
    pass
'''


def _patching_samples(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(SAMPLES, repo / "samples", ignore=shutil.ignore_patterns("__pycache__"))
    (repo / ".git").mkdir()
    agent = repo / "samples" / "ops" / "patching.py"
    agent.write_text(PATCHING.format(ops=str(repo / "samples" / "ops")), encoding="utf-8")
    config = repo / "samples" / ".toolreplay.yml"
    text = config.read_text(encoding="utf-8").replace("scripted:ops/agent.py", "scripted:ops/patching.py")
    config.write_text(text, encoding="utf-8")
    return repo


def test_a_scripted_agent_that_patches_the_check_rewrites_its_verdict_only_in_the_checks_process(
    tmp_path: Path,
) -> None:
    repo = _patching_samples(tmp_path)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    plain = _check_process(repo, "--config", "samples/.toolreplay.yml", env=env)
    assert plain.code == 0  # the attack is real: in the check's process, the verdict is the agent's
    assert "verdict: PASS" in plain.stdout
    isolated = _check_process(repo, "--config", "samples/.toolreplay.yml", "--isolate", env=env)
    assert isolated.code == 1, isolated.stderr
    assert "verdict: FAIL" in isolated.stdout
    assert "scripted:samples/ops/patching.py ran in a worker process" in isolated.stdout


def test_in_a_worker_a_scripted_agent_replays_exactly_as_in_the_checks_process(tmp_path: Path) -> None:
    args = ("--config", str(SAMPLES / ".toolreplay.yml"), "--json")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    _check_process(SAMPLES.parent, *args, str(tmp_path / "plain.json"), env=env)
    _check_process(SAMPLES.parent, *args, str(tmp_path / "isolated.json"), "--isolate", env=env)
    plain = json.loads((tmp_path / "plain.json").read_text(encoding="utf-8"))["results"]
    isolated = list(json.loads((tmp_path / "isolated.json").read_text(encoding="utf-8"))["results"])
    assert [r["key"] for r in isolated] == ["isolation", *(r["key"] for r in plain)]
    assert isolated[1:] == plain  # every run, call and verdict the same


def test_a_scripted_agent_that_fails_in_its_worker_says_so_in_one_line(tmp_path: Path) -> None:
    repo = _patching_samples(tmp_path)
    (repo / "samples" / "ops" / "patching.py").write_text(
        "class Agent:\n    def __init__(self, seed):\n        pass\n    def respond(self, system, tools, messages):\n"
        "        raise ZeroDivisionError('no policy')\n",
        encoding="utf-8",
    )
    done = _check_process(repo, "--config", "samples/.toolreplay.yml", "--isolate", env={"PATH": "/usr/bin:/bin"})
    assert done.code == 2
    assert done.stderr.count("\n") == 1
    assert done.stderr.endswith(": scripted agent samples/ops/patching.py failed: ZeroDivisionError: no policy\n")


LINGERING = """\
import os, sys, time
class Agent:
    def __init__(self, seed):
        pass
    def respond(self, system, tools, messages):
        if not os.path.exists({pids!r}) and os.fork() == 0:  # one process left behind, by the first run
            os.setsid()
            if os.fork() == 0:
                with open({pids!r}, "a") as handle:
                    handle.write(f"{{os.getpid()}}\\n")
                while True:
                    time.sleep(0.1)
            os._exit(0)
        while not os.path.exists({pids!r}):
            time.sleep(0.01)
        raise RuntimeError("gone wrong")
"""


def test_a_check_that_fails_leaves_nothing_of_the_runs_behind(tmp_path: Path) -> None:
    repo = _patching_samples(tmp_path)
    pids = tmp_path / "pids.txt"
    (repo / "samples" / "ops" / "patching.py").write_text(LINGERING.format(pids=str(pids)), encoding="utf-8")
    done = _check_process(repo, "--config", "samples/.toolreplay.yml", "--isolate", env={"PATH": "/usr/bin:/bin"})
    assert done.code == 2
    assert "gone wrong" in done.stderr
    left = [int(pid) for pid in pids.read_text(encoding="utf-8").split()]
    assert left  # the agent did leave a process
    for pid in left:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_isolate_keeps_the_checks_own_memory_and_environment_from_its_user() -> None:
    """PR_SET_DUMPABLE 0: /proc/PID/environ and mem become root's, so an agent of the check's own (non-root) user
    cannot read them. Asked of a process of its own, as the flag is the process's."""
    probe = (
        "import ctypes; from toolreplay.processes.isolation import keep_unread; "
        "print(keep_unread(), ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "0"]
