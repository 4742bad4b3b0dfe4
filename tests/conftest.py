"""Shared fixtures: where the samples live and how to run the real CLI."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"


@functools.cache
def _hypothesis_profiles() -> None:
    """The suite's properties run 60 examples each (Hypothesis' default is 100), so the whole suite stays a fast
    loop; `HYPOTHESIS_PROFILE=thorough pytest` runs 1,000 each. A test that sets its own count keeps it.
    No deadline: on a shared machine with every core busy, a 200 ms deadline measures the machine, not the code
    (the tests that are about speed say so in their own assertions)."""
    from hypothesis import settings  # noqa: PLC0415

    settings.register_profile("fast", max_examples=60, deadline=None)
    settings.register_profile("thorough", max_examples=1_000, deadline=None)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))


def pytest_collectstart(collector: pytest.Collector) -> None:
    """The profiles are loaded as collection starts, before any test module makes its settings: where tests are
    collected, that is, and not in pytest-xdist's controller, which collects none (Hypothesis takes most of a
    second to import, before the controller can start its workers)."""
    _hypothesis_profiles()


ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
GOLDEN = Path(__file__).resolve().parent / "golden"


@dataclass(frozen=True)
class Completed:
    """What one run of the CLI did."""

    code: int
    stdout: str
    stderr: str


def run_cli(*args: str, cwd: Path = SAMPLES, env: Mapping[str, str | None] | None = None) -> Completed:
    """Run the CLI in this process, as ``toolreplay ARGS`` in ``cwd``: the same entry point, exit-code mapping
    and streams a user's process has, without starting an interpreter per test. Its standard input is empty.
    ``env`` sets variables of ``os.environ`` for the call (``None`` removes one), and puts them back after.

    Where the process itself is what is tested (signals, pipes, file descriptors, the interpreter's own
    output encoding), use :func:`run_cli_process`.
    """
    from click.testing import CliRunner  # noqa: PLC0415

    from toolreplay.cli import main  # noqa: PLC0415

    here, path, modules = os.getcwd(), list(sys.path), set(sys.modules)
    with CliRunner().isolation(env=env) as (out, err, _):
        os.chdir(cwd)
        try:
            code = main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            os.chdir(here)
            sys.stdout.flush()
            sys.stderr.flush()
            # A process ends with the user's code it loaded (a scripted agent, a tools module, what they import);
            # the next command starts without it, as the next process would.
            sys.path[:] = path
            for name in set(sys.modules) - modules:
                if not _installed(getattr(sys.modules[name], "__file__", None)):
                    del sys.modules[name]
        return Completed(code, out.getvalue().decode("utf-8"), err.getvalue().decode("utf-8"))


_INSTALLED = tuple(str(Path(p).resolve()) for p in (sys.prefix, sys.base_prefix, str(ROOT / "src")))


def _installed(file: str | None) -> bool:
    return file is None or str(Path(file).resolve()).startswith(_INSTALLED)


def run_cli_process(*args: str, cwd: Path = SAMPLES, environ: Mapping[str, str] | None = None) -> Completed:
    """Run ``python -m toolreplay`` in a child process, as a user would; ``environ``: its whole environment, in
    place of this one's."""
    env = dict(os.environ if environ is None else environ, PYTHONIOENCODING="utf-8")
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


def pytest_configure(config: pytest.Config) -> None:
    """The container image's build begins with the run, so it overlaps everything else (tests/fixtures/image_build)."""
    from tests.fixtures import image_build  # noqa: PLC0415

    image_build.begin(config)


def pytest_unconfigure(config: pytest.Config) -> None:
    from tests.fixtures import image_build  # noqa: PLC0415

    image_build.end(config)


_TIERS = (
    ("acceptance", "tests/acceptance/"),
    ("container", "tests/acceptance/test_image.py"),
    ("browser", "tests/acceptance/test_html_report.py"),
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The container image takes longest: its build begins with the run and its tests go last, so every other
    test runs while it builds, and none waits behind it on the same worker.

    Under ``--dist loadgroup`` each test marked ``xdist_group`` gets its group in its id, which is how
    pytest-xdist keeps a group on one worker: done here too, since with this pytest the plugin's own
    hook does not run, and the image would be built once per worker.
    """
    for item in items:  # each test's tier, by where it lives
        for marker, where in _TIERS:
            if item.nodeid.startswith(where):
                item.add_marker(marker)
    items.sort(key=lambda item: 1 if "test_image.py" in item.nodeid else 0)
    if not getattr(config.option, "loadgroup", False):  # set on each worker when the run is --dist loadgroup
        return
    for item in items:
        mark = item.get_closest_marker("xdist_group")
        if mark is not None and "@" not in item.nodeid:
            group = mark.args[0] if mark.args else mark.kwargs.get("name", "default")
            grouped = f"{item.nodeid}@{group}"
            # pytest 9 keeps the id as a structured ``_id``; the plugin still sets the older ``_nodeid``.
            if hasattr(item, "_id"):
                item._id = type(item._id).parse(grouped)
            else:
                setattr(item, "_nodeid", grouped)  # noqa: B010 - the attribute of pytest before 9


@pytest.fixture
def samples() -> Path:
    return SAMPLES
