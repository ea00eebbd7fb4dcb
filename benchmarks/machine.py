"""Facts about the machine a benchmark runs on, printed with its figures."""

from __future__ import annotations

import platform


def cpu_model() -> str:
    """The CPU model name (from /proc/cpuinfo where available)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
