"""Input unit of one router port: ``V`` VC buffers of ``B`` flits (router-spec §R2, §R6).

The link delivers at most one flit per cycle (``in_valid``, ``in_flit``); it is
written at the clock edge into the FIFO of VC ``in_flit.vc``. Each VC's
**front** flit (``front_valid_ivc``, ``front_flit_ivc``) is read
combinationally from its buffer, so the allocator sees it at the start of the
cycle. The allocator pops up to ``S`` flits a cycle, at most one per VC
(``pop_ivc``, a bit per VC); each pop frees a slot, and a credit for that VC
goes upstream in the same cycle (``credit_ret_ivc``).

Timing (§R2)
------------
* A flit that arrives in cycle ``t`` (``in_valid`` high during ``t``: it
  arrives "at the end of cycle ``t``", §R2 phase 4) is written at the edge
  ending ``t`` and is visible at the front from cycle ``t + 1`` on, never in
  ``t``: "a requester is an input VC whose front flit arrived before this
  cycle" (§R6). That holds with an arrival into an empty VC and with an
  arrival in the same cycle as a pop of the VC's last flit.
* A pop in cycle ``t`` (the grant's switch traversal, §R2 phase 2) removes
  the front at the edge ending ``t``; ``credit_ret_ivc`` is high in ``t``,
  combinationally: with link latency ``Tl = 1`` the credit sent in ``t``
  arrives at the end of ``t`` (it is the upstream
  :class:`~radixnet.hdl.credits.CreditCounter`'s ``ret`` in cycle ``t``) and
  is usable from ``t + 1``. The credit round trip is therefore 2 cycles: a
  VC with ``depth = 1`` carries one flit every other cycle, ``depth >= 2``
  one per cycle (both as in the golden model).

Why not ``amaranth.lib.fifo``
-----------------------------
``SyncFIFOBuffered`` registers its read data: an entry written into an empty
queue becomes readable two cycles later (one more than ``SyncFIFO``), which
would make every hop one cycle slower than §R2; and with ``depth = 1`` it
accepts a write only every other cycle. ``SyncFIFO`` (first-word
fall-through) would meet §R2, but its ``w_rdy``/``level`` hide what the checks
below need. The unit therefore builds each VC
buffer from an ``amaranth.lib.memory.Memory`` of ``depth`` flits with one
synchronous write port and one **asynchronous** (``domain="comb"``) read port
at the head pointer, plus head/tail pointers and an occupancy count: written
at the edge, readable in the next cycle. With ``depth = 1`` the buffer is a
plain register (a one-entry ``Memory`` would have a 0-bit address). Buffer
contents are not reset (only pointers and counts are), like a RAM. Yosys's
generic ``synth`` maps the memories to flip-flops (``V * depth * flit`` bits); on an
FPGA they are distributed (LUT) RAM.

Protocol and what the hardware does on a violation
--------------------------------------------------
Under the credit protocol a flit never arrives at a full VC buffer: the
upstream router holds one credit per free slot, and a slot freed by a pop in
cycle ``t`` is credited at the end of ``t``, so the earliest flit that can use
it is granted upstream in ``t + 1`` and arrives at the end of ``t + 1``. The
check is therefore strict: the occupancy **at the start of the cycle** must
be below ``depth`` (a same-cycle pop does not make room). Nor does the
allocator pop an empty VC. Violations:

* **overflow**: ``in_valid`` into a VC holding ``depth`` flits (the flit is dropped);
* **underflow**: ``pop_ivc`` bit set for an empty VC (ignored; no credit is returned);
* **bad VC**: ``in_valid`` with ``in_flit.vc >= V`` (possible when ``V`` is not a
  power of two; the flit is dropped).

Each sets the sticky ``error`` output until reset; with ``check=True`` (the
default) an ``Assert`` fires in the offending cycle as well (Amaranth
simulator: ``AssertionError``; Verilog: an immediate ``assert``, dropped by
synthesis), as in :class:`~radixnet.hdl.credits.CreditCounter`.

Examples
--------
>>> from radixnet.hdl.flit import flit_layout
>>> from radixnet.hdl.verilog import to_verilog
>>> unit = InputUnit(2, 4, flit_layout(4, 1, 16))
>>> header = to_verilog(unit, "iu").split("module iu(")[1].split(");")[0]
>>> sorted(header.split(", "))    # doctest: +NORMALIZE_WHITESPACE
['clk', 'count_ivc__0', 'count_ivc__1', 'credit_ret_ivc', 'error', 'front_flit_ivc__0',
 'front_flit_ivc__1', 'front_valid_ivc', 'in_flit', 'in_valid', 'pop_ivc', 'rst']
>>> InputUnit(2, 0, flit_layout(4, 1, 16))
Traceback (most recent call last):
...
ValueError: InputUnit: depth (flits per VC buffer) must be an int with depth >= 1, got 0
"""

from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Shape, Signal, unsigned
from amaranth.hdl import Assert
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..gen.router_config import router_param
from .arbiter import check_choice, check_int, ptr_width, reject

__all__ = ["InputUnit", "FrontInputUnit", "FRONTS", "RAMS"]

# FrontInputUnit's structures (router-spec §R11.1a), the router parameters' table's: the oldest entries per VC held
# in registers, and what holds the flits behind them
FRONTS = tuple(range(int(router_param("buffer_fronts").minimum), int(router_param("buffer_fronts").maximum) + 1))
RAMS = router_param("buffer_ram").choices


class InputUnit(wiring.Component):
    """``V`` FIFO VC buffers of one input port, front flits visible the cycle after arrival (§R2).

    Parameters
    ----------
    n_vcs : int
        ``V``, virtual channels of the port, ``>= 1``.
    depth : int
        ``B``, flits per VC buffer, ``>= 1``.
    flit_layout : amaranth.lib.data.StructLayout
        The flit (:func:`radixnet.hdl.flit.flit_layout`); it needs a ``vc`` field of at least
        ``ptr_width(n_vcs)`` bits.
    check : bool
        Also emit assertions (simulation and Verilog) for the protocol violations.
    side_shape : int or amaranth shape, optional
        A side-band stored with every flit (written from ``in_side``, read as ``front_side_ivc``): the
        ``iq`` router's lookahead route (router-spec §R10.4), looked up as the flit arrives. Default
        None: no side-band.

    Attributes
    ----------
    in_flit : View(flit_layout), in
        The flit arriving on the link this cycle (written into VC ``in_flit.vc``).
    in_valid : Signal(1), in
        ``in_flit`` is a flit.
    pop_ivc : Signal(n_vcs), in
        Bit ``v``: the front flit of VC ``v`` leaves this cycle (it was granted; at most one per VC).
    front_valid_ivc : Signal(n_vcs), out
        Bit ``v``: VC ``v`` holds a flit (so ``front_flit_ivc[v]`` is its oldest).
    front_flit_ivc : list of View(flit_layout), out
        The front flit of each VC (don't-care when the VC is empty).
    credit_ret_ivc : Signal(n_vcs), out
        Bit ``v``: a credit for VC ``v`` goes upstream this cycle (``pop_ivc & front_valid_ivc``).
    count_ivc : list of Signal(range(depth + 1)), out
        Occupancy of each VC buffer (a register).
    error : Signal(1), out
        Sticky: an overflow, underflow or bad VC happened since reset (never under the protocol).
    in_side : Signal(side_shape), in (``side_shape`` only)
        The side-band of ``in_flit``, stored with it.
    front_side_ivc : list of Signal(side_shape), out (``side_shape`` only)
        The side-band stored with each front flit.
    """

    def __init__(self, n_vcs: int, depth: int, flit_layout: data.StructLayout, *, check: bool = True,
                 side_shape=None):
        self.n_vcs = check_int(self, "n_vcs", "virtual channels", n_vcs, 1)
        self.depth = check_int(self, "depth", "flits per VC buffer", depth, 1)
        if not isinstance(flit_layout, data.StructLayout) or "vc" not in flit_layout.members:
            reject(self, f"flit_layout (the flit) must be an amaranth.lib.data.StructLayout with a "
                          f"'vc' field, got {flit_layout!r}")
        vc_bits = flit_layout["vc"].width
        if vc_bits < ptr_width(n_vcs):
            reject(self, f"flit_layout (the flit) has a {vc_bits}-bit 'vc' field; n_vcs = {n_vcs} "
                          f"needs at least {ptr_width(n_vcs)}")
        if not isinstance(check, bool):
            reject(self, f"check (emit the protocol assertions) must be a bool, got {check!r}")
        self.flit_layout = flit_layout
        self.check = check
        self.side_shape = side_shape
        side = {} if side_shape is None else {"in_side": In(side_shape), "front_side_ivc": Out(side_shape).array(n_vcs)}
        super().__init__({**side,
            "in_flit": In(flit_layout),
            "in_valid": In(1),
            "pop_ivc": In(n_vcs),
            "front_valid_ivc": Out(n_vcs),
            "front_flit_ivc": Out(flit_layout).array(n_vcs),
            "credit_ret_ivc": Out(n_vcs),
            "count_ivc": Out(range(depth + 1)).array(n_vcs),
            "error": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        n, depth = self.n_vcs, self.depth
        sided = self.side_shape is not None
        # what a slot stores: the flit, and the side-band above it (plain bits, so that the Verilog does not
        # name every field of every read port twice)
        fw = self.flit_layout.size
        entry = unsigned(fw + Shape.cast(self.side_shape).width) if sided else self.flit_layout
        in_entry = Cat(self.in_flit, self.in_side) if sided else self.in_flit

        def front(v, value):   # drive VC v's front flit (and side-band) from a stored entry
            if not sided:
                return [self.front_flit_ivc[v].eq(value)]
            return [self.front_flit_ivc[v].eq(value[:fw]), self.front_side_ivc[v].eq(value[fw:])]

        def wrap_inc(ptr):
            return Mux(ptr == depth - 1, 0, ptr + 1)

        push_ivc = Signal(n)
        pop_ok_ivc = Signal(n)
        overflow_ivc = Signal(n)
        underflow_ivc = Signal(n)
        bad_vc = Signal()
        vc_in = self.in_flit.vc
        if (1 << len(vc_in)) > n:
            m.d.comb += bad_vc.eq(self.in_valid & (vc_in >= n))

        for v in range(n):
            count = self.count_ivc[v]
            empty, full = Signal(name=f"empty_ivc_{v}"), Signal(name=f"full_ivc_{v}")
            arrive = Signal(name=f"arrive_ivc_{v}")
            m.d.comb += [
                empty.eq(count == 0),
                full.eq(count == depth),
                arrive.eq(self.in_valid & (vc_in == v)),
                push_ivc[v].eq(arrive & ~full),
                pop_ok_ivc[v].eq(self.pop_ivc[v] & ~empty),
                overflow_ivc[v].eq(arrive & full),
                underflow_ivc[v].eq(self.pop_ivc[v] & empty),
            ]

            with m.If(push_ivc[v] & ~pop_ok_ivc[v]):
                m.d.sync += count.eq(count + 1)
            with m.Elif(pop_ok_ivc[v] & ~push_ivc[v]):
                m.d.sync += count.eq(count - 1)

            if depth == 1:
                # a single flit: a register (a 1-entry Memory would have a 0-bit address)
                slot = Signal(entry, name=f"buf_ivc_{v}", reset_less=True)  # as a Memory
                with m.If(push_ivc[v]):
                    m.d.sync += slot.eq(in_entry)
                m.d.comb += front(v, slot)
                continue
            head = Signal(range(depth), name=f"head_ivc_{v}")
            tail = Signal(range(depth), name=f"tail_ivc_{v}")
            with m.If(push_ivc[v]):
                m.d.sync += tail.eq(wrap_inc(tail))
            with m.If(pop_ok_ivc[v]):
                m.d.sync += head.eq(wrap_inc(head))
            m.submodules[f"buf_ivc_{v}"] = mem = Memory(shape=entry, depth=depth, init=[])
            wp = mem.write_port()
            rp = mem.read_port(domain="comb")
            m.d.comb += [
                wp.addr.eq(tail),
                wp.data.eq(in_entry),
                wp.en.eq(push_ivc[v]),
                rp.addr.eq(head),
                *front(v, rp.data),
            ]

        m.d.comb += self.front_valid_ivc.eq(Cat(*[c != 0 for c in self.count_ivc]))
        m.d.comb += self.credit_ret_ivc.eq(pop_ok_ivc)

        violation = Signal()
        m.d.comb += violation.eq(overflow_ivc.any() | underflow_ivc.any() | bad_vc)
        with m.If(violation):
            m.d.sync += self.error.eq(1)
        if self.check:
            m.d.sync += [
                Assert(~overflow_ivc.any(), "InputUnit overflow: flit arrived at a full VC buffer"),
                Assert(~underflow_ivc.any(), "InputUnit underflow: pop of an empty VC"),
                Assert(~bad_vc, "InputUnit bad VC: in_flit.vc >= n_vcs"),
            ]
        return m


class FrontInputUnit(wiring.Component):
    """``V`` VC buffers whose front **two** flits are registers (the ``hiradix`` router, router-spec §R11).

    The same FIFO behaviour as :class:`InputUnit` (a flit written at the edge ending ``t`` is at the
    front from ``t + 1``; one pop per VC per cycle; the checks), but the oldest two entries of every
    VC are flip-flops (``front0_ivc``, ``front1_ivc``: the flit and the side-band, plain bits) and
    only the entries behind them sit in a LUT-RAM of ``depth - 2`` slots, so the allocator reads no
    RAM: a pop moves ``front1`` into ``front0`` and the RAM's head (or the arriving flit) into
    ``front1``, through a register. The occupancy tests ``count >= 1, 2, 3`` are registered bits
    (``nge_ivc``). ``pop_ivc`` comes from registers in ``hiradix`` (its ST stage), so the RAM read and
    the shift are on a register-to-register path of their own. With a side-band and a RAM of two or more
    slots, the third entry's side-band is a register too (``side2_ivc_<v>``), so that ``front1_next_ivc``'s
    side-band (a head's stored route, which ``hiradix`` looks up a cycle early) reads no RAM; the RAM's
    side-band is then a LUT-RAM of its own, read at the slot after the head (into that register).

    Parameters
    ----------
    n_vcs, depth, flit_layout, check, side_shape
        As :class:`InputUnit`.
    kinds : int
        How many of the oldest entries' kinds (tail and head bits) are kept in registers, and how many
        occupancy bits (``count >= 1 .. kinds``): 4, or 5 for ``hiradix-staged`` (router-spec §R11.7: the view's
        first four flits, each possibly a pop behind). Default 4.
    second_pop : bool
        Also take ``pop1_ivc``: remove a VC's **second** oldest entry instead of the oldest (``hiradix-twohead``,
        router-spec §R11.9: a second head granted while the front stays). Default False.
    fronts : int
        How many of the oldest entries are registers, 2 or 3 (router-spec §R11.1a). With 3, the third entry is a
        register too (``front2_ivc_<v>``, flit and side-band), and the RAM holds the entries from the fourth on: a
        RAM read then lands only in that register, never in ``front1_next_ivc`` (a reader's cycle-early lookup
        starts at flip-flops and IN's pops), and at ``depth = 4`` the RAM is a single slot, itself a register.
        The same FIFO either way; 2 (default) keeps the third entry's side-band alone in a register.
    ram : str
        What holds the flits behind the front registers (router-spec §R11.1a): ``"lut"`` (default), a LUT-RAM read
        combinationally, or ``"block"``, a RAM with a registered read (an ECP5 ``DP16KD``, a Xilinx block RAM:
        the flit bits only; the side-band and the kinds stay in LUT-RAM), read a cycle ahead at the head the
        pops leave, transparent to the write of the same cycle.

    Attributes
    ----------
    in_flit, in_valid, pop_ivc, credit_ret_ivc, count_ivc, error, in_side
        As :class:`InputUnit`; ``credit_ret_ivc`` also for a ``pop1_ivc``.
    pop1_ivc : Signal(n_vcs), in (``second_pop`` only)
        Bit ``v``: VC ``v``'s second oldest entry leaves this cycle, the oldest stays (never with ``pop_ivc``'s bit
        ``v``; the VC holds two entries or more).
    front0_ivc, front1_ivc : list of Signal(entry), out
        Per VC, the oldest and the second oldest entry (flit bits, then the side-band bits above
        them); don't-care when the VC holds fewer flits.
    nge_ivc : list of Signal(kinds), out
        Per VC, bit ``k - 1``: the VC holds at least ``k`` flits (registers).
    kind_ivc : list of Signal(2 * kinds), out
        Per VC, the kinds of the ``kinds`` oldest entries, registers (what the allocator reads of the flits
        behind the front one): bit ``2k`` the ``tail`` bit, ``2k + 1`` the ``head`` bit of entry ``k``
        (0 the oldest); don't-care for entries the VC does not hold, 0 for a layout without the bits.
    front0_next_ivc, front1_next_ivc : list of Signal(entry), out
        Per VC, what ``front0_ivc`` and ``front1_ivc`` hold from the next cycle (their registers' inputs):
        a reader can register a function of the front entries a cycle early.
    """

    def __init__(self, n_vcs: int, depth: int, flit_layout: data.StructLayout, *, check: bool = True,
                 side_shape=None, kinds: int = 4, second_pop: bool = False, fronts: int = 2, ram: str = "lut"):
        self.n_vcs = check_int(self, "n_vcs", "virtual channels", n_vcs, 1)
        self.depth = check_int(self, "depth", "flits per VC buffer", depth, 1)
        self.kinds = check_int(self, "kinds", "oldest entries whose kinds are kept", kinds, 4)
        self.fronts = check_choice(self, "fronts", "oldest entries per VC held in registers, router-spec §R11.1a",
                                   fronts, FRONTS)
        self.ram = check_choice(self, "ram", "what holds the flits behind the front registers, router-spec §R11.1a",
                                ram, RAMS)
        if not isinstance(second_pop, bool):
            reject(self, f"second_pop (also remove the second oldest entry) must be a bool, got {second_pop!r}")
        self.second_pop = second_pop
        self.flit_layout, self.check, self.side_shape = flit_layout, check, side_shape
        self.side_bits = 0 if side_shape is None else Shape.cast(side_shape).width
        self.entry_bits = flit_layout.size + self.side_bits
        side = {} if side_shape is None else {"in_side": In(side_shape)}
        if second_pop:
            side["pop1_ivc"] = In(n_vcs)
        super().__init__({**side,
            "in_flit": In(flit_layout),
            "in_valid": In(1),
            "pop_ivc": In(n_vcs),
            "front0_ivc": Out(self.entry_bits).array(n_vcs),
            "front1_ivc": Out(self.entry_bits).array(n_vcs),
            "nge_ivc": Out(self.kinds).array(n_vcs),
            "kind_ivc": Out(2 * self.kinds).array(n_vcs),
            "front0_next_ivc": Out(self.entry_bits).array(n_vcs),
            "front1_next_ivc": Out(self.entry_bits).array(n_vcs),
            "credit_ret_ivc": Out(n_vcs),
            "count_ivc": Out(range(depth + 1)).array(n_vcs),
            "error": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        n, depth, nk = self.n_vcs, self.depth, self.kinds
        in_entry = Cat(self.in_flit, self.in_side) if self.side_shape is not None else Cat(self.in_flit)
        pop_ok_ivc, overflow_ivc, underflow_ivc = Signal(n), Signal(n), Signal(n)
        pop1_ok_ivc, underflow1_ivc = Signal(n), Signal(n)   # the second entry leaves (second_pop)
        bad_vc = Signal()
        vc_in = self.in_flit.vc
        if (1 << len(vc_in)) > n:
            m.d.comb += bad_vc.eq(self.in_valid & (vc_in >= n))
        nf = self.fronts
        rd = max(depth - nf, 0)   # RAM slots behind the front registers
        fw = self.flit_layout.size   # an entry's flit bits; the side-band above them
        named = {k for k, _ in self.flit_layout}

        def kind(e):   # an entry's (tail, head) bits; (0, 0) for a layout without them (a unit test's bare flit)
            f = data.View(self.flit_layout, e[:self.flit_layout.size])
            return Cat(*[getattr(f, k) if k in named else Const(0, 1) for k in ("tail", "head")])

        for v in range(n):
            count = self.count_ivc[v]
            nge = self.nge_ivc[v]
            r0, r1 = self.front0_ivc[v], self.front1_ivc[v]
            arrive, push, pop0 = Signal(name=f"arrive_ivc_{v}"), Signal(name=f"push_ivc_{v}"), pop_ok_ivc[v]
            pop1 = pop1_ok_ivc[v]
            m.d.comb += [
                arrive.eq(self.in_valid & (vc_in == v)),
                push.eq(arrive & (count != depth)),
                pop0.eq(self.pop_ivc[v] & nge[0]),
                overflow_ivc[v].eq(arrive & (count == depth)),
                underflow_ivc[v].eq(self.pop_ivc[v] & ~nge[0]),
            ]
            pop = pop0   # an entry leaves: the oldest, or (second_pop) the second oldest
            if self.second_pop:
                pop = Signal(name=f"pop_any_ivc_{v}")
                m.d.comb += [pop1.eq(self.pop1_ivc[v] & nge[1] & ~self.pop_ivc[v]),
                             underflow1_ivc[v].eq(self.pop1_ivc[v] & (~nge[1] | self.pop_ivc[v])),
                             pop.eq(pop0 | pop1)]
            nxt = Signal(range(depth + 1), name=f"count_next_ivc_{v}")
            m.d.comb += nxt.eq(count + push - pop)
            m.d.sync += [count.eq(nxt), nge.eq(Cat(*[nxt >= k for k in range(1, nk + 1)]))]
            ram_data = None
            behind_last = None   # the kind of the entry behind the kinds kept (RAM slot head + nk - nf)
            fourth = None  # the fourth oldest entry (the RAM's slot after its head), for the third's side-band
            if rd:
                # the arriving flit's place after this cycle's pop: count - pop; nf and beyond is the RAM
                to_ram = Signal(name=f"to_ram_ivc_{v}")
                m.d.comb += to_ram.eq(push & Mux(pop, nge[nf], nge[nf - 1]))
                from_ram = Signal(name=f"from_ram_ivc_{v}")
                m.d.comb += from_ram.eq(pop & nge[nf])
                if rd == 1:   # one slot: a register (a 1-entry Memory would have a 0-bit address)
                    slot = Signal(self.entry_bits, name=f"buf_ivc_{v}", reset_less=True)
                    with m.If(to_ram):
                        m.d.sync += slot.eq(in_entry)
                    ram_data = slot
                else:
                    head = Signal(range(rd), name=f"ram_head_ivc_{v}")
                    tail = Signal(range(rd), name=f"ram_tail_ivc_{v}")
                    # two fronts with a side-band: the flits and the side-band in two LUT-RAMs of one read port
                    # each, the flits read at the head (into front1), the side-band at the slot after it (into
                    # side2); three fronts: whole entries, read at the head into front2
                    ew = fw if nf == 2 else self.entry_bits
                    block = self.ram == "block"

                    def inc(x):
                        return Mux(x == rd - 1, 0, x + 1)
                    if block:   # read at the head after this cycle's pop, so the word is the head's from t + 1
                        m.submodules[f"buf_ivc_{v}"] = mem = Memory(shape=unsigned(ew), depth=rd, init=[],
                                                                    attrs={"ram_style": "block"})
                        wp = mem.write_port()
                        rp = mem.read_port(domain="sync", transparent_for=(wp,))
                    else:
                        m.submodules[f"buf_ivc_{v}"] = mem = Memory(shape=unsigned(ew), depth=rd, init=[])
                        wp, rp = mem.write_port(), mem.read_port(domain="comb")
                    m.d.comb += [wp.addr.eq(tail), wp.data.eq(in_entry[:ew]), wp.en.eq(to_ram),
                                 rp.addr.eq(Mux(from_ram, inc(head), head) if block else head)]
                    if self.side_bits and nf == 2:   # the fourth entry's side-band, read where only side2's
                        # update sees it
                        m.submodules[f"side_ivc_{v}"] = smem = Memory(shape=unsigned(self.side_bits), depth=rd,
                                                                      init=[])
                        swp, srp = smem.write_port(), smem.read_port(domain="comb")
                        m.d.comb += [swp.addr.eq(tail), swp.data.eq(in_entry[fw:]), swp.en.eq(to_ram),
                                     srp.addr.eq(inc(head))]
                        fourth = srp.data
                    if rd >= nk - nf + 1:   # that entry's kind, read where only the kind registers' update sees it
                        if block:   # the kinds in a LUT-RAM of their own
                            m.submodules[f"kind_ivc_{v}"] = kmem = Memory(shape=2, depth=rd, init=[])
                            kwp = kmem.write_port()
                            m.d.comb += [kwp.addr.eq(tail), kwp.data.eq(kind(in_entry)), kwp.en.eq(to_ram)]
                            rp2 = kmem.read_port(domain="comb")
                        else:
                            rp2 = mem.read_port(domain="comb")
                        a = head
                        for _ in range(nk - nf):
                            a = inc(a)
                        m.d.comb += rp2.addr.eq(a)
                        behind_last = rp2.data if block else kind(rp2.data)
                    with m.If(to_ram):
                        m.d.sync += tail.eq(inc(tail))
                    with m.If(from_ram):
                        m.d.sync += head.eq(inc(head))
                    ram_data = rp.data
            # the oldest entries' kinds: a shift register beside the FIFO (a pop shifts it by one entry;
            # the arriving flit's kind lands at its place, count - pop)
            kinds = [self.kind_ivc[v][2 * k:2 * k + 2] for k in range(nk)]
            behind = kinds[1:] + [behind_last if behind_last is not None else Const(0, 2)]
            at = Signal(range(depth + 1), name=f"arrive_at_ivc_{v}")
            m.d.comb += at.eq(count - pop)
            for k in range(min(depth, nk)):
                shift = pop if k else pop0   # the second entry leaving shifts the kinds behind the oldest only
                m.d.sync += kinds[k].eq(Mux(push & (at == k), kind(in_entry), Mux(shift, behind[k], kinds[k])))
            # two fronts: the third entry's side-band (a head's stored route) in a register, shifted as the kinds
            # are, so that front1's next side-band, which a reader looks up a cycle early, reads no RAM; three
            # fronts: the whole third entry in front2, which a pop fills from the RAM's head or the arriving flit
            third = ram_data
            if nf == 3 and depth >= 3:
                r2 = Signal(self.entry_bits, name=f"front2_ivc_{v}", reset_less=True)
                popped2 = Mux(nge[3], ram_data, in_entry) if ram_data is not None else in_entry
                m.d.sync += r2.eq(Mux(pop, popped2, Mux(nge[1] & ~nge[2], in_entry, r2)))
                third = r2
            if fourth is not None:
                side2 = Signal(self.side_bits, name=f"side2_ivc_{v}", reset_less=True)
                m.d.sync += side2.eq(Mux(push & (at == 2), in_entry[fw:], Mux(pop, fourth, side2)))
                third = Cat(ram_data, side2)
            # the front registers' next entries: a pop shifts (front1, then the RAM's head or the arriving flit);
            # else the arriving flit lands in the first free one (in_entry is a don't-care without a push)
            n0, n1 = self.front0_next_ivc[v], self.front1_next_ivc[v]
            m.d.comb += n0.eq(Mux(pop0, Mux(nge[1], r1, in_entry), Mux(nge[0], r0, in_entry)))
            if depth < 2:   # front1 is never written
                m.d.comb += n1.eq(r1)
            else:   # without a RAM the arriving flit, used only if it lands there (count 2 and a push)
                popped1 = Mux(nge[2], third, in_entry) if third is not None else in_entry
                m.d.comb += n1.eq(Mux(pop, popped1, Mux(nge[0] & ~nge[1], in_entry, r1)))
            m.d.sync += [r0.eq(n0), r1.eq(n1)]
        m.d.comb += self.credit_ret_ivc.eq(pop_ok_ivc | pop1_ok_ivc if self.second_pop else pop_ok_ivc)
        violation = Signal()
        bad = overflow_ivc.any() | underflow_ivc.any() | bad_vc
        m.d.comb += violation.eq(bad | underflow1_ivc.any() if self.second_pop else bad)
        with m.If(violation):
            m.d.sync += self.error.eq(1)
        if self.check:
            m.d.sync += [
                Assert(~overflow_ivc.any(), "InputUnit overflow: flit arrived at a full VC buffer"),
                Assert(~underflow_ivc.any(), "InputUnit underflow: pop of an empty VC"),
                Assert(~bad_vc, "InputUnit bad VC: in_flit.vc >= n_vcs"),
            ]
            if self.second_pop:
                m.d.sync += Assert(~underflow1_ivc.any(),
                                   "InputUnit underflow: pop of a second entry the VC does not hold, or with its front")
        return m
