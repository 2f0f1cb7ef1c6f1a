"""Instructions a command executes, as valgrind's callgrind counts them: the same for the same code and
inputs whatever else the machine does (the kernel's share is not counted). For this folder's scripts."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path


def instructions(command: list[str], cwd: Path) -> int:
    """Every instruction ``command`` executes, in every thread and every process it forks, summed."""
    with tempfile.TemporaryDirectory(prefix="kdm-callgrind-") as folder:
        out = Path(folder) / "callgrind.%p"
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "-q", *command],
            capture_output=True, text=True, check=True, cwd=cwd,
        )  # fmt: skip
        total = 0
        for path in Path(folder).glob("callgrind.*"):
            total += sum(
                int(line.split()[1])
                for line in path.read_text(errors="replace").splitlines()
                if line.startswith("summary:")
            )
        if not total:
            raise RuntimeError(f"callgrind counted nothing of {command}")
        return total
