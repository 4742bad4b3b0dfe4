"""What toolreplay's in-process OpenAI runner costs a run, against a loop written by hand on the same SDK and the
same local stand-in, and against the same replay through ``cmd:`` (a process per run).

    python bench/bench_providers.py [--runs 20] [--rounds 5]

1. Per run, in one process: ``toolreplay replay --agent openai/gpt-4.1 --repeat 2*RUNS`` less ``--repeat RUNS``,
   over RUNS (what one more run costs inside a replay: the turns, the recorded answers, the diff), against a loop
   of the ``openai`` SDK written by hand that makes the same requests and answers each call from the recording
   (what the model's turns cost anyway). Both ask the build-host policy behind the stand-in (tests/fakes/), seed
   for seed the same, so they make the same calls. Interleaved over ROUNDS rounds; medians; the ratio is the
   overhead (the goal: at most 1.1x).
2. Per run, the same replay's runs through ``cmd:`` (the sample's MCP agent, a process per run, one at a time)
   and in process: both reported.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
sys.path.insert(0, str(ROOT))


def _replay(args: list[str], env: dict[str, str]) -> float:
    from toolreplay.cli import main  # noqa: PLC0415

    here = os.getcwd()
    os.chdir(SAMPLES)
    os.environ.update(env)
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(["replay", "ops/session.json", "--on-unrecorded", "stub", "--stubs", "ops/stubs.json", *args])
    finally:
        os.chdir(here)
    elapsed = time.perf_counter() - start
    if code not in (0, 1):
        raise SystemExit(f"replay {args} exited with {code}")
    return elapsed


def _by_hand(base_url: str, runs: int) -> float:
    """``runs`` conversations on the SDK directly: ask, answer each call from the recording, until a reply."""
    import openai  # noqa: PLC0415

    session = json.loads((SAMPLES / "ops" / "session.json").read_text())
    answers: dict[str, Any] = {}
    uses: dict[str, tuple[str, str]] = {}
    for message in session["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_use":
                uses[block["id"]] = (block["name"], json.dumps(block["input"], sort_keys=True))
            elif block.get("type") == "tool_result":
                answers[json.dumps(uses[block["tool_use_id"]])] = block["content"]
    tools: Any = [
        {"type": "function", "function": {"name": t["name"], "description": t["description"],
                                          "parameters": t["input_schema"]}}
        for t in session["tools"]
    ]  # fmt: skip
    start = time.perf_counter()
    client = openai.OpenAI(base_url=base_url, api_key="sk-bench")
    for _ in range(runs):
        messages: list[Any] = [{"role": "system", "content": session["system"]},
                               {"role": "user", "content": session["messages"][0]["content"]}]  # fmt: skip
        for _ in range(50):
            answer: Any = client.chat.completions.create(model="gpt-4.1", messages=messages, tools=tools,
                                                         max_tokens=4096)  # fmt: skip
            message = answer.choices[0].message
            if not message.tool_calls:
                break
            messages.append({"role": "assistant", "content": message.content,
                             "tool_calls": [call.model_dump() for call in message.tool_calls]})  # fmt: skip
            for call in message.tool_calls:
                arguments = json.dumps(json.loads(call.function.arguments), sort_keys=True)
                key = json.dumps([call.function.name, arguments])
                result = answers.get(key, '{"ok": true}')
                messages.append({"role": "tool", "tool_call_id": call.id,
                                 "content": result if isinstance(result, str) else json.dumps(result)})  # fmt: skip
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    from tests.fakes.openai_server import serve  # noqa: PLC0415
    from tests.fakes.ops_openai import OpsModel  # noqa: PLC0415

    runs = options.runs
    inside: list[float] = []
    by_hand: list[float] = []
    with serve() as api:
        env = {"OPENAI_API_KEY": "sk-bench"}
        model = ["--agent", "openai/gpt-4.1", "--base-url", api.base_url]
        api.respond = OpsModel().respond
        _replay([*model, "--repeat", "2"], env)  # warm: imports, the SDK's first connection
        _by_hand(api.base_url, 2)
        for _ in range(options.rounds):
            api.respond = OpsModel().respond
            one = _replay([*model, "--repeat", str(runs)], env)
            api.respond = OpsModel().respond
            two = _replay([*model, "--repeat", str(2 * runs)], env)
            inside.append((two - one) / runs)
            api.respond = OpsModel().respond
            by_hand.append(_by_hand(api.base_url, runs) / runs)
    ours, theirs = statistics.median(inside), statistics.median(by_hand)
    print(f"an in-process openai/ run: {ours * 1000:.2f} ms; the same run by hand on the SDK: {theirs * 1000:.2f} ms")
    print(f"overhead ratio: {ours / theirs:.3f}x (goal: at most 1.1x)")
    command = (f"cmd:{sys.executable} {{here}}/ops/mcp_agent.py --mcp-config {{mcp_config}} --system {{system}} "
               "--seed {seed} {task}")  # fmt: skip
    few = max(2, runs // 4)
    program = _replay(["--agent", command, "--repeat", str(few)], {}) / few
    print(
        f"the same replay through cmd: (a process per run): {program * 1000:.0f} ms a run; in process: "
        f"{ours * 1000:.2f} ms a run ({program / ours:.0f}x)"
    )


if __name__ == "__main__":
    main()
