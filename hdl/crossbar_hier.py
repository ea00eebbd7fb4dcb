"""Hierarchical (YARC-style) buffered crossbar with a valid/ready stream interface.

The flat switch (:class:`~radixnet.hdl.crossbar.Crossbar`) needs one
``n_in``-way multiplexer per output, driven by a ``k``-input allocator. For
radix 32 and up, Kim, Dally, Towles and Gupta ("Microarchitecture of a
high-radix router", ISCA 2005) and the Cray YARC router (Scott et al.,
"The BlackWidow high-radix Clos network", ISCA 2006) split a ``k x k`` switch
into ``(k/p)^2`` subswitches of ``p x p`` with buffers at their inputs and
outputs, so every arbitration is local to a subswitch (``p`` requesters) or
to an output column (``k/p`` requesters) and every stage is one register
stage. This unit builds that organisation for any ``n_in``, ``n_out`` that
``sub = p`` divides (``p >= 2``); ``sub = n_in = n_out`` is the *flat
buffered* crossbar with the same interface (one ``k x k`` subswitch), the fair
baseline for a comparison (same stream interface, latency and output buffers).

Organisation
------------
* Inputs are grouped in **rows** of ``p`` (input ``i`` is in row ``i // p``),
  outputs in **columns** of ``p`` (output ``o`` is in column ``o // p``).
  Subswitch ``(r, c)`` connects the ``p`` inputs of row ``r`` to the ``p``
  outputs of column ``c``.
* **Row bus / subswitch inputs**: input ``i`` drives the ``n_out / p``
  subswitches of its row; its flit is written into the input FIFO
  (``depth`` entries) of the subswitch in its destination's column. One FIFO
  per (input, column) pair.
* **Subswitch**: a ``p x p`` :class:`~radixnet.hdl.crossbar.Crossbar` whose
  outputs are chosen by one :class:`~radixnet.hdl.arbiter.RoundRobinArbiter`
  (``p`` requesters, §R6 pointer rule) per subswitch output. The FIFO heads
  of the subswitch request the output their flit is for; an output requests
  only when its output buffer has a free slot at the start of the cycle
  (the credit from the column), so every grant moves a flit.
* **Column / outputs**: each subswitch output has an output (column) FIFO of
  ``out_depth`` entries. Output ``o`` arbitrates round-robin over the
  ``n_in / p`` column FIFOs of its column (one per row) and shows the winner
  on ``out_*``; the winner leaves its FIFO when ``out_ready_op[o]`` is high.

FIFOs are :class:`amaranth.lib.fifo.SyncFIFO` (first-word fall-through: an
entry written at a clock edge is readable in the next cycle) and accept a
write only when not full at the start of the cycle (a read in the same cycle
does not make room), so no ``ready`` depends combinationally on a later
stage. Depth 2 is the least that sustains one flit per cycle through a FIFO.

Stream interface
----------------
Per input ``i``: ``in_valid_ip[i]``, ``in_ready_ip[i]``, ``in_dest_ip[i]``
(destination output), ``in_data_ip[i]`` (payload, any ``data.Layout``). A flit
is **accepted** in a cycle where ``in_valid_ip[i]`` and ``in_ready_ip[i]`` are
both high. ``in_ready_ip[i]`` depends on registers and on ``in_dest_ip[i]``
(it is the not-full flag of the FIFO of ``in_dest_ip[i]``'s column), never on
``in_valid_ip``, ``in_data_ip`` or any output's ``ready``; a flit with
``in_dest_ip[i] >= n_out`` is never accepted (``in_ready_ip[i]`` is low).

Per output ``o``: ``out_valid_op[o]``, ``out_ready_op[o]``,
``out_data_op[o]``. A flit is **delivered** in a cycle where both
``out_valid_op[o]`` and ``out_ready_op[o]`` are high. ``out_valid_op`` and
``out_data_op`` depend on registers only. Once ``out_valid_op[o]`` is high it
stays high, with the same ``out_data_op[o]``, until the flit is delivered
(the output arbiter holds its grant while ``out_ready_op[o]`` is low).

Contract
--------
* **Latency**: :attr:`~HierarchicalCrossbar.LATENCY` ``= 2``. A flit accepted in
  cycle ``t`` is shown on its output (``out_valid_op``) from cycle ``t + 2``
  when nothing else contends: its input FIFO is empty at ``t``, its subswitch
  output buffer has room in ``t + 1`` and no other flit wins the subswitch
  output in ``t + 1`` or the output in ``t + 2``. It is delivered in ``t + 2``
  if ``out_ready_op`` is high then. One flit per cycle per input and per
  output is sustained (e.g. a permutation at full load, all 2 cycles).
* **Ordering**: flits from one input to one output are delivered in the order
  they were accepted (they share one input FIFO and one output FIFO, both
  first in, first out). Flits of one input to different outputs, or of
  different inputs, carry no order guarantee.
* **No loss**: every accepted flit is delivered exactly once, provided each
  output's ``out_ready_op`` is eventually high (both arbitration stages are
  round-robin, so no FIFO starves). With all outputs stalled an input
  accepts at most ``depth + out_depth`` flits for one output (its input FIFO
  plus the output FIFO behind it), then ``in_ready_ip`` stays low.
* **Head-of-line blocking**: flits of one input to different outputs of one
  column share an input FIFO, so a flit waiting for a busy output delays the
  flits behind it for the other outputs of that column (one FIFO per
  *column*, not per output: the YARC row buffers).

Cycle diagram (no contention, ``out_ready`` high)::

    cycle        t            t+1                    t+2
    input i      accepted  -> input FIFO (r,c,i%p)
    subswitch                 head wins output j  -> output FIFO (r,c,j)
    output o                                         out_valid, delivered

Cost
----
With ``k = n_in = n_out`` and a ``W``-bit payload: output ``o``'s data
passes a ``p``-way multiplexer in each of the ``k/p`` subswitches of its
column and a ``k/p``-way one at the column, ``(k/p)(p - 1) + k/p - 1 = k - 1``
2:1 multiplexers per bit, exactly the flat crossbar's. On top come ``k^2/p``
input FIFOs of ``depth x (W + log2 p)`` bits, ``k^2/p`` output FIFOs of
``out_depth x W`` bits, ``k^2/p`` arbiters of ``p`` requesters and ``k`` of
``k/p``. Hierarchy buys local arbitration and short register-to-register
paths, not fewer multiplexers; the buffers are the extra area
(``docs/synth-report.md`` has the measured numbers).

Examples
--------
>>> from amaranth.lib import data
>>> flit = data.StructLayout({"tail": 1, "payload": 15})
>>> xb = HierarchicalCrossbar(8, 8, flit, sub=4)
>>> (xb.n_rows, xb.n_cols, xb.LATENCY, len(xb.in_dest_ip[0]))
(2, 2, 2, 3)
>>> HierarchicalCrossbar(8, 8, flit, sub=3)
Traceback (most recent call last):
...
ValueError: HierarchicalCrossbar: sub (subswitch size p) must divide n_in = 8 and n_out = 8, got 3
>>> HierarchicalCrossbar(8, 8, flit, sub=2, depth=1)
Traceback (most recent call last):
...
ValueError: HierarchicalCrossbar: depth (entries per subswitch input FIFO) must be an int with depth >= 2, got 1
"""

from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.fifo import SyncFIFO
from amaranth.lib.wiring import In, Out

from .arbiter import RoundRobinArbiter, check_int, next_ptr, onehot_index, or_all, ptr_width, reject, rr_first
from .crossbar import Crossbar

__all__ = ["HierarchicalCrossbar", "default_sub"]


def default_sub(n: int) -> int:
    """Subswitch size for radix ``n``: ``2**ceil(log2(n) / 2)`` (YARC: 8 for 64), if it divides ``n``.

    Parameters
    ----------
    n : int
        Radix (``n >= 4``).

    Returns
    -------
    int
        The power of two nearest ``sqrt(n)`` from above that divides ``n``
        (``n`` itself when no power of two ``>= 2`` does).

    Examples
    --------
    >>> [default_sub(n) for n in (8, 16, 32, 64, 12)]
    [4, 4, 8, 8, 4]
    """
    p = 1 << ((max(n, 1) - 1).bit_length() + 1) // 2
    while p >= 2 and n % p:
        p //= 2
    return p if p >= 2 else n


def _index_of(m: Module, onehot, n: int, name: str) -> Signal:
    """Index of the set bit of an ``n``-bit one-hot (or zero) value: bit ``b`` ORs the indices with bit ``b``."""
    idx = Signal(ptr_width(n), name=name)
    m.d.comb += idx.eq(onehot_index(onehot, n))
    return idx


def _holding_arbiter(m: Module, req, n: int, ready, name: str):
    """Round-robin arbiter whose grant holds while the granted flit waits for ``ready``.

    Grant: the first requester at or after ``ptr`` (§R6). If a request is
    granted and ``ready`` is high, ``ptr`` moves to one past the grant; if
    ``ready`` is low, ``ptr`` moves *to* the grant, which keeps requesting (it
    leaves its FIFO only when delivered), so the next cycle grants it again.
    Returns ``(gnt, idx)``: one-hot grant and its index.
    """
    if n == 1:
        return req, Const(0, 1)
    ptr = Signal(ptr_width(n), name=f"{name}_ptr")
    gnt = rr_first(m, req, ptr, n, f"{name}_gnt")
    idx = _index_of(m, gnt, n, f"{name}_idx")
    nxt = next_ptr(m, idx, None, n, f"{name}_ptr_next")
    with m.If(req.any()):
        m.d.sync += ptr.eq(Mux(ready, nxt, idx))
    return gnt, idx


class HierarchicalCrossbar(wiring.Component):
    """``n_in x n_out`` crossbar of ``p x p`` buffered subswitches with a valid/ready stream interface.

    See the module docstring for the organisation, the stream rules and the
    latency / ordering contract (:attr:`LATENCY` cycles at zero load, FIFO
    order per (input, output) pair).

    Parameters
    ----------
    n_in : int
        Input ports, a multiple of ``sub``.
    n_out : int
        Output ports, a multiple of ``sub``.
    layout : amaranth.lib.data.Layout
        Payload carried through the switch (e.g. the flit ``StructLayout``), at least 1 bit.
    sub : int
        Subswitch size ``p >= 2``, dividing ``n_in`` and ``n_out``. ``sub = n_in
        = n_out`` is a flat buffered crossbar (one subswitch) with this interface.
    depth : int
        Entries of each subswitch input FIFO (one per (input, column) pair), ``>= 2``.
    out_depth : int
        Entries of each subswitch output (column) FIFO, ``>= 2``.

    Attributes
    ----------
    in_valid_ip : Signal(n_in), in
        Bit ``i``: input ``i`` offers a flit.
    in_ready_ip : Signal(n_in), out
        Bit ``i``: input ``i``'s flit (to ``in_dest_ip[i]``) is accepted if offered.
    in_dest_ip : list of Signal(ptr_width(n_out)), in
        Destination output of each input's flit.
    in_data_ip : list of View(layout), in
        Payload of each input's flit.
    out_valid_op : Signal(n_out), out
        Bit ``o``: ``out_data_op[o]`` is a flit.
    out_ready_op : Signal(n_out), in
        Bit ``o``: output ``o`` takes its flit this cycle (if valid).
    out_data_op : list of View(layout), out
        Payload at each output.
    n_rows, n_cols : int
        ``n_in // sub`` and ``n_out // sub``.
    LATENCY : int
        Cycles from acceptance to ``out_valid`` without contention (2).
    """

    LATENCY = 2

    def __init__(self, n_in: int, n_out: int, layout: data.Layout, *, sub: int,
                 depth: int = 2, out_depth: int = 2):
        self.n_in = check_int(self, "n_in", "input ports", n_in, 1)
        self.n_out = check_int(self, "n_out", "output ports", n_out, 1)
        if not isinstance(layout, data.Layout) or layout.size < 1:
            reject(self, f"layout (flit payload) must be an amaranth.lib.data.Layout "
                          f"(e.g. a StructLayout) of at least 1 bit, got {layout!r}")
        self.sub = check_int(self, "sub", "subswitch size p", sub, 2)
        if n_in % sub or n_out % sub:
            reject(self, f"sub (subswitch size p) must divide n_in = {n_in} and n_out = {n_out}, got {sub}")
        self.depth = check_int(self, "depth", "entries per subswitch input FIFO", depth, 2)
        self.out_depth = check_int(self, "out_depth", "entries per subswitch output FIFO", out_depth, 2)
        self.layout = layout
        self.n_rows, self.n_cols = n_in // sub, n_out // sub
        super().__init__({
            "in_valid_ip": In(n_in),
            "in_ready_ip": Out(n_in),
            "in_dest_ip": In(ptr_width(n_out)).array(n_in),
            "in_data_ip": In(layout).array(n_in),
            "out_valid_op": Out(n_out),
            "out_ready_op": In(n_out),
            "out_data_op": Out(layout).array(n_out),
        })

    def elaborate(self, platform):
        m = Module()
        p, rows, cols = self.sub, self.n_rows, self.n_cols
        width = self.layout.size
        wj = ptr_width(p)  # output index within a column, carried in the input FIFO entry

        # ---- row buses: input i writes the FIFO of its destination's column in its row
        in_fifo = {}  # (input, column) -> SyncFIFO of (payload, dest - column * p)
        for i in range(self.n_in):
            dest = self.in_dest_ip[i]
            ready_col = []
            for c in range(cols):
                fifo = SyncFIFO(width=width + wj, depth=self.depth)
                m.submodules[f"in_fifo_ip{i}_col{c}"] = in_fifo[i, c] = fifo
                hit = Signal(name=f"hit_ip{i}_col{c}")
                lo, hi = c * p, (c + 1) * p
                m.d.comb += hit.eq(((dest >= lo) if lo else 1) & (dest < hi))
                m.d.comb += [
                    fifo.w_data.eq(Cat(self.in_data_ip[i].as_value(), (dest - lo)[:wj])),
                    fifo.w_en.eq(self.in_valid_ip[i] & hit),
                ]
                ready_col.append(hit & fifo.w_rdy)
            m.d.comb += self.in_ready_ip[i].eq(Cat(*ready_col).any())

        # ---- subswitches: p x p crossbar, one round-robin arbiter per subswitch output
        out_fifo = {}  # (row, output) -> SyncFIFO of payloads
        for r in range(rows):
            for c in range(cols):
                xbar = m.submodules[f"xbar_row{r}_col{c}"] = Crossbar(p, p, self.layout)
                heads = [in_fifo[r * p + x, c] for x in range(p)]
                for x, f in enumerate(heads):
                    m.d.comb += xbar.data_in_ip[x].as_value().eq(f.r_data[:width])
                pops = []
                for j in range(p):
                    o = c * p + j
                    ofifo = SyncFIFO(width=width, depth=self.out_depth)
                    m.submodules[f"out_fifo_row{r}_op{o}"] = out_fifo[r, o] = ofifo
                    arb = m.submodules[f"arb_row{r}_op{o}"] = RoundRobinArbiter(p)
                    m.d.comb += [
                        arb.req.eq(Cat(*[f.r_rdy & (f.r_data[width:] == j) for f in heads])
                                   & ofifo.w_rdy.replicate(p)),
                        arb.update.eq(1),
                        xbar.sel_op[j].eq(_index_of(m, arb.gnt, p, f"sel_row{r}_op{o}")),
                        xbar.sel_valid_op[j].eq(arb.gnt.any()),
                        ofifo.w_data.eq(xbar.data_out_op[j].as_value()),
                        ofifo.w_en.eq(xbar.valid_out_op[j]),
                    ]
                    pops.append(arb.gnt)
                pop_x = Signal(p, name=f"pop_row{r}_col{c}")
                m.d.comb += pop_x.eq(or_all(pops))
                for x, f in enumerate(heads):
                    m.d.comb += f.r_en.eq(pop_x[x])

        # ---- columns: output o takes round-robin from the output FIFOs of its column (one per row)
        for o in range(self.n_out):
            fifos = [out_fifo[r, o] for r in range(rows)]
            req = Signal(rows, name=f"req_op{o}_row")
            m.d.comb += req.eq(Cat(*[f.r_rdy for f in fifos]))
            ready = self.out_ready_op[o]
            gnt, idx = _holding_arbiter(m, req, rows, ready, f"col_op{o}")
            if rows == 1:
                m.d.comb += self.out_data_op[o].as_value().eq(fifos[0].r_data)
            else:
                pad = (1 << len(idx)) - rows
                flat = Cat(*[f.r_data for f in fifos], *([Const(0, pad * width)] if pad else []))
                m.d.comb += self.out_data_op[o].as_value().eq(flat.word_select(idx, width))
            m.d.comb += self.out_valid_op[o].eq(req.any())
            for r, f in enumerate(fifos):
                m.d.comb += f.r_en.eq(gnt[r] & ready)
        return m

