"""What `replay --agent cmd:...` adds around each run of a program, and how 20 + 20 Claude Code runs parallelise.

    python bench/bench_agents.py [--runs 10] [--claude]

1. The cost toolreplay adds per run (the run's directories and MCP configuration, the log serve writes, reading
   it back into calls, the answers worked out again, the diff): a light MCP program run RUNS times directly,
   against `toolreplay serve` (the least a replay needs: a server answering from the recording), against
   `toolreplay replay --agent cmd:... --repeat RUNS` and `--repeat 2*RUNS`, one run at a time. The difference of
   the two replays, per run, is a run inside toolreplay; less a direct run, it is what toolreplay adds.
   Interleaved over ROUNDS rounds, medians.
2. With --claude: Claude Code (tests/servers) on the local Messages API stand-in, 20 + 20 runs at
   --concurrency 4, against the ideal: 40 times one run (measured alone, inside toolreplay) over 4.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
sys.path.insert(0, str(ROOT))
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


# A program as light as an agent gets (no SDK to import): it starts the server from the MCP configuration, makes
# the recording's opening call over raw JSON-RPC, and replies. The lighter the program, the more toolreplay's own
# cost shows.
LIGHT = """
import json, subprocess, sys
spec = next(iter(json.load(open(sys.argv[1]))["mcpServers"].values()))
server = subprocess.Popen([spec["command"], *spec["args"]], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def ask(message):
    server.stdin.write(json.dumps(message).encode() + b"\\n"); server.stdin.flush()
    return server.stdout.readline() if "id" in message else None
hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "light", "version": "0"}}
ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
call = {"name": "disk_usage", "arguments": {"host": "build-04"}}
ask({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call})
server.stdin.close(); server.wait()
print("Checked the disk.")
"""


def overhead(runs: int, rounds: int) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="bench-agents-"))
    program = scratch / "light_agent.py"
    program.write_text(LIGHT)
    config = scratch / "mcp.json"
    serve = [sys.executable, "-m", "toolreplay", "serve", str(SAMPLES / "ops" / "session.json")]
    config.write_text(json.dumps({"mcpServers": {"replay": {"command": serve[0], "args": serve[1:]}}}))
    agent = f"cmd:{sys.executable} {program} {{mcp_config}}"
    alone, inside = [], []
    for _ in range(rounds):  # interleaved, so a busy moment of the machine falls on both
        alone.append(statistics.mean(_timed([sys.executable, str(program), str(config)], scratch) for _ in range(runs)))
        once, twice = _replay(agent, runs, []), _replay(agent, 2 * runs, [])
        inside.append((twice - once) / runs)
    direct, replayed = statistics.median(alone), statistics.median(inside)
    print(
        f"1. a light MCP program ({runs} runs, {rounds} rounds, medians): run directly against toolreplay serve "
        f"{direct * 1000:.0f} ms; a run inside replay --agent cmd: {replayed * 1000:.0f} ms"
    )
    print(f"   added per run: {(replayed - direct) * 1000:.0f} ms ({replayed / direct:.2f}x a direct run)")


def _cpu() -> float:
    """CPU seconds this process and every child it has waited for have used."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


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
        before = _cpu()
        whole = _replay(edited, 20, ["--baseline-agent", base, "--noise", "20", "--concurrency", "4"], env)
        cpu = _cpu() - before  # every process of the replay, and the stand-in answering them
    ideal = 40 * one / 4
    cores = os.cpu_count() or 1
    possible = 40 * one / min(4, cores)
    print(
        f"2. one Claude Code run inside toolreplay (median of 3): {one:.2f} s; 20 + 20 at --concurrency 4: "
        f"{whole:.2f} s"
    )
    print(f"   against the ideal of 4 at once ({ideal:.2f} s): {whole / ideal:.2f}x; against {min(4, cores)} at once, "
          f"what {cores} cores allow ({possible:.2f} s): {whole / possible:.2f}x")  # fmt: skip
    print(
        f"   CPU time of the whole replay: {cpu:.1f} s, so at least {cpu / cores:.2f} s on {cores} cores: "
        f"{whole / (cpu / cores):.2f}x that floor"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--claude", action="store_true", help="Also time 20 + 20 Claude Code runs.")
    args = parser.parse_args()
    overhead(args.runs, args.rounds)
    if args.claude:
        if not CLAUDE.exists():
            raise SystemExit("Claude Code is not installed: npm install --prefix tests/servers")
        claude()


if __name__ == "__main__":
    main()
