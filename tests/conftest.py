"""Shared fixtures: where the samples live and how to run the real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

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
