"""A short run of the resume benchmark (bench/resume.py), as it is run by hand: it times
resumes into a short log and a long one from a process of its own, and prints its table
(no time is asserted: 0, the target met, and 1, missed, are both a run)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_short_run_times_resumes_into_both_logs() -> None:
    finished = subprocess.run(
        [sys.executable, "-m", "bench.resume", "--short", "1", "--long", "4", "--resumes", "3"],
        cwd=ROOT, capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    assert finished.returncode in (0, 1), finished.stdout + finished.stderr  # 2: it failed
    rows = [line.split() for line in finished.stdout.splitlines()]
    assert [row[0] for row in rows if row and row[0] in ("short", "long")] == ["short", "long"]
    assert "resume 60 back, in snapshots, long log / short log:" in finished.stdout
