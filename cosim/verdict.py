"""What the testbenches share: the clock and reset, and one packet of the RTL against its golden record (§R9).

Used inside the simulator by :mod:`radixnet.cosim.tb_network` (flit-level
terminals), :mod:`radixnet.cosim.tb_axis` (AXI4-Stream terminals) and
:mod:`radixnet.cosim.tb_router` (one router).

Examples
--------
>>> judge(7, 0, 3, 1, 4, 9, rtl_injected=4, rtl_ejected=10, problems=[]) is None
False
>>> judge(7, 0, 3, 1, 4, 9, rtl_injected=4, rtl_ejected=9, problems=[]) is None
True
"""

from __future__ import annotations

import json

__all__ = ["judge", "finish", "start"]


async def start(dut, values: dict) -> None:
    """Start the clock, hold reset for three cycles with the inputs ``values`` (handle -> value) applied.

    Returns just after the rising edge that ends reset: the inputs driven next are those of cycle 0, the
    golden model's first cycle.
    """
    import cocotb
    from cocotb.clock import Clock
    from cocotb.triggers import RisingEdge

    cocotb.start_soon(Clock(dut.clk, 10, units="ns").start())
    dut.rst.value = 1
    for handle, value in values.items():
        handle.value = value
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0


def judge(pid, src, dst, created, g_inj, g_ej, *, rtl_injected, rtl_ejected, problems) -> dict | None:
    """The mismatch record of one packet, or None when the RTL agrees with the golden model.

    ``problems`` lists what the testbench already found wrong with the packet's delivery (exit
    port, flits, payload); the injection and ejection cycles are compared here. ``diverged_by`` is
    the earliest cycle at which the two disagree about the packet.
    """
    problems = list(problems)
    if rtl_injected != g_inj:
        problems.insert(0, f"injected at {rtl_injected}, golden {g_inj}")
    elif rtl_ejected != g_ej:
        problems.append(f"ejected at {rtl_ejected}, golden {g_ej}")
    if not problems:
        return None
    if rtl_injected != g_inj:
        first = min(c for c in (rtl_injected, g_inj) if c is not None)
    else:
        first = min(c for c in (rtl_ejected, g_ej) if c is not None)
    return {"id": pid, "src": src, "dst": dst, "created": created, "golden_injected": g_inj,
            "golden_ejected": g_ej, "rtl_injected": rtl_injected, "rtl_ejected": rtl_ejected,
            "diverged_by": first, "problems": problems}


def finish(job: dict, mism: list, **counters) -> dict:
    """Sort the mismatches by divergence, write the verdict file the job names, return the verdict."""
    mism.sort(key=lambda m: (m["diverged_by"], m["id"]))
    verdict = {"packets": len(job["packets"]), "mismatches": len(mism), "first": mism[:20], **counters}
    with open(job["result"], "w") as fh:
        json.dump(verdict, fh)
    return verdict
