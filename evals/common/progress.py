"""Live progress of an evaluation on stderr: item i/n, running score, elapsed and time left."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO


def format_duration(seconds: float) -> str:
    """`42s`, `3m05s`, `2h07m`: short enough for a progress line."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{(seconds % 3600) // 60:02d}m"


class ProgressMeter:
    """Prints one line per finished item: `[label] 7/20 score 0.571 (4/7) 1m02s elapsed, ~1m51s
    left`. Items done by an earlier run (resumed) count toward i/n and the score but not
    toward the time estimate, which uses this run's own pace only."""

    def __init__(
        self,
        label: str,
        total: int,
        *,
        out: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label, self.total = label, total
        self.out = out if out is not None else sys.stderr
        self.clock = clock
        self.started = clock()
        self.done = self.resumed = self.wins = self.scored = 0

    def resume(self, done: int, wins: int, scored: int | None = None) -> None:
        """Count items an earlier run finished (read back from its JSONL)."""
        self.done += done
        self.resumed += done
        self.wins += wins
        self.scored += done if scored is None else scored
        if done:
            print(f"[{self.label}] resuming: {done}/{self.total} already done", file=self.out)

    def start_line(self, note: str = "") -> None:
        todo = self.total - self.done
        print(
            f"[{self.label}] {todo} to run{(' ' + note) if note else ''}", file=self.out, flush=True
        )

    def eta(self) -> float | None:
        """Seconds left at this run's pace; None before this run finished anything."""
        fresh = self.done - self.resumed
        if fresh <= 0:
            return None
        return (self.clock() - self.started) / fresh * (self.total - self.done)

    def update(self, success: bool | None, note: str = "") -> str:
        """Count one finished item (success None: not scored) and print the line."""
        self.done += 1
        if success is not None:
            self.scored += 1
            self.wins += int(success)
        line = self.line(note)
        print(line, file=self.out, flush=True)
        return line

    def line(self, note: str = "") -> str:
        score = (
            f"score {self.wins / self.scored:.3f} ({self.wins}/{self.scored})"
            if self.scored
            else "score -"
        )
        eta = self.eta()
        left = "?" if eta is None else "~" + format_duration(eta)
        elapsed = format_duration(self.clock() - self.started)
        text = f"[{self.label}] {self.done}/{self.total} {score} {elapsed} elapsed, {left} left"
        return text + (f"  {note}" if note else "")
