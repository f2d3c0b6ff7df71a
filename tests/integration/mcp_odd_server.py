"""An MCP stdio server that breaks the rules in the ways a client must survive, for the MCP tests.

    python mcp_odd_server.py PID_LOG [--banner N] [--stubborn] [--silent] [--result-chars N]
                                     [--tool-sleep S]

Its one tool is `station_code`, as in mcp_facts_server.py (so the scripted agents call it). The
server appends its process id to PID_LOG when it starts, and CALLED when the tool is called
(so a test knows the run is inside the call). Options:
  --banner N        print N lines that are not MCP messages on stdout before serving
  --stubborn        ignore SIGTERM, and stay alive after stdin closes (only SIGKILL ends it)
  --silent          never answer, not even `initialize` (stdin is read and ignored)
  --result-chars N  the tool answers with N characters (the fact first)
  --tool-sleep S    the tool sleeps S seconds before answering
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

CODE = "7316-KESTREL"


def _log(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as log:
        log.write(line + "\n")


def _serve(options: argparse.Namespace) -> None:
    from mcp.server.fastmcp import FastMCP

    server = FastMCP("odd")

    @server.tool()
    def station_code(station: str) -> str:
        """The vault access code of a research station."""
        _log(options.pid_log, "CALLED")
        time.sleep(options.tool_sleep)
        text = f"The vault code of {station} is {CODE}. "
        return text + "x" * max(0, options.result_chars - len(text))

    server.run()  # stdio until the client closes stdin


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("pid_log", type=Path)
    parser.add_argument("--banner", type=int, default=0)
    parser.add_argument("--stubborn", action="store_true")
    parser.add_argument("--silent", action="store_true")
    parser.add_argument("--result-chars", type=int, default=0)
    parser.add_argument("--tool-sleep", type=float, default=0.0)
    options = parser.parse_args()
    if options.stubborn:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _log(options.pid_log, str(os.getpid()))
    for i in range(options.banner):
        print(f"odd server v1.0 starting, step {i + 1} of {options.banner}", flush=True)
    if options.silent:
        for _ in sys.stdin.buffer:
            pass
    else:
        _serve(options)
    while options.stubborn:  # stdin closed: a well-behaved server would exit now
        time.sleep(1)


if __name__ == "__main__":
    main()
