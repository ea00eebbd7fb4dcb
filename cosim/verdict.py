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

import inspect
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

    clock = Clock(dut.clk, 10, "ns").start()   # cocotb 2.x: a running task; 1.9: a coroutine to start
    if inspect.iscoroutine(clock):
        cocotb.start_soon(clock)
    dut.rst.value = 1
    for handle, value in values.items():
        handle.value = value
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0


def judge(pid, src, dst, created, g_inj, g_ej, *, rtl_injected, rtl_ejected, problems, hop=None) -> dict | None:
    """The mismatch record of one packet, or None when the RTL agrees with the golden model.

    ``problems`` lists what the testbench already found wrong with the packet's delivery (exit
    port, flits, payload); the injection and ejection cycles are compared here. ``hop`` is the first
    hop at which the packet's path differs from its golden §R9 path, ``(hop index, cycle, what)``
    (:func:`radixnet.cosim.hops.compare_path`; index -1 for a body flit that left its head's path), or
    None. ``diverged_by`` is the earliest cycle at which the two disagree about the packet; ``endpoint``
    says whether the endpoint comparison alone (injection, exit port, ejection, bytes) saw it, and
    ``first_hop`` names the first differing hop.
    """
    problems = list(problems)
    if rtl_injected != g_inj:
        problems.insert(0, f"injected at {rtl_injected}, golden {g_inj}")
    elif rtl_ejected != g_ej:
        problems.append(f"ejected at {rtl_ejected}, golden {g_ej}")
    endpoint = bool(problems)
    if hop is not None:
        problems.append(hop[2])
    if not problems:
        return None
    cycles = []
    if rtl_injected != g_inj:
        cycles += [c for c in (rtl_injected, g_inj) if c is not None]
    elif endpoint:
        cycles += [c for c in (rtl_ejected, g_ej) if c is not None] or [created]
    if hop is not None:
        cycles.append(hop[1] if hop[1] is not None else created)
    return {"id": pid, "src": src, "dst": dst, "created": created, "golden_injected": g_inj,
            "golden_ejected": g_ej, "rtl_injected": rtl_injected, "rtl_ejected": rtl_ejected,
            "diverged_by": min(cycles), "problems": problems, "endpoint": endpoint,
            "first_hop": None if hop is None else hop[0], "hop_problem": None if hop is None else hop[2]}


def finish(job: dict, mism: list, **counters) -> dict:
    """Sort the mismatches by divergence, write the verdict file the job names, return the verdict.

    Besides ``mismatches`` (packets with any difference) the verdict counts ``endpoint_mismatches``
    (packets the endpoint comparison alone catches) and ``hop_mismatches`` (packets whose path or header
    differs at some hop).
    """
    mism.sort(key=lambda m: (m["diverged_by"], m["id"]))
    verdict = {"packets": len(job["packets"]), "mismatches": len(mism), "first": mism[:20],
               "endpoint_mismatches": sum(1 for m in mism if m.get("endpoint", True)),
               "hop_mismatches": sum(1 for m in mism if m.get("first_hop") is not None), **counters}
    with open(job["result"], "w") as fh:
        json.dump(verdict, fh)
    return verdict
