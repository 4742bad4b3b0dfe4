"""Shared fixtures: where the samples live and how to run the real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

# The suite's properties run 60 examples each (Hypothesis' default is 100), so the whole suite stays a fast
# loop; `HYPOTHESIS_PROFILE=thorough pytest` runs 1,000 each. A test that sets its own count keeps it.
settings.register_profile("fast", max_examples=60)
settings.register_profile("thorough", max_examples=1_000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
GOLDEN = Path(__file__).resolve().parent / "golden"


@dataclass(frozen=True)
class Completed:
    """What one run of the CLI did."""

    code: int
    stdout: str
    stderr: str


def run_cli(*args: str, cwd: Path = SAMPLES) -> Completed:
    """Run ``python -m toolreplay`` in a child process, as a user would."""
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "toolreplay", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    return Completed(proc.returncode, proc.stdout, proc.stderr)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The container image takes longest: its tests go first, so its build overlaps everything else."""
    items.sort(key=lambda item: 0 if "test_image.py" in item.nodeid else 1)


@pytest.fixture
def samples() -> Path:
    return SAMPLES
