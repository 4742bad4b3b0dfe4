"""The process a scripted agent runs in under ``check --isolate``: its policy, apart from the check.

Run by path (``python -I worker.py AGENT.py``), with nothing of toolreplay imported, so it can run as another user
who may read none of the check's environment. It loads the agent's file, then answers one JSON line with one JSON
line: ``{"op": "new", "seed": S}`` makes ``Agent(S)`` and answers its number; ``{"op": "respond", "agent": N,
"system": ..., "tools": [...], "messages": [...]}`` answers the blocks ``respond`` returns. A failure of the agent's
code is answered as ``{"error": "Type: message"}``. What the agent prints goes to the worker's standard error: the
protocol has its standard output to itself. The check keeps the turn loop, the recording and every answer: the
agent sees exactly what it would see in the check's process, and can change nothing else.
"""

import importlib.util
import json
import os
import sys


def main() -> int:
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # the agent's prints, to standard error
    sys.stdout = sys.stderr
    sys.dont_write_bytecode = True  # nothing written beside the agent's file
    path = sys.argv[1]  # its directory is not on the path, as in the check's process: no module of its shadows one

    def say(message: object) -> None:
        protocol.write(json.dumps(message) + "\n")
        protocol.flush()

    try:
        spec = importlib.util.spec_from_file_location("toolreplay_scripted_agent", path)
        if spec is None or spec.loader is None:
            raise ImportError("not a Python file")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        factory = module.Agent
    except BaseException as exc:  # the user's code, whatever it raises
        say({"error": f"failed to load: {type(exc).__name__}: {exc}"})
        return 1
    say({"ok": "loaded"})
    agents = []
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if request["op"] == "new":
                agents.append(factory(request["seed"]))
                say({"ok": len(agents) - 1})
            else:
                agent = agents[request["agent"]]
                say({"ok": agent.respond(request["system"], request["tools"], request["messages"])})
        except BaseException as exc:  # the user's code
            try:
                say({"error": f"{type(exc).__name__}: {exc}"})
            except (TypeError, ValueError) as unsaid:  # what it returned is no JSON
                say({"error": f"returned what is not JSON ({unsaid})"})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
