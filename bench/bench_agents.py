"""What `replay --agent cmd:...` adds around each run of a program, and how 20 + 20 Claude Code runs parallelise.

    python bench/bench_agents.py [--runs 10] [--claude]

1. The cost toolreplay adds per run (the run's directories and MCP configuration, the record-mcp proxy in front
   of the server, reading the proxy's log back into calls, the diff): the sample's Python agent on the MCP SDK
   (samples/ops/mcp_agent.py) run RUNS times directly, against `toolreplay serve` (the least a replay needs: a
   server answering from the recording), against `toolreplay replay --agent cmd:... --repeat RUNS` and
   `--repeat 2*RUNS` one run at a time. The difference of the two replays, per run, is a run inside toolreplay;
   less a direct run, it is what toolreplay adds. All in one process, one after another.
2. With --claude: Claude Code (tests/servers) on the local Messages API stand-in, 20 + 20 runs at
   --concurrency 4, against the ideal: 40 times one run (measured alone, inside toolreplay) over 4.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
sys.path.insert(0, str(ROOT))
AGENT = SAMPLES / "ops" / "mcp_agent.py"
CLAUDE = ROOT / "tests" / "servers" / "node_modules" / ".bin" / "claude"
TASK = "build-04 is almost out of disk space. Free some up."


def _timed(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=1800)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{argv[:4]}... exited with {done.returncode}: {done.stderr[-500:]}")
    return elapsed


def _replay(agent: str, runs: int, extra: list[str], env: dict[str, str] | None = None) -> float:
    argv = [sys.executable, "-m", "toolreplay", "replay", "ops/session.json", "--agent", agent, "--repeat", str(runs)]
    return _timed([*argv, "--on-unrecorded", "stub", "--stubs", "ops/stubs.json", *extra], SAMPLES, env)


def overhead(runs: int) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="bench-agents-"))
    config = scratch / "mcp.json"
    serve = [sys.executable, "-m", "toolreplay", "serve", str(SAMPLES / "ops" / "session.json")]
    serve += ["--on-unrecorded", "stub", "--stubs", str(SAMPLES / "ops" / "stubs.json")]
    config.write_text(json.dumps({"mcpServers": {"replay": {"command": serve[0], "args": serve[1:]}}}))
    system = SAMPLES / "ops" / "prompt.txt"
    direct = [
        _timed([sys.executable, str(AGENT), "--mcp-config", str(config), "--system", str(system), "--seed", str(n), TASK],
               scratch)
        for n in range(1, runs + 1)
    ]  # fmt: skip
    agent = f"cmd:{sys.executable} {AGENT} --mcp-config {{mcp_config}} --system {{system}} --seed {{seed}} {{task}}"
    once = _replay(agent, runs, [])
    twice = _replay(agent, 2 * runs, [])
    inside = (twice - once) / runs
    alone = statistics.mean(direct)
    print(f"1. {runs} direct runs of samples/ops/mcp_agent.py against toolreplay serve: mean {alone * 1000:.0f} ms")
    print(f"   replay --repeat {runs}: {once:.2f} s · --repeat {2 * runs}: {twice:.2f} s")
    print(f"   a run inside toolreplay: {inside * 1000:.0f} ms · added per run: {(inside - alone) * 1000:.0f} ms "
          f"({inside / alone:.2f}x a direct run)")  # fmt: skip


def claude() -> None:
    from tests.fakes.anthropic_server import api_env, serve  # noqa: PLC0415 - the stand-in, only for this part
    from tests.fakes.ops_model import PERMISSIVE, respond  # noqa: PLC0415

    base = (
        f"cmd:{CLAUDE} -p {{task}} --mcp-config {{mcp_config}} --strict-mcp-config --allowedTools mcp__replay "
        "--max-turns 30 --output-format json"
    )
    with serve() as api:
        api.respond = respond
        env = api_env(
            api, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1", ENABLE_TOOL_SEARCH="false"
        )
        singles = [_replay(base, 1, [], env) for _ in range(3)]
        one = statistics.median(singles)
        edited = base + f" --append-system-prompt '{PERMISSIVE}'"
        whole = _replay(edited, 20, ["--baseline-agent", base, "--noise", "20", "--concurrency", "4"], env)
    ideal = 40 * one / 4
    print(f"2. one Claude Code run inside toolreplay (median of 3): {one:.2f} s; 20 + 20 at --concurrency 4: "
          f"{whole:.2f} s; ideal {ideal:.2f} s: {whole / ideal:.2f}x the ideal ({os.cpu_count()} cores)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--claude", action="store_true", help="Also time 20 + 20 Claude Code runs.")
    args = parser.parse_args()
    overhead(args.runs)
    if args.claude:
        if not CLAUDE.exists():
            raise SystemExit("Claude Code is not installed: npm install --prefix tests/servers")
        claude()


if __name__ == "__main__":
    main()
