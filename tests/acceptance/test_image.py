"""The container image, built from the Dockerfile with the local engine and run through the docker SDK.

Skipped, with the reason, where no container engine answers.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, SAMPLES, run_cli
from tests.fixtures import image_build
from toolreplay import __version__

docker = pytest.importorskip("docker", reason="the docker SDK is not installed")

# One worker builds the image and runs every test of it (scripts/check distributes by group).
pytestmark = pytest.mark.xdist_group("image")

TAG = image_build.TAG
USER = "10001:10001"
BUDGET = 80 * 1000 * 1000  # bytes the image may add to its base, in docker's MB


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    try:
        engine = image_build.engine()
    except Exception as exc:  # any failure to reach the engine means: skip, saying why
        pytest.skip(f"no container engine answers ({type(exc).__name__}: {exc})")
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def image(client: Any) -> Any:
    return image_build.image(client)


def _run(
    client: Any, *args: str, volumes: dict[str, dict[str, str]] | None = None, entrypoint: str | None = None
) -> tuple[int, str, str]:
    container = client.containers.run(
        TAG, list(args), detach=True, user=USER, volumes=volumes or {}, working_dir="/work", entrypoint=entrypoint
    )
    try:
        code = container.wait(timeout=300)["StatusCode"]
        out = container.logs(stdout=True, stderr=False).decode()
        err = container.logs(stdout=False, stderr=True).decode()
    finally:
        container.remove(force=True)
    return code, out, err


def test_the_image_is_labelled_and_runs_as_a_user(image: Any) -> None:
    config = image.attrs["Config"]
    assert config["Entrypoint"] == ["toolreplay"]
    assert config["User"] == USER
    labels = config["Labels"]
    assert labels["org.opencontainers.image.version"] == __version__
    assert labels["org.opencontainers.image.licenses"] == "MIT"
    assert labels["org.opencontainers.image.source"].startswith("https://github.com/")
    assert labels["org.opencontainers.image.description"]
    assert labels["org.opencontainers.image.revision"]


def _base_image() -> str:
    """The image the runtime stage builds FROM, with the Dockerfile's default PYTHON_VERSION."""
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    version = re.search(r"^ARG PYTHON_VERSION=(\S+)$", dockerfile, re.MULTILINE)
    base: str = re.findall(r"^FROM (\S+)", dockerfile, re.MULTILINE)[-1]
    assert version, "the Dockerfile gives PYTHON_VERSION a default"
    return base.replace("${PYTHON_VERSION}", version.group(1))


def test_the_image_adds_at_most_80_mb_to_its_base(client: Any, image: Any) -> None:
    base = client.images.get(_base_image())
    layers = image.attrs["RootFS"]["Layers"]
    assert layers[: len(base.attrs["RootFS"]["Layers"])] == base.attrs["RootFS"]["Layers"]
    added = image.attrs["Size"] - base.attrs["Size"]
    assert added <= BUDGET, (
        f"{_base_image()} {base.attrs['Size']:,} B, the image {image.attrs['Size']:,} B: +{added:,} B"
    )


def _readable(directory: Path) -> None:
    """Let the image's user read what the test wrote (pytest makes its directories private)."""
    directory.chmod(0o755)
    for path in directory.iterdir():
        path.chmod(0o644)


# What the image is asked, all in one container (each container costs seconds on a copying storage driver): the
# SDKs import (anthropic, openai, mcp), no installer is left, `toolreplay version`, a check of the samples mounted
# read-only with every report, a config that names no file, and a clean check.
PROBE = """
import importlib.util, json, subprocess
import anthropic, openai, mcp.client.session, mcp.client.stdio, mcp.server

def run(*args, cwd="/work"):
    done = subprocess.run(["toolreplay", *args], cwd=cwd, capture_output=True, text=True)
    return [done.returncode, done.stdout, done.stderr]

print(json.dumps({
    "installers": [m for m in ("pip", "setuptools", "wheel") if importlib.util.find_spec(m)],
    "version": run("version"),
    "samples": run("check", "--config", "samples/.toolreplay.yml", "--sarif", "/out/r.sarif", "--markdown",
                   "/out/r.md", "--json", "/out/r.json", "--html", "/out/r.html"),
    "bad": run("check", cwd="/checks/bad"),
    "clean": run("check", cwd="/checks/clean"),
    "signed": run("check", cwd="/checks/signed") if __import__("os").path.isdir("/checks/signed") else None,
}))
"""


def _signed(directory: Path) -> Path:
    """A repository whose config holds a sealed recording to a signer: sealed and signed here, with a key of its
    own, outside the directory."""
    directory.mkdir()
    key = directory.parent / "alice"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "alice", "-f", str(key)], check=True)
    sealed = directory / "clean.sealed.jsonl"
    done = run_cli("seal", str(SAMPLES / "session-clean.jsonl"), "-o", str(sealed), "--sign", str(key))
    assert done.code == 0, done.stderr
    public = Path(f"{key}.pub").read_text(encoding="utf-8").split()
    (directory / "allowed_signers").write_text(f"alice@example.com {public[0]} {public[1]}\n", encoding="utf-8")
    (directory / ".toolreplay.yml").write_text("sealed: clean.sealed.jsonl\nsigners: allowed_signers\n", "utf-8")
    return directory


@pytest.fixture(scope="module")
def probed(client: Any, image: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """The probe's answers, and the directory the samples' reports were written to."""
    root = tmp_path_factory.mktemp("image")
    checkout = root / "checkout"  # a checkout holding the samples, mounted as `-v "$PWD:/work:ro"`
    shutil.copytree(SAMPLES, checkout / "samples")
    checkout.chmod(0o755)
    out = root / "out"
    out.mkdir()
    out.chmod(0o777)
    checks = root / "checks"
    bad, clean = checks / "bad", checks / "clean"
    bad.mkdir(parents=True)
    clean.mkdir()
    (bad / ".toolreplay.yml").write_text("transcripts: missing-*.jsonl\n", encoding="utf-8")
    (clean / "clean.jsonl").write_bytes((SAMPLES / "session-clean.jsonl").read_bytes())
    directories = [checks, bad, clean]
    if shutil.which("ssh-keygen") is not None:  # a recording signed here, its signature checked in the image
        directories.append(_signed(checks / "signed"))
    for directory in directories:
        _readable(directory)
    volumes = {
        str(checkout): {"bind": "/work", "mode": "ro"},
        str(out): {"bind": "/out", "mode": "rw"},
        str(checks): {"bind": "/checks", "mode": "ro"},
    }
    code, stdout, stderr = _run(client, "-c", PROBE, entrypoint="python", volumes=volumes)
    assert (code, stderr) == (0, "")
    answers: dict[str, Any] = json.loads(stdout)
    return answers, out


def test_the_sdks_import_no_installer_is_left_and_the_command_runs(probed: tuple[dict[str, Any], Path]) -> None:
    answers, _ = probed
    assert answers["installers"] == []
    assert answers["version"] == [0, f"toolreplay {__version__}\n", ""]


def test_check_on_the_samples_mounted_read_only(probed: tuple[dict[str, Any], Path]) -> None:
    answers, out = probed
    code, stdout, stderr = answers["samples"]
    assert (code, stderr) == (1, "")
    assert stdout.startswith("toolreplay check: FAIL\nconfig: samples/.toolreplay.yml · 12 analyses\n")
    reports = {name: (out / name).read_text(encoding="utf-8") for name in ("r.sarif", "r.md", "r.json", "r.html")}
    assert reports["r.html"] == (ROOT / "tests" / "golden" / "check.html").read_text(encoding="utf-8")
    assert all("/work" not in text for text in reports.values())
    uris = {
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for result in json.loads(reports["r.sarif"])["runs"][0]["results"]
    }
    assert "samples/ops/prompt-v2.txt" in uris
    assert all((ROOT / uri).is_file() for uri in uris)


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen (OpenSSH) is not installed to sign here")
def test_a_signature_is_checked_in_the_image(probed: tuple[dict[str, Any], Path]) -> None:
    """The image holds OpenSSH's ssh-keygen, so a config's signers are checked there as anywhere."""
    answers, _ = probed
    code, stdout, stderr = answers["signed"]
    assert (code, stderr) == (0, "")
    assert "signed by alice@example.com" in stdout


def test_a_bad_config_exits_2_and_a_clean_check_0(probed: tuple[dict[str, Any], Path]) -> None:
    answers, _ = probed
    assert answers["bad"] == [
        2,
        "",
        "toolreplay: error: .toolreplay.yml:1: 'transcripts': missing-*.jsonl matches no file\n",
    ]
    clean_code, clean_out, _ = answers["clean"]
    assert clean_code == 0
    assert "toolreplay check: PASS" in clean_out
