"""How long the HTML page takes, and how big it is, against the check's JSON of the same report.

    python bench/bench_html.py [--runs 100] [--calls 500] [--rounds 5]

Builds a replay of ``--calls`` calls per run, ``--runs`` runs (half with the
edit, half unchanged) where no two runs are alike, so none are drawn once for
several: the worst case for the page's size. Times, in one process, rendering
the check's JSON (``render_check_json``, what ``merge`` reads) and the HTML page
(``render_html``), and prints the median of each, their ratio, and both sizes.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from toolreplay.core.canonical import JSONValue
from toolreplay.core.findings import ChangeVerdict
from toolreplay.core.model import CallClass, PairKind
from toolreplay.core.outcome import Analysis, CallView, ChangeRow, CheckReport, RunView, Side, UnitResult
from toolreplay.core.verdict import FailOn
from toolreplay.formats.check_report import render_check_json
from toolreplay.report.html import render_html

_TOOLS = (
    ("read_file", CallClass.READ_ONLY),
    ("list_dir", CallClass.READ_ONLY),
    ("write_file", CallClass.WRITE),
    ("delete_path", CallClass.DESTRUCTIVE),
)


def large_report(runs: int = 100, calls: int = 500, note: int = 0) -> CheckReport:
    """A replay where every run makes ``calls`` calls and each run differs from every other in one of them; each call
    also carries a ``note`` argument of that many characters, quotes among them, when ``note`` is given."""

    def call(index: int, run: int) -> CallView:
        tool, klass = _TOOLS[index % len(_TOOLS)]
        path = f"/srv/data/project/file-{index:04d}.txt" if index != 7 else f"/srv/changed/{run}"
        args: dict[str, JSONValue] = {"path": path}
        if note:
            args["note"] = ('"quoted" & ' * note)[:note]
        return CallView(tool, args, klass)

    half = runs // 2
    views = tuple(
        RunView(Side.EDITED if n <= half else Side.UNCHANGED, (n - 1) % half + 1, "final reply", "",
                tuple(call(i, n) for i in range(calls)))
        for n in range(1, runs + 1)
    )  # fmt: skip
    rows = tuple(
        ChangeRow(PairKind.CHANGED, "delete_path", {"path": f"/srv/changed/{n}"}, CallClass.DESTRUCTIVE, 1, half, 0,
                  half, 0.5, 1.0, ChangeVerdict.NOT_SHOWN, n, 1, (n,), ())
        for n in range(1, half + 1)
    )  # fmt: skip
    recording = tuple(call(i, 0) for i in range(calls))
    result = UnitResult(
        key="replay x.json",
        analysis=Analysis.REPLAY,
        subject="x.json",
        summary="a synthetic replay",
        changes=rows,
        recording=recording,
        runs=views,
    )
    return CheckReport(None, "", FailOn.DESTRUCTIVE, (result.key,), (result,))


def _median(render: object, report: CheckReport, rounds: int) -> tuple[float, int]:
    times = []
    size = 0
    for _ in range(rounds):
        start = time.perf_counter()
        size = len(render(report).encode())  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times), size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--note", type=int, default=0, help="Characters of a note argument on every call.")
    args = parser.parse_args()
    report = large_report(args.runs, args.calls, args.note)
    render_html(report)  # the template compiled and Jinja2 imported before timing
    json_time, json_size = _median(render_check_json, report, args.rounds)
    html_time, html_size = _median(render_html, report, args.rounds)
    note = f", a {args.note}-character note on each" if args.note else ""
    print(f"{args.runs} runs of {args.calls} calls{note}, no two alike ({args.rounds} rounds, medians)")
    print(f"check JSON:  {json_time * 1000:8.1f} ms  {json_size / 1e6:6.2f} MB")
    print(f"HTML page:   {html_time * 1000:8.1f} ms  {html_size / 1e6:6.2f} MB")
    print(f"ratio HTML/JSON: time {html_time / json_time:.2f}x, size {html_size / json_size:.2f}x")


if __name__ == "__main__":
    main()
