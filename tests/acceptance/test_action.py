"""The Action's steps in a faked GitHub environment, against a stub of the REST API on 127.0.0.1."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT

SCRIPT = ROOT / "action" / "toolreplay_action.py"
REPO = "octo/agents"


class _Comments:
    """The stub's state: issue comments by id, and every request it saw."""

    def __init__(self) -> None:
        self.comments: dict[int, dict[str, Any]] = {}
        self.requests: list[tuple[str, str, str]] = []
        self.next_id = 100
        self.token_user: str | None = None  # a personal token's login; GITHUB_TOKEN's /user is refused


def _handler(state: _Comments) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: object) -> None:
            pass

        def _reply(self, status: int, body: object) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> dict[str, Any]:
            length = int(self.headers.get("Content-Length", "0"))
            parsed: dict[str, Any] = json.loads(self.rfile.read(length))
            return parsed

        def do_GET(self) -> None:
            if self.path == "/user":
                if state.token_user is None:
                    self._reply(403, {"message": "Resource not accessible by integration"})
                else:
                    self._reply(200, {"login": state.token_user})
                return
            state.requests.append(("GET", self.path, self.headers.get("Authorization", "")))
            if re.fullmatch(rf"/repos/{REPO}/issues/7/comments\?per_page=100&page=1", self.path):
                self._reply(200, list(state.comments.values()))
            else:
                self._reply(404, {"message": "Not Found"})

        def do_POST(self) -> None:
            state.requests.append(("POST", self.path, self.headers.get("Authorization", "")))
            state.next_id += 1
            author = state.token_user or "github-actions[bot]"
            state.comments[state.next_id] = {
                "id": state.next_id,
                "body": self._body()["body"],
                "user": {"login": author},
            }
            self._reply(201, state.comments[state.next_id])

        def do_PATCH(self) -> None:
            state.requests.append(("PATCH", self.path, self.headers.get("Authorization", "")))
            number = int(self.path.rsplit("/", 1)[1])
            state.comments[number]["body"] = self._body()["body"]
            self._reply(200, state.comments[number])

    return Handler


@pytest.fixture
def api() -> Iterator[tuple[str, _Comments]]:
    state = _Comments()
    state.comments[5] = {"id": 5, "body": "a reviewer's comment", "user": {"login": "reviewer"}}
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    # shutdown() waits for the loop to look at its flag once per poll interval: 0.5 s by default, 20 ms here
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", state
    server.shutdown()
    server.server_close()


def _event(tmp_path: Path, head: str) -> Path:
    event = {
        "repository": {"full_name": REPO},
        "pull_request": {"number": 7, "head": {"repo": {"full_name": head}}},
    }
    path = tmp_path / f"event-{head.replace('/', '-')}.json"
    path.write_text(json.dumps(event), encoding="utf-8")
    return path


def _check(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The action's three steps of a check, as the workflow runs them: fetch the base, check, report."""
    steps = [_step(name, env) for name in ("fetch-base", "check", "report")]
    return subprocess.CompletedProcess(
        steps[1].args,
        next((step.returncode for step in steps if step.returncode), 0),
        "".join(step.stdout for step in steps),
        "".join(step.stderr for step in steps),
    )


def _step(step: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin", **env}
    return subprocess.run(
        [sys.executable, str(SCRIPT), step], capture_output=True, text=True, env=full, timeout=300, check=False
    )


@pytest.fixture
def github(tmp_path: Path, api: tuple[str, _Comments]) -> dict[str, str]:
    workspace = tmp_path / "workspace"
    shutil.copytree(ROOT / "samples", workspace / "samples")
    (workspace / ".git").mkdir()
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    return {
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_OUTPUT": str(tmp_path / "output.txt"),
        "GITHUB_EVENT_PATH": str(_event(tmp_path, REPO)),
        "GITHUB_API_URL": api[0],
        "GITHUB_TOKEN": "test-token",
        "RUNNER_TEMP": str(temp),
        "TOOLREPLAY_CLI": str(Path(sys.executable).parent / "toolreplay"),
        "INPUT_CONFIG": "samples/.toolreplay.yml",
    }


def _outputs(path: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in Path(path).read_text(encoding="utf-8").splitlines())


def test_check_writes_the_summary_outputs_and_annotations(github: dict[str, str]) -> None:
    result = _check(github)
    assert result.returncode == 0, result.stderr  # failing waits for the last step
    outputs = _outputs(github["GITHUB_OUTPUT"])
    assert outputs["verdict"] == "FAIL"
    assert outputs["exit-code"] == "1"
    # the nine of the samples (two of them the policy the edit breaks), and that their scripted agent ran unisolated
    assert outputs["findings"] == "10"
    assert Path(outputs["sarif-file"]).is_file()
    summary = Path(github["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    assert summary.startswith("## toolreplay check: ❌ FAIL")
    assert summary == Path(outputs["summary-file"]).read_text(encoding="utf-8")
    assert "::error file=samples/ops/prompt-v2.txt,line=2,title=toolreplay destructive-call::" in result.stdout
    assert github["GITHUB_WORKSPACE"] not in Path(outputs["sarif-file"]).read_text(encoding="utf-8")
    page = Path(outputs["html-file"]).read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "toolreplay check: FAIL" in page


def test_a_second_check_with_the_run_cache_drives_nothing_and_says_so(github: dict[str, str], tmp_path: Path) -> None:
    """The directory the workflow keeps between runs (actions/cache restores and saves it): the first check keeps
    its runs there, the next one is given them back and reaches the same verdict."""
    cache = tmp_path / "runner-temp" / "toolreplay-runs"
    env = {**github, "INPUT_CACHE_DIR": str(cache)}
    first = _check(env)
    assert first.returncode == 0, first.stderr
    assert "0 runs from it" in first.stderr
    kept = len(list(cache.glob("*/*.json")))
    assert kept > 0
    Path(github["GITHUB_STEP_SUMMARY"]).unlink()
    second = _check(env)
    assert second.returncode == 0, second.stderr
    assert f"{kept} runs from it, 0 kept" in second.stderr
    assert _outputs(github["GITHUB_OUTPUT"])["verdict"] == "FAIL"
    summary = Path(github["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    assert f"({kept} of {kept} runs from the run cache)" in summary


def test_the_run_cache_is_restored_before_the_check_and_saved_in_the_refs_own_scope() -> None:
    """What can be held offline of the cache's scoping: a pull request restores its own ref's newest runs, else
    the default branch's, and saves under its own ref only (a key the default branch's restore never matches);
    nothing is saved from a check that could not run."""
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    steps = action["runs"]["steps"]
    names = [step["name"] for step in steps]
    assert (
        names.index("Restore the run cache") < names.index("Run toolreplay check") < names.index("Save the run cache")
    )
    restore, save = steps[names.index("Restore the run cache")], steps[names.index("Save the run cache")]
    assert restore["uses"].startswith("actions/cache/restore@")
    assert save["uses"].startswith("actions/cache/save@")
    assert restore["with"]["path"] == save["with"]["path"] == "${{ runner.temp }}/toolreplay-runs"
    own = "${{ inputs.cache-name }}-${{ github.ref }}-"
    assert save["with"]["key"].startswith(own)
    assert restore["with"]["restore-keys"].splitlines() == [
        own,
        "${{ inputs.cache-name }}-refs/heads/${{ github.event.repository.default_branch }}-",
    ]
    assert "steps.check.outputs.verdict != 'ERROR'" in save["if"]
    assert "always()" in save["if"]
    check = steps[names.index("Run toolreplay check")]
    assert "toolreplay-runs" in check["env"]["INPUT_CACHE_DIR"]
    assert action["inputs"]["cache"]["default"] == "true"


def test_the_html_report_is_linked_from_the_summary_and_the_comment(
    github: dict[str, str], api: tuple[str, _Comments]
) -> None:
    url = "https://github.com/octo/agents/actions/runs/42/artifacts/4242"
    assert _check(github).returncode == 0
    summary_file = _outputs(github["GITHUB_OUTPUT"])["summary-file"]
    before = Path(github["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    assert _step("link", {**github, "ARTIFACT_URL": url}).returncode == 0
    after = Path(github["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    assert after.startswith(before)
    assert f"**[The HTML report]({url})**" in after[len(before) :]
    result = _step("comment", {**github, "SUMMARY_FILE": summary_file, "ARTIFACT_URL": url})
    assert result.returncode == 0, result.stderr
    (body,) = [c["body"] for c in api[1].comments.values() if c["user"]["login"] == "github-actions[bot]"]
    assert body.splitlines()[1].startswith(f"📊 **[The HTML report]({url})**")  # first, where no cut reaches it


@pytest.mark.parametrize(
    "url",
    [
        "",
        "javascript:alert(1)",
        "https://x.test/a) [click](https://evil.test",
        "https://x.test/a\n## forged",
        "https://evil.example/octo/agents/actions/runs/42/artifacts/4242",
        "https://github.com.evil.example/a",
        "http://x.test/a",
    ],
)
def test_only_a_proper_artifact_address_is_linked(github: dict[str, str], url: str) -> None:
    Path(github["GITHUB_STEP_SUMMARY"]).write_text("report\n", encoding="utf-8")
    assert _step("link", {**github, "ARTIFACT_URL": url}).returncode == 0
    assert Path(github["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8") == "report\n"


def test_a_check_that_cannot_run_fails_the_step(github: dict[str, str]) -> None:
    result = _check({**github, "INPUT_CONFIG": "samples/missing.yml"})
    assert result.returncode == 2
    assert _outputs(github["GITHUB_OUTPUT"])["verdict"] == "ERROR"
    assert "could not run" in Path(github["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")


def test_the_comment_is_created_then_updated(github: dict[str, str], api: tuple[str, _Comments]) -> None:
    _, state = api
    assert _check(github).returncode == 0
    env = {**github, "SUMMARY_FILE": _outputs(github["GITHUB_OUTPUT"])["summary-file"]}
    first = _step("comment", env)
    assert first.returncode == 0, first.stderr
    assert first.stdout == "toolreplay: created comment 101\n"
    second = _step("comment", env)
    assert second.stdout == "toolreplay: updated comment 101\n"
    assert sorted(state.comments) == [5, 101]  # no duplicate; the reviewer's comment untouched
    assert state.comments[5]["body"] == "a reviewer's comment"
    assert state.comments[101]["body"].startswith("<!-- toolreplay-check -->\n## toolreplay check: ❌ FAIL")
    methods = [method for method, _, _ in state.requests]
    assert methods == ["GET", "POST", "GET", "PATCH"]
    assert all(auth == "Bearer test-token" for _, _, auth in state.requests)


def test_a_fork_gets_no_comment_but_its_reports(
    tmp_path: Path, github: dict[str, str], api: tuple[str, _Comments]
) -> None:
    _, state = api
    fork = {**github, "GITHUB_EVENT_PATH": str(_event(tmp_path, "someone/agents"))}
    assert _check(fork).returncode == 0
    result = _step("comment", {**fork, "SUMMARY_FILE": _outputs(fork["GITHUB_OUTPUT"])["summary-file"]})
    assert result.returncode == 0
    assert result.stdout.startswith("::notice title=toolreplay::a pull request from a fork")
    assert state.requests == []
    assert Path(fork["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8").startswith("## toolreplay check")
    assert Path(_outputs(fork["GITHUB_OUTPUT"])["sarif-file"]).is_file()


def test_a_marker_in_someone_elses_comment_is_ignored(github: dict[str, str], api: tuple[str, _Comments]) -> None:
    _, state = api
    forged = "<!-- toolreplay-check -->\n## toolreplay check: ✅ PASS"
    state.comments[6] = {"id": 6, "body": forged, "user": {"login": "mallory"}}
    assert _check(github).returncode == 0
    env = {**github, "SUMMARY_FILE": _outputs(github["GITHUB_OUTPUT"])["summary-file"]}
    assert _step("comment", env).stdout == "toolreplay: created comment 101\n"
    assert state.comments[6]["body"] == forged  # never edited, never taken for ours
    assert state.comments[101]["user"] == {"login": "github-actions[bot]"}
    assert _step("comment", env).stdout == "toolreplay: updated comment 101\n"


def test_a_personal_token_updates_only_its_own_comment(github: dict[str, str], api: tuple[str, _Comments]) -> None:
    _, state = api
    state.comments[6] = {"id": 6, "body": "<!-- toolreplay-check -->\nold", "user": {"login": "github-actions[bot]"}}
    state.token_user = "release-bot"
    assert _check(github).returncode == 0
    env = {**github, "SUMMARY_FILE": _outputs(github["GITHUB_OUTPUT"])["summary-file"]}
    assert _step("comment", env).stdout == "toolreplay: created comment 101\n"
    assert state.comments[6]["body"] == "<!-- toolreplay-check -->\nold"


def test_a_long_report_says_it_was_cut_outside_any_folded_block(
    tmp_path: Path, github: dict[str, str], api: tuple[str, _Comments]
) -> None:
    import cmarkgfm  # noqa: PLC0415 - GitHub's own parser, for what the comment shows

    _, state = api
    rows = "".join(f"| {n} | a long row of the report {'x' * 80} |\n" for n in range(2000))
    summary = tmp_path / "long.md"
    summary.write_text(
        f"## toolreplay check\n\n<details><summary>2000 rows</summary>\n\n| n | row |\n|---|---|\n{rows}"
    )
    assert _step("comment", {**github, "SUMMARY_FILE": str(summary)}).returncode == 0
    body = state.comments[101]["body"]
    assert len(body) <= 65_536
    html = cmarkgfm.github_flavored_markdown_to_html(body, options=cmarkgfm.cmark.Options.CMARK_OPT_UNSAFE)
    outside = re.sub(r"<details>.*?</details>", "", html, flags=re.DOTALL)
    assert "longer than a comment allows" in outside
    assert html.count("<details>") == html.count("</details>") == 1


def test_pull_request_target_runs_no_code_from_the_config_unless_allowed(github: dict[str, str]) -> None:
    target = {**github, "GITHUB_EVENT_NAME": "pull_request_target"}
    refused = _check(target)
    assert refused.returncode == 2
    assert _outputs(github["GITHUB_OUTPUT"])["verdict"] == "ERROR"
    assert "scripted agent samples/ops/agent.py is not run: --no-code" in refused.stderr
    Path(github["GITHUB_OUTPUT"]).unlink()
    allowed = _check({**target, "INPUT_ALLOW_PR_CODE": "true"})
    assert allowed.returncode == 0, allowed.stderr
    assert _outputs(github["GITHUB_OUTPUT"])["verdict"] == "FAIL"


def _uses(document: dict[str, Any]) -> list[str]:
    steps = [step for job in document.get("jobs", {}).values() for step in job.get("steps", [])]
    steps += document.get("runs", {}).get("steps", [])
    return [str(step["uses"]) for step in steps if "uses" in step]


def _runs(document: dict[str, Any]) -> list[str]:
    steps = [step for job in document.get("jobs", {}).values() for step in job.get("steps", [])]
    steps += document.get("runs", {}).get("steps", [])
    return [str(step["run"]) for step in steps if "run" in step]


@pytest.mark.parametrize(
    "name",
    ["action.yml", ".github/workflows/ci.yml", ".github/workflows/selftest.yml", ".github/workflows/release.yml"],
)
def test_actions_are_pinned_and_scripts_take_no_expressions(name: str) -> None:
    document = yaml.safe_load((ROOT / name).read_text(encoding="utf-8"))
    for uses in _uses(document):
        assert uses == "./" or re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", uses), uses
    for script in _runs(document):
        assert "${{" not in script
    if name != "action.yml":
        assert document["permissions"] == {}


def test_the_action_declares_its_interface() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) >= {
        "config",
        "fail-on",
        "upload-sarif",
        "comment",
        "token",
        "anthropic-api-key",
        "openai-api-key",
        "image",
    }
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", name) for name in action["inputs"])
    assert action["inputs"]["token"]["default"] == "${{ github.token }}"
    assert set(action["outputs"]) == {"verdict", "findings", "sarif-file", "summary-file", "html-file", "report-url"}
    upload = next(step for step in action["runs"]["steps"] if step.get("id") == "report")
    assert upload["uses"].startswith("actions/upload-artifact@")
    assert upload["with"]["path"].splitlines() == [
        "${{ steps.check.outputs.html-file }}",
        "${{ steps.check.outputs.html-file }}.sig",
    ]
    assert action["inputs"]["base"]["default"] == "${{ github.event.pull_request.base.sha }}"
    names = [step["name"] for step in action["runs"]["steps"]]
    # the report is uploaded and linked before the comment, and before anything that may fail on its own
    assert (
        names.index("Upload the HTML report") < names.index("Comment on the pull request") < names.index("Upload SARIF")
    )
    assert action["branding"]["icon"]
    assert action["runs"]["steps"][-1]["name"] == "Apply fail-on"


def _steps_in(document: Any) -> list[dict[str, Any]]:
    """The steps of a documented workflow, a job, or a list of steps."""
    if isinstance(document, list):
        return [step for step in document if isinstance(step, dict)]
    if isinstance(document, dict):
        if "steps" in document:
            return _steps_in(document["steps"])
        return [step for job in document.get("jobs", {}).values() for step in _steps_in(job)]
    return []


@pytest.mark.parametrize(
    ("doc", "heading"), [("docs/ci.md", "### As a GitHub Action"), ("docs/agents.md", "## In the GitHub Action")]
)
def test_the_docs_say_a_cmd_agents_program_is_installed_before_the_action(doc: str, heading: str) -> None:
    text = (ROOT / doc).read_text(encoding="utf-8")
    section = text[text.index(heading) + len(heading) :]
    section = section[: next((m.start() for m in re.finditer(r"^#{1,3} ", section, re.MULTILINE)), len(section))]
    assert "`cmd:`" in section
    assert "installed in the job" in section
    examples = [_steps_in(yaml.safe_load(block)) for block in re.findall(r"```yaml\n(.*?)```", section, re.S)]
    with_agent = [steps for steps in examples if any(str(s.get("uses", "")).startswith("toolreplay/") for s in steps)]

    def installs_first(steps: list[dict[str, Any]]) -> bool:  # the agent's own program, before the action
        action = next(n for n, s in enumerate(steps) if str(s.get("uses", "")).startswith("toolreplay/"))
        return any("install" in str(step.get("run", "")) for step in steps[:action])

    assert any(installs_first(steps) for steps in with_agent)
    for steps in with_agent:
        for step in steps:
            uses = str(step.get("uses", "toolreplay/toolreplay@<commit SHA>"))
            assert uses == "toolreplay/toolreplay@<commit SHA>" or re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", uses)
    inputs = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"]
    assert "cmd: agent's program and its dependencies must be installed in the job" in inputs["config"]["description"]


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen (OpenSSH) is not installed")
def _committed_base(workspace: Path) -> tuple[list[str], str]:
    """The workspace made a git repository whose one commit, the base, holds it as it is: git's words, the commit."""
    shutil.rmtree(workspace / ".git")
    git = ["git", "-C", str(workspace), "-c", "user.email=ci@example.com", "-c", "user.name=CI"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "base"], check=True)
    base = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    return git, base


def test_the_base_is_passed_and_the_reports_are_signed(github: dict[str, str], tmp_path: Path) -> None:
    """The pull request's base holds the samples; the pull request rewrites a sealed recording and seals it
    again. The action holds it to the base, and signs every report with the key the workflow gave."""
    workspace = Path(github["GITHUB_WORKSPACE"])
    _, base = _committed_base(workspace)
    sealed = workspace / "samples" / "sealed" / "clean.sealed.jsonl"
    links = sealed.read_text(encoding="utf-8").splitlines()
    calls = [{k: v for k, v in json.loads(link).items() if k not in ("prev", "digest")} for link in links]
    calls[-1]["response"] = {"rewritten": True}
    plain = tmp_path / "plain.jsonl"
    plain.write_text("".join(json.dumps(call) + "\n" for call in calls), encoding="utf-8")
    subprocess.run([str(Path(sys.executable).parent / "toolreplay"), "seal", str(plain), "-o", str(sealed)], check=True)
    key = tmp_path / "signing-key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    result = _check({**github, "INPUT_BASE": base, "INPUT_SIGN_KEY": key.read_text(encoding="utf-8")})
    assert result.returncode == 0, result.stderr
    summary = Path(github["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    assert "recording-rewritten" in summary
    assert (
        f"::error file=samples/sealed/clean.sealed.jsonl,line={len(links)},title=toolreplay recording-rewritten::"
        in (result.stdout)
    )
    allowed = tmp_path / "allowed_signers"
    allowed.write_text("ci@example.com " + " ".join(Path(f"{key}.pub").read_text().split()[:2]) + "\n")
    outputs = _outputs(github["GITHUB_OUTPUT"])
    for name in ("summary-file", "sarif-file", "html-file"):
        report = Path(outputs[name])
        verify = ["ssh-keygen", "-Y", "verify", "-f", str(allowed), "-I", "ci@example.com", "-n", "toolreplay-report"]
        with report.open("rb") as data:
            done = subprocess.run([*verify, "-s", f"{report}.sig"], stdin=data, capture_output=True, check=False)
        assert done.returncode == 0, (name, done.stderr)
    assert not list(Path(github["RUNNER_TEMP"]).glob("*sign-key*"))  # the key is gone once it signed


def test_a_pull_request_that_switches_the_gate_off_still_fails_the_action(github: dict[str, str]) -> None:
    """The base holds the samples; the pull request sets fail-on never and one run a side. The action's check runs the
    base's policy: FAIL, with each loosening in the summary the comment is made from."""
    workspace = Path(github["GITHUB_WORKSPACE"])
    git, base = _committed_base(workspace)
    config = workspace / "samples" / ".toolreplay.yml"
    text = config.read_text(encoding="utf-8").replace("fail-on: destructive", "fail-on: never")
    config.write_text(text.replace("repeat: 20", "repeat: 1").replace("noise: 20 ", "noise: 1 "), encoding="utf-8")
    subprocess.run([*git, "commit", "-q", "-am", "the pull request"], check=True)
    result = _check({**github, "INPUT_BASE": base})
    assert result.returncode == 0, result.stderr
    assert _outputs(github["GITHUB_OUTPUT"])["verdict"] == "FAIL"
    summary = Path(github["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    for loosened in (
        "fail-on: was destructive, is never",
        "replay 1 repeat: was 20, is 1",
        "replay 1 noise: was 20, is 1",
    ):
        assert loosened in summary
    assert "the base's policy governed" in summary
