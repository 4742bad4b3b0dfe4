"""The pytest plugin (entry point ``pytest11``, loaded only when pytest runs): toolreplay in the tests a team writes.

- The ``toolreplay`` fixture: :func:`toolreplay.replay` and the other functions of the Python API, their runs'
  directories under the test's own temporary directory, and one run cache for the whole session
  (``--toolreplay-cache DIR``).
- ``@pytest.mark.toolreplay(recordings="recordings/*.json")``: the test once per recording the glob matches (from
  the test file's directory), each as its ``recording`` argument.
- ``--toolreplay-record=none|missing|all``, as vcrpy's record modes: ``none`` (the default) replays the recordings
  there are and fails a test whose recording is missing; ``missing`` records, live, each recording a test names that
  does not exist yet; ``all`` records every one again (the one it replaces kept beside it as ``NAME.previous.json``).
  A replay says how to record with ``live=toolreplay.Live(servers=..., task=...)``.
- A result's ``assert_no_destructive()`` and ``assert_passes()`` fail with the report's own text: the behaviours,
  the rates, the p values, as the CI report says them.

Nothing of toolreplay is imported until a test asks for it.
"""

from __future__ import annotations

import glob
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from toolreplay.api import Live, ReplayResult, Result
    from toolreplay.core.model import Session

MODES = ("none", "missing", "all")
PREVIOUS = ".previous"  # NAME.previous.json: the recording --toolreplay-record=all replaced
_MARKS = pytest.StashKey[str]()
_SAID = "toolreplay recorded"  # the user property a test's recordings are reported under (xdist passes them on)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("toolreplay", "toolreplay: replays of recorded agent sessions")
    group.addoption(
        "--toolreplay-cache",
        metavar="DIR",
        default=None,
        help="A run cache every replay of the session shares (a run already made with the same inputs is not made "
        "again).",
    )
    group.addoption(
        "--toolreplay-record",
        choices=MODES,
        default="none",
        help="none: replay the recordings there are (default); missing: record, live, those that do not exist; all: "
        "record every one again.",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "toolreplay(recordings=GLOB): run the test once per recording GLOB matches, from the test file's directory, "
        "each as its `recording` argument",
    )
    run = getattr(config, "workerinput", {}).get("testrunuid") or uuid.uuid4().hex  # xdist's workers share theirs
    config.stash[_MARKS] = os.path.join(tempfile.gettempdir(), f"toolreplay-recorded-{run}")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marker = metafunc.definition.get_closest_marker("toolreplay")
    if marker is None or "recordings" not in marker.kwargs:
        return
    pattern = str(marker.kwargs["recordings"])
    if "recording" not in metafunc.fixturenames:
        pytest.fail(f"{metafunc.function.__name__}: toolreplay(recordings=...) needs a `recording` argument", False)
    here = Path(str(metafunc.definition.path)).parent
    matched = sorted(glob.glob(os.path.join(glob.escape(str(here)), pattern), recursive=True))
    found = [path for path in matched if os.path.isfile(path) and not Path(path).stem.endswith(PREVIOUS)]
    if not found:
        pytest.fail(
            f"{metafunc.function.__name__}: toolreplay(recordings={pattern!r}) matches no file in {here}", False
        )
    ids = [os.path.relpath(path, here) for path in found]
    metafunc.parametrize("recording", found, ids=ids)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    recorded = [  # from each test's report: a worker's, under xdist, as the controller's
        str(value)
        for reports in terminalreporter.stats.values()
        for report in reports
        for name, value in getattr(report, "user_properties", ())
        if name == _SAID and getattr(report, "when", "") == "teardown"
    ]
    if recorded:
        terminalreporter.section("toolreplay")
        for line in recorded:
            terminalreporter.write_line(line)


@dataclass
class Toolreplay:
    """The ``toolreplay`` fixture: the Python API, each replay's runs under the test's temporary directory."""

    tmp_path: Path
    home: Path | None = None  # where a python: agent is found from: as pytest found the test's own module
    cache: str | None = None
    mode: str = "none"
    recorded: list[str] = field(default_factory=list)
    marks: str | None = None  # where the test run notes each recording it made (one directory for every worker)

    def replay(self, recording: str | os.PathLike[str], *, live: Live | None = None, **options: Any) -> ReplayResult:
        """:func:`toolreplay.replay`, recording the session first where the record mode asks (``live``)."""
        __tracebackhide__ = True
        from toolreplay import api  # noqa: PLC0415

        path = Path(recording)
        for name in ("agent", "baseline_agent"):
            if isinstance(options.get(name), str):
                options[name] = self._found(options[name])
        self._recorded(path, live, options.get("agent"))
        if self.cache is not None and "cache" not in options and not options.get("no_cache"):
            options["cache"] = self.cache
        with self._temporary(), _one_line():
            return api.replay(path, **options)

    def _found(self, agent: str) -> object:
        """A ``python:`` agent found as the test's own module was: from the test's root directory (the first above
        its file that is no package, which pytest puts on the path), then the installed packages."""
        from toolreplay.agent_spec import AgentSpecError, FunctionSpec, parse_agent  # noqa: PLC0415

        try:
            spec = parse_agent(agent)
        except AgentSpecError:
            return agent  # refused by the replay, in its words
        if isinstance(spec, FunctionSpec) and self.home is not None:
            return FunctionSpec(spec.target, spec.function, str(self.home))
        return agent

    def _recorded(self, path: Path, live: Live | None, agent: object) -> None:
        """Record ``path`` live where the mode asks, once in the whole test run (every xdist worker's included, one
        at a time); a missing recording the mode does not record fails the test."""
        __tracebackhide__ = True
        if self.mode == "none":
            self._record(path, live, agent)
            return
        import fcntl  # noqa: PLC0415 - only a run that records
        import hashlib  # noqa: PLC0415

        marks = Path(self.marks or tempfile.gettempdir())
        marks.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha256(str(path.absolute()).encode("utf-8", "surrogatepass")).hexdigest()
        with (marks / f"{name}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another worker recording it waits here, then replays what it made
            made = marks / f"{name}.made"
            if not made.exists():
                self._record(path, live, agent)
                made.touch()

    def _record(self, path: Path, live: Live | None, agent: object) -> None:
        __tracebackhide__ = True
        wanted = self.mode == "all" or (self.mode == "missing" and not path.exists())
        if not wanted:
            if not path.exists():
                pytest.fail(
                    f"{path} does not exist: record it with --toolreplay-record=missing (the replay's live= says how)",
                    False,
                )
            return
        if live is None:
            pytest.fail(
                f"--toolreplay-record={self.mode} records {path}, but the replay gives no live= to say how", False
            )
        chosen: Any = self._found(live.agent) if live.agent is not None else agent
        if chosen is None:
            pytest.fail(f"recording {path} needs the agent: give agent= to the replay, or to Live", False)
        from toolreplay import api  # noqa: PLC0415

        made_in = self.tmp_path / "toolreplay-recorded"
        with self._temporary(), _one_line():  # the one session, its paths from where it goes
            made = api._recorded(
                made_in,
                chosen,
                live.servers,
                live.task,
                live.system,
                live.seed,
                live.model,
                1800.0,
                placed=path.absolute(),
            )[0]
        path.parent.mkdir(parents=True, exist_ok=True)
        previous = path.with_name(path.stem + PREVIOUS + path.suffix)
        staged = path.with_name(f".{path.name}.recorded")  # beside it: the move into place is one rename
        shutil.copyfile(made, staged)
        replaced = path.exists()
        if replaced:
            os.replace(path, previous)
        os.replace(staged, path)
        said = f" (the one it replaced is kept as {previous.name})" if replaced else ""
        self.recorded.append(f"recorded {path}{said}")

    def compare(self, recorded: str | os.PathLike[str], candidates: Any, baselines: Any, **options: Any) -> Result:
        from toolreplay import api  # noqa: PLC0415

        with _one_line():
            return api.compare(recorded, candidates, baselines, **options)

    def diff(self, a: str | os.PathLike[str], b: str | os.PathLike[str], **options: Any) -> Result:
        from toolreplay import api  # noqa: PLC0415

        with _one_line():
            return api.diff(a, b, **options)

    def check(self, config: str | os.PathLike[str] | None = None, **options: Any) -> Result:
        from toolreplay import api  # noqa: PLC0415

        if self.cache is not None and "cache" not in options and not options.get("no_cache"):
            options["cache"] = self.cache
        with self._temporary(), _one_line():
            return api.check(config, **options)

    def load(self, path: str | os.PathLike[str]) -> Session:
        from toolreplay import api  # noqa: PLC0415

        with _one_line():
            return api.load(path)

    def _temporary(self) -> _InTemporary:
        return _InTemporary(self.tmp_path / "toolreplay-runs")


def _test_root(test_file: Path) -> Path:
    """The directory pytest puts on the path for a test file: the first above it that is no package."""
    directory = test_file.parent
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        directory = directory.parent
    return directory


@contextmanager
def _one_line() -> Iterator[None]:
    """What toolreplay refuses (a missing file, a setting out of range, an agent that cannot start) fails the test in
    the one line the command line says it in, not in a traceback through toolreplay."""
    __tracebackhide__ = True
    from toolreplay.core.errors import ToolreplayError  # noqa: PLC0415

    refused: ToolreplayError | None = None
    try:
        yield
    except ToolreplayError as exc:
        refused = exc
    if refused is not None:  # failed outside the handler, so the failure is the one line and nothing chained
        pytest.fail(f"toolreplay: {refused}", False)


class _InTemporary:
    """Temporary files and directories (the replay's run directories) made under ``directory`` while it is entered."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._before: str | None = None

    def __enter__(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self._before = tempfile.tempdir
        tempfile.tempdir = str(self.directory)

    def __exit__(self, *exc: object) -> None:
        tempfile.tempdir = self._before


@pytest.fixture
def toolreplay(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Toolreplay]:
    """The Python API of toolreplay for one test: replays, comparisons, diffs, checks and recordings."""
    config = request.config
    cache = config.getoption("toolreplay_cache")
    home = _test_root(Path(str(request.node.path)))
    mode = config.getoption("toolreplay_record")
    chosen = Toolreplay(tmp_path, home, os.path.abspath(cache) if cache else None, mode, marks=config.stash[_MARKS])
    yield chosen
    request.node.user_properties.extend((_SAID, line) for line in chosen.recorded)
