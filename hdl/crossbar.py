"""The switch: a flat multiplexer crossbar (switch traversal, router-spec §R2 phase 2).

Each output port has its own ``n_in``-way multiplexer, driven by the switch
allocator's decision for that output: ``sel_op[o]`` (which input: its index, or
with ``select="onehot"`` a one-hot vector over the inputs) and ``sel_valid_op``
bit ``o`` (whether output ``o`` takes a flit this cycle).
The crossbar is purely combinational; the flit is registered by whatever it
feeds (the output queue of §R2, which with ``S = 1`` is the output register).

Speedup ``S`` (§R1) is a matter of port counts, not of this unit: a router of
radix ``P`` with speedup ``S`` instantiates it with ``S`` switch ports per
input and per output (``n_in = n_out = P*S``), so several flits of one input
or into one output cross in the same cycle. Several outputs may select the
same input (that is the caller's business; the allocator never does it for
one flit).

Cost grows as ``n_in * n_out * width`` multiplexer inputs. On a LUT4 device the
one-hot form is about half the index form: ECP5, 16 x 16 ports, 57 bits, both
with registered inputs, selects and outputs (``synth_ecp5``): 10,032 LUT4 and 912
``PFUMX`` one-hot against 19,152 LUT4, 6,384 ``PFUMX`` and 3,648 ``L6MUX21``
indexed (a 16:1 multiplexer of binary select is five 4:1 multiplexers, each two
slices; the AND-OR of sixteen (select, data) pairs is eleven LUT4s). Fewer LUT4s
are not fewer wires: each one-hot select bit fans out to a flit's bits wherever
the placer puts their AND terms, and in the radix-16 ``hiradix`` core those 256
nets were the most congested of all; nextpnr's ``router2`` did not converge with
them (about 14,700 wires overused after 15 iterations) and routed the same core
with the index form (docs/timing-report.md). The ``hiradix`` router (router-spec
§R11) therefore registers the granted lane's index beside its one-hot grant and
uses the index form; the one-hot form is its option. For high radix
(Kim et al. use radix 64) a **hierarchical** crossbar (sub-switches of
``k x k`` with intermediate buffering, Kim, Dally, Towles and Gupta, ISCA 2005)
is :class:`radixnet.hdl.crossbar_hier.HierarchicalCrossbar`; it buffers, so it
has a valid/ready stream interface and a latency of its own (docs/synth-report.md
compares the two).

Examples
--------
>>> from amaranth.lib import data
>>> flit = data.StructLayout({"head": 1, "tail": 1, "vc": 2, "payload": 32})
>>> from radixnet.hdl.verilog import to_verilog
>>> text = to_verilog(Crossbar(4, 3, flit), "xbar")
>>> [ln.split()[-1] for ln in text.splitlines() if ln.lstrip().startswith(("input", "output"))][:6]
['data_in_ip__0;', 'data_in_ip__1;', 'data_in_ip__2;', 'data_in_ip__3;', 'data_out_op__0;', 'data_out_op__1;']
>>> Crossbar(4, 3, 8)
Traceback (most recent call last):
...
ValueError: Crossbar: layout (flit payload) must be an amaranth.lib.data.Layout (e.g. a StructLayout) of at least 1 bit, got 8
"""

from __future__ import annotations

from amaranth import Cat, Const, Module
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .arbiter import check_int, mux_onehot, ptr_width, reject

__all__ = ["Crossbar"]


class Crossbar(wiring.Component):
    """Flat ``n_in x n_out`` multiplexer crossbar carrying one ``layout`` value per port.

    Output ``o`` shows input ``sel_op[o]`` when ``sel_valid_op[o]`` is set;
    ``valid_out_op[o]`` is ``sel_valid_op[o]`` for a select in ``0 .. n_in-1``
    and 0 (with all-zero data) for a select out of range. When not valid the
    data is don't-care (it follows the select: no gating, to save ``n_out *
    width`` AND gates).

    With ``select="index"`` each output is one ``word_select`` over the
    concatenated inputs, which Yosys builds as a tree of 2:1 multiplexers:
    ``(n_in - 1) * width`` per output for ``n_in`` a power of two (8x8, 32
    bits: 1792 ``$_MUX_`` cells, half the cells of a ``case`` statement's
    AND-OR form). With ``select="onehot"`` each output is the OR over inputs
    of ``sel_op[o][i] ? data_in_ip[i] : 0`` (all-zero data when no bit is
    set; at most one bit may be): fewer LUT4s on an FPGA (module docstring).

    Parameters
    ----------
    n_in : int
        Number of input (switch) ports, ``n_in >= 1``.
    n_out : int
        Number of output (switch) ports, ``n_out >= 1``.
    layout : amaranth.lib.data.Layout
        Payload carried through the switch (usually the flit's ``StructLayout``), at least 1 bit.
    select : {"index", "onehot"}
        How ``sel_op`` names an output's input: its index (default) or a one-hot vector of ``n_in`` bits.

    Attributes
    ----------
    data_in_ip : list of View(layout), in
        Payload offered by each input port.
    sel_op : list of Signal(ptr_width(n_in)) or Signal(n_in), in
        Per output, the input it takes: its index, or (``select="onehot"``) bit ``i`` set for input ``i``.
    sel_valid_op : Signal(n_out), in
        Bit ``o``: output ``o`` takes a flit this cycle.
    data_out_op : list of View(layout), out
        Payload at each output port.
    valid_out_op : Signal(n_out), out
        Bit ``o``: ``data_out_op[o]`` is a flit.
    """

    def __init__(self, n_in: int, n_out: int, layout: data.Layout, *, select: str = "index"):
        self.n_in = check_int(self, "n_in", "input ports", n_in, 1)
        self.n_out = check_int(self, "n_out", "output ports", n_out, 1)
        if not isinstance(layout, data.Layout) or layout.size < 1:
            reject(self, f"layout (flit payload) must be an amaranth.lib.data.Layout "
                          f"(e.g. a StructLayout) of at least 1 bit, got {layout!r}")
        if select not in ("index", "onehot"):
            reject(self, f"select must be 'index' or 'onehot', got {select!r}")
        self.layout = layout
        self.select = select
        super().__init__({
            "data_in_ip": In(layout).array(n_in),
            "sel_op": In(ptr_width(n_in) if select == "index" else n_in).array(n_out),
            "sel_valid_op": In(n_out),
            "data_out_op": Out(layout).array(n_out),
            "valid_out_op": Out(n_out),
        })

    def elaborate(self, platform):
        m = Module()
        width = self.layout.size
        if self.select == "onehot":
            for o in range(self.n_out):
                m.d.comb += self.data_out_op[o].eq(mux_onehot(self.sel_op[o], [d.as_value() for d in self.data_in_ip]))
                m.d.comb += self.valid_out_op[o].eq(self.sel_valid_op[o])
            return m
        w = ptr_width(self.n_in)
        pad = (1 << w) - self.n_in  # words past the last input, so a select never leaves the vector
        flat_ip = Cat(*[d.as_value() for d in self.data_in_ip], *([Const(0, pad * width)] if pad else []))
        for o in range(self.n_out):
            sel = self.sel_op[o]
            m.d.comb += self.data_out_op[o].eq(flat_ip.word_select(sel, width))
            in_range = sel < self.n_in if pad else 1
            m.d.comb += self.valid_out_op[o].eq(self.sel_valid_op[o] & in_range)
        return m
