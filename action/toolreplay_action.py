#!/usr/bin/env python3
"""The steps of the toolreplay GitHub Action: run the check, then keep one pull-request comment current.

Python standard library only, so it runs on any runner before toolreplay is
installed. Every input arrives through the environment (``INPUT_*`` and the
``GITHUB_*`` variables the runner sets); nothing is interpolated into a shell.

    toolreplay_action.py fetch-base   fetch the pull request's base commit into a shallow checkout, with the token
    toolreplay_action.py check        run `toolreplay check`: its reports and its exit status, and nothing else
    toolreplay_action.py report       sign the reports, write the job summary and the step outputs from them
    toolreplay_action.py link         link the uploaded HTML report from the job summary

The check runs code of the pull request's (a scripted agent, a cmd: agent's program), so its step is given no
token, no signing key and none of the runner's command files: nothing it runs can set the step's outputs, the job's
environment or its summary, or sign anything. Those are made by the next step, from the JSON report, once every
process the check started is gone (``check --isolate``).
    toolreplay_action.py comment   create or update the sticky comment on the pull request (with that link)
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

MARKER = "<!-- toolreplay-check -->"
COMMENT_LIMIT = 65_000  # GitHub refuses comment bodies over 65,536 characters


def _env(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def _notice(level: str, text: str) -> None:
    print(f"::{level} title=toolreplay::{text}", flush=True)


def _append(variable: str, text: str) -> None:
    target = _env(variable)
    if target:
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(text)


def _output(name: str, value: str) -> None:
    _append("GITHUB_OUTPUT", f"{name}={value}\n")


def _docker_answers() -> bool:
    if shutil.which("docker") is None:
        return False
    probe = subprocess.run(["docker", "info"], capture_output=True, check=False)
    return probe.returncode == 0


def _command(workspace: Path, out: Path) -> tuple[list[str], Path]:
    """How to run toolreplay here, and the directory the reports appear in (as the CLI sees it)."""
    image = _env("INPUT_IMAGE")
    if image and _docker_answers():
        if "@sha256:" not in image:
            raise SystemExit(f"toolreplay: the image must be pinned by digest (name@sha256:...), not {image}")
        uid_gid = f"{os.getuid()}:{os.getgid()}"
        cache = _env("INPUT_CACHE_DIR")
        runs = ["--volume", f"{cache}:/toolreplay-runs"] if cache else []
        return [
            "docker", "run", "--rm", "--user", uid_gid, "--env", "ANTHROPIC_API_KEY", "--env", "OPENAI_API_KEY",
            "--volume", f"{workspace}:/work", "--volume", f"{out}:/toolreplay-out", *runs, "--workdir", "/work", image,
        ], Path("/toolreplay-out")  # fmt: skip
    preinstalled = _env("TOOLREPLAY_CLI")
    if preinstalled:
        return [preinstalled], out
    venv = Path(_env("RUNNER_TEMP", "/tmp")) / "toolreplay-venv"
    action = Path(__file__).resolve().parent.parent
    if not (venv / "bin" / "toolreplay").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run([*pip, f"{action}[anthropic,mcp,openai]"], check=True)
    return [str(venv / "bin" / "toolreplay")], out


def _fetch_base(workspace: Path, base: str, token: str) -> None:
    """Fetch the base commit into a shallow checkout, with the token as actions/checkout sends it (a checkout
    with persist-credentials: false keeps none); where it cannot be fetched, the check says so in one line."""
    present = subprocess.run(["git", "-C", str(workspace), "cat-file", "-e", f"{base}^{{commit}}"], check=False,
                             capture_output=True)  # fmt: skip
    if present.returncode == 0 or not token:
        return
    server = _env("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    header = f"http.{server}/.extraheader=AUTHORIZATION: basic {basic}"
    fetch = ["git", "-C", str(workspace), "-c", header, "fetch", "--quiet", "--no-tags", "--depth=1", "origin", base]
    subprocess.run(fetch, capture_output=True, check=False, timeout=300)


# What the runner gives a step to change the job with, and what holds a credential: none of it reaches the check.
_WITHHELD = ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STEP_SUMMARY", "GITHUB_STATE", "GITHUB_TOKEN",
             "INPUT_TOKEN", "INPUT_SIGN_KEY", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
             "ACTIONS_ID_TOKEN_REQUEST_URL", "ACTIONS_CACHE_URL", "ACTIONS_RESULTS_URL")  # fmt: skip


def _out() -> Path:
    return Path(_env("RUNNER_TEMP", "/tmp")) / "toolreplay"


def _as_root(command: list[str], user: str) -> list[str]:
    """The check's command run as root, which starting programs as ``user`` needs: as it is where the job runs as
    root, else through sudo (GitHub's runners have it without a password), with ``user`` made if it is a name no
    account has yet."""
    if os.geteuid() == 0:
        return command
    if subprocess.run(["sudo", "-n", "true"], capture_output=True, check=False).returncode != 0:
        raise SystemExit("toolreplay: isolate-user needs root or sudo without a password, and this runner has neither")
    if not user.partition(":")[0].isdigit():
        known = subprocess.run(["id", "-u", user], capture_output=True, check=False).returncode == 0
        if not known:
            made = ["sudo", "-n", "useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user]
            subprocess.run(made, capture_output=True, check=True)
    return ["sudo", "-n", "--preserve-env", "--", *command]


# The uids isolate-user: auto runs programs as: no account has one, and each check its own (two jobs on one runner
# machine must not share one), from this process's id.
AUTO_UIDS = range(64000, 65000)


def _rooted() -> list[str] | None:
    """How to run as root here: nothing more, sudo without a password, or None where neither can."""
    if os.geteuid() == 0:
        return []
    if (
        shutil.which("sudo")
        and subprocess.run(["sudo", "-n", "true"], capture_output=True, check=False).returncode == 0
    ):
        return ["sudo", "-n"]
    return None


def _isolated_user(workspace: Path) -> str:
    """The user programs run as: the input's, or under ``auto`` a uid of their own where the check can be root and
    that uid can enter the workspace; else none. Nothing of the pull request's decides it: the workspace directory
    is the runner's (its files' links and modes are the pull request's, and would let it choose)."""
    given = _env("INPUT_ISOLATE_USER", "auto")
    if given != "auto":
        return given
    rooted = _rooted()
    uid = AUTO_UIDS[os.getpid() % len(AUTO_UIDS)]
    if rooted is None:
        return ""
    probe = [*rooted, "-u", f"#{uid}", "--"] if rooted else []
    readable = [*probe, "test", "-x", str(workspace), "-a", "-r", str(workspace)]
    as_user = {} if rooted else {"user": uid, "group": uid, "extra_groups": []}
    try:
        done = subprocess.run(readable, capture_output=True, check=False, cwd="/", **as_user)  # type: ignore[call-overload]
    except OSError:
        return ""
    return str(uid) if done.returncode == 0 else ""


def fetch_base() -> int:
    """The base commit, fetched where a shallow checkout lacks it (its own step: the token is needed only here)."""
    if _env("INPUT_BASE"):
        workspace = Path(_env("GITHUB_WORKSPACE", os.getcwd())).resolve()
        _fetch_base(workspace, _env("INPUT_BASE"), _env("INPUT_TOKEN"))
    return 0


def _keep_unread() -> None:
    """This process's environment (the model's key) and memory unreadable to the check's agents where they run as
    the job's user (PR_SET_DUMPABLE 0: /proc/PID/environ becomes root's)."""
    import ctypes  # noqa: PLC0415

    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)


def check() -> int:
    _keep_unread()
    for name in _WITHHELD:  # the step is given none of them; a runner that gives one anyway keeps it from the check
        os.environ.pop(name, None)
    workspace = Path(_env("GITHUB_WORKSPACE", os.getcwd())).resolve()
    out = _out()
    if out.exists():
        shutil.rmtree(out)  # nothing from an earlier step or run is taken for this check's
    out.mkdir(parents=True)
    command, seen = _command(workspace, out)
    args = ["check", "--markdown", str(seen / "summary.md"), "--sarif", str(seen / "toolreplay.sarif")]
    args += ["--json", str(seen / "report.json"), "--html", str(seen / "report.html"), "--github-annotations"]
    if _env("INPUT_CONFIG"):
        args += ["--config", _env("INPUT_CONFIG")]
    if _env("INPUT_FAIL_ON"):
        args += ["--fail-on", _env("INPUT_FAIL_ON")]
    if _env("INPUT_BASE"):
        if seen != out:
            raise SystemExit("toolreplay: the image has no git, which base needs: leave image empty, or set base to ''")
        args += ["--base", _env("INPUT_BASE"), "--policy", _env("INPUT_POLICY", "base") or "base"]
    if _env("INPUT_ISOLATE", "true") != "false":
        args.append("--isolate")
        user = _isolated_user(workspace) if seen == out else ""
        if user:  # an image runs as the job's user: it cannot start another
            command = _as_root(command, user)
            args += ["--isolate-user", user]
    cache = _env("INPUT_CACHE_DIR")
    if cache:  # every replay's runs kept there, whatever the config says (the workflow keeps the directory)
        Path(cache).mkdir(parents=True, exist_ok=True)
        args += ["--cache", "/toolreplay-runs" if seen != out else cache]
    if _env("GITHUB_EVENT_NAME") == "pull_request_target" and _env("INPUT_ALLOW_PR_CODE") != "true":
        # Secrets and a write token are present here, and the config may come from the pull request:
        # no Python file it names (a scripted agent) is run unless the workflow says so.
        args.append("--no-code")
    status = subprocess.run([*command, *args], cwd=workspace, check=False).returncode
    if command[:1] == ["sudo"]:  # the reports are the job's user's again, for the steps after this one to sign
        owner = f"{os.getuid()}:{os.getgid()}"
        directories = [str(out), *([cache] if cache else [])]
        subprocess.run(["sudo", "-n", "chown", "-R", owner, *directories], check=False, capture_output=True)
    (out / "status").write_text(f"{status}\n", encoding="utf-8")
    return 0  # the next step reports, and the action's last step fails per fail-on


def report() -> int:
    """The outputs, the job summary and the signatures, made from the check's reports and status."""
    out = _out()
    summary, sarif, report, page = (
        out / "summary.md",
        out / "toolreplay.sarif",
        out / "report.json",
        out / "report.html",
    )
    try:
        status = int((out / "status").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        status = 2
    if status not in (0, 1) or not report.is_file():
        _append("GITHUB_STEP_SUMMARY", f"## toolreplay check could not run\n\nExit code {status}: see the step log.\n")
        _output("verdict", "ERROR")
        _output("exit-code", str(status or 2))
        return status or 2
    if _env("INPUT_SIGN_KEY"):
        _sign([summary, sarif, report, page])
    data: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    _append("GITHUB_STEP_SUMMARY", summary.read_text(encoding="utf-8"))
    _output("verdict", str(data["verdict"]))
    _output("findings", str(sum(int(n) for n in data["counts"].values())))
    _output("sarif-file", str(sarif))
    _output("summary-file", str(summary))
    if page.is_file():
        _output("html-file", str(page))
    _output("exit-code", str(status))
    return 0  # the action's last step fails per fail-on, once every report is out


def _sign(reports: list[Path]) -> None:
    """Sign each report into REPORT.sig with the key the workflow gave (a secret), held only for this."""
    key = Path(_env("RUNNER_TEMP", "/tmp")) / "toolreplay-sign-key"
    descriptor = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(_env("INPUT_SIGN_KEY").strip() + "\n")
        for path in reports:
            if path.is_file():
                Path(f"{path}.sig").unlink(missing_ok=True)  # ssh-keygen would ask before replacing it
                signer = ["ssh-keygen", "-q", "-Y", "sign", "-f", str(key), "-n", "toolreplay-report", str(path)]
                done = subprocess.run(signer, stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False)
                if done.returncode != 0:
                    said = done.stderr.strip().splitlines()
                    raise SystemExit(f"toolreplay: could not sign {path.name}: {said[-1] if said else done.returncode}")
    finally:
        key.unlink(missing_ok=True)


class _Api:
    """The few REST calls the comment needs."""

    def __init__(self, base: str, token: str) -> None:
        self.base = base.rstrip("/")
        self.token = token

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"{self.base}{path}", data=data, method=method)
        request.add_header("Accept", "application/vnd.github+json")
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("X-GitHub-Api-Version", "2022-11-28")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"null")


# What upload-artifact gives: GitHub's own address of the artifact. Anything else is not linked.
_ARTIFACT_URL = re.compile(r"https://[A-Za-z0-9.-]+(:[0-9]+)?/[A-Za-z0-9._~/-]+")


def _report_link() -> str:
    """The markdown line that links the HTML report's artifact, or nothing without a proper address."""
    url = _env("ARTIFACT_URL")
    server = _env("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    if not _ARTIFACT_URL.fullmatch(url) or not url.startswith(server + "/"):  # GitHub's own address, nothing else
        return ""
    return (
        f"📊 **[The HTML report]({url})**: the run grid, each run's calls and a diff, side by side "
        "(a workflow artifact: a zip holding `report.html`).\n\n"
    )


def link() -> int:
    """Append the report's link to the job summary, once the artifact is uploaded."""
    line = _report_link()
    if line:
        _append("GITHUB_STEP_SUMMARY", "\n" + line)
    return 0


TRUNCATED = "*The report is longer than a comment allows; the whole report is in the job summary.*"
DEFAULT_AUTHOR = "github-actions[bot]"  # who GITHUB_TOKEN comments as


def _body(summary: str, link: str = "") -> str:
    """The comment: the marker, the report's link, and the report; a report cut to fit says so first, outside any
    folded block."""
    if len(summary) + len(link) <= COMMENT_LIMIT:
        return f"{MARKER}\n{link}{summary}"
    cut = summary[: COMMENT_LIMIT - len(link) - 2 * len(TRUNCATED)]
    cut = cut[: cut.rfind("\n") + 1]  # whole lines only
    unclosed = cut.count("<details>") - cut.count("</details>")
    return f"{MARKER}\n{link}{TRUNCATED}\n\n{cut}" + "\n</details>\n" * max(unclosed, 0) + f"\n{TRUNCATED}\n"


def _identity(api: _Api) -> str:
    """The login the token comments as: its user's for a personal token; GITHUB_TOKEN cannot ask, and is the bot."""
    try:
        user = api.call("GET", "/user")
    except urllib.error.HTTPError:
        return _env("INPUT_COMMENT_AUTHOR") or DEFAULT_AUTHOR
    return str(user.get("login")) if isinstance(user, dict) and user.get("login") else DEFAULT_AUTHOR


def _ours(comment: dict[str, Any], author: str) -> bool:
    """Our sticky comment: it starts with the marker and we wrote it. A marker in anyone else's is ignored."""
    body = str(comment.get("body", ""))
    user = comment.get("user")
    login = user.get("login") if isinstance(user, dict) else None
    return body.startswith(MARKER) and login == author


def comment() -> int:
    event: dict[str, Any] = json.loads(Path(_env("GITHUB_EVENT_PATH")).read_text(encoding="utf-8"))
    pull = event.get("pull_request")
    if not pull:
        _notice("notice", "not a pull request: no comment")
        return 0
    repository = str(event["repository"]["full_name"])
    head = pull.get("head", {}).get("repo") or {}
    if head.get("full_name") != repository:
        _notice("notice", "a pull request from a fork: its token cannot comment, so the report is in the summary only")
        return 0
    summary_file = _env("SUMMARY_FILE")
    if not summary_file or not Path(summary_file).is_file():
        _notice("warning", "no report to comment with: the check did not run")
        return 0
    body = _body(Path(summary_file).read_text(encoding="utf-8"), _report_link())
    api = _Api(_env("GITHUB_API_URL", "https://api.github.com"), _env("GITHUB_TOKEN"))
    number = int(pull["number"])
    try:
        author = _identity(api)
        page = 1
        while True:
            comments = api.call("GET", f"/repos/{repository}/issues/{number}/comments?per_page=100&page={page}")
            ours = next((c for c in comments if isinstance(c, dict) and _ours(c, author)), None)
            if ours is not None:
                api.call("PATCH", f"/repos/{repository}/issues/comments/{ours['id']}", {"body": body})
                print(f"toolreplay: updated comment {ours['id']}")
                return 0
            if len(comments) < 100:
                break
            page += 1
        made = api.call("POST", f"/repos/{repository}/issues/{number}/comments", {"body": body})
        print(f"toolreplay: created comment {made['id']}")
    except (urllib.error.URLError, OSError) as exc:
        _notice("warning", f"could not comment on the pull request ({exc}); the report is in the summary")
    return 0


def main(argv: list[str]) -> int:
    steps = {"fetch-base": fetch_base, "check": check, "report": report, "link": link, "comment": comment}
    if len(argv) != 1 or argv[0] not in steps:
        print(f"usage: toolreplay_action.py {'|'.join(steps)}", file=sys.stderr)
        return 2
    return steps[argv[0]]()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
