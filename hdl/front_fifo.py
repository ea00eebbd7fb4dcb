"""A first-word-fall-through FIFO whose oldest entry is a register (the ``subswitch`` row and column buffers).

The same behaviour as :class:`amaranth.lib.fifo.SyncFIFO` with ``fwft``: a word written at the edge ending
``t`` is readable from ``t + 1``, one read and one write a cycle, ``r_rdy`` / ``w_rdy`` from the occupancy.
The difference is where the oldest word sits: in ``r_data``, a register of its own, while the words behind it
wait in a LUT-RAM of ``depth - 1`` entries. A reader's logic then starts at a flip-flop, not at the RAM's read
address, its decoder and the RAM cells (router-spec §R12: SA reads its row buffers' fronts, GO its column
buffers'). With ``peek``, the bits it selects of the **second** oldest word are a register too
(``r_next``, valid when ``r_rdy2``), and so are the same bits of the oldest word the reader has not yet
decided to remove (``v_bits``, valid when ``v_rdy``): a reader that removes the front a cycle after deciding to
(SA's grant registered, the row buffer popped in the next cycle) says so with ``r_sel`` in the cycle it
decides, and the next cycle's view is chosen at the edge, so that its own decision starts at a flip-flop.

Examples
--------
>>> from radixnet.hdl.verilog import to_verilog
>>> "module ff(" in to_verilog(FrontFIFO(8, 4), "ff")
True
"""

from __future__ import annotations

from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .arbiter import check_int, reject

__all__ = ["FrontFIFO"]


class FrontFIFO(wiring.Component):
    """FIFO of ``depth`` words of ``width`` bits, the oldest in a register (module docstring).

    Attributes
    ----------
    w_data, w_en, w_rdy : in, in, out
        Write port (a write when ``w_en`` and ``w_rdy``).
    r_data, r_en, r_rdy : out (a register), in, out
        Read port: ``r_data`` is the oldest word when ``r_rdy``; ``r_en`` removes it.
    level : Signal(range(depth + 1)), out
        Words held (a register).
    r_next, r_rdy2 : out (a register), out
        The second oldest word's bits that ``peek`` selects (the others 0), when ``r_rdy2`` (two words held).
    r_sel : in (with ``peek``)
        The reader removes the oldest word in the next cycle: ``r_en`` in ``t + 1`` must equal ``r_sel`` in
        ``t`` (the reader registers its decision and pops with it).
    v_bits, v_rdy : out (registers, with ``peek``)
        The reader's view: the ``peek`` bits of the oldest word it has not decided to remove (the second oldest
        while ``r_en``, else the oldest), when ``v_rdy`` (that word is held).

    Parameters
    ----------
    width, depth : int
        Bits per word, words.
    peek : int
        A mask of the bits of the second oldest word kept in ``r_next`` (0: none).
    """

    def __init__(self, width: int, depth: int, *, peek: int = 0):
        self.width = check_int(self, "width", "bits per word", width, 1)
        self.depth = check_int(self, "depth", "words", depth, 1)
        self.peek = check_int(self, "peek", "a mask of the word's bits", peek, 0)
        if peek >> width:
            reject(self, f"peek (a mask of the word's bits) must be below 2**width ({1 << width}), got {peek!r}")
        super().__init__({"w_data": In(width), "w_en": In(1), "w_rdy": Out(1),
                          "r_data": Out(width), "r_en": In(1), "r_rdy": Out(1),
                          "level": Out(range(depth + 1)), "r_next": Out(width), "r_rdy2": Out(1),
                          "r_sel": In(1), "v_bits": Out(width), "v_rdy": Out(1)})

    def elaborate(self, platform):
        m = Module()
        n = self.level
        m.d.comb += [self.r_rdy.eq(n != 0), self.w_rdy.eq(n != self.depth)]
        pop = Signal()
        push = Signal()
        m.d.comb += [pop.eq(self.r_en & self.r_rdy), push.eq(self.w_en & self.w_rdy)]
        n_d = Signal(range(self.depth + 1))   # the level after the edge
        m.d.comb += n_d.eq(n + push - pop)
        m.d.sync += n.eq(n_d)
        m.d.comb += self.r_rdy2.eq(n >= 2)
        rest = self.depth - 1   # the words behind the front, in the RAM
        if rest == 0:
            with m.If(push):
                m.d.sync += self.r_data.eq(self.w_data)
            if self.peek:
                self._view(m, n_d, Mux(push, self.w_data, self.r_data) & self.peek, 0)
            return m
        m.submodules.ram = ram = Memory(shape=self.width, depth=rest, init=[])
        wp, rp = ram.write_port(), ram.read_port(domain="comb")
        wptr, rptr = Signal(range(rest)), Signal(range(rest))

        def inc(p):
            return Mux(p == rest - 1, 0, p + 1)

        behind = Signal()   # the RAM holds a word (n >= 2)
        m.d.comb += [behind.eq(n >= 2), rp.addr.eq(rptr), wp.addr.eq(wptr), wp.data.eq(self.w_data)]
        # the write goes to the front register when the FIFO is empty, or holds one word that leaves now
        to_front = Signal()
        m.d.comb += to_front.eq((n == 0) | ((n == 1) & pop))
        with m.If(push & ~to_front):
            m.d.comb += wp.en.eq(1)
            m.d.sync += wptr.eq(inc(wptr))
        with m.If(pop & behind):
            m.d.sync += [self.r_data.eq(rp.data), rptr.eq(inc(rptr))]
        with m.Elif(push & to_front):
            m.d.sync += self.r_data.eq(self.w_data)
        if self.peek:
            next_d = self._peek(m, n, pop, push, wp.en, wptr, rptr, inc)
            # the front's peeked bits after the edge: the second word's (r_next) when the front leaves with
            # another behind it, the word written when it lands in front, else the front's own
            w_bits = self.w_data & self.peek
            front_d = Mux(pop & behind, self.r_next, Mux(push & to_front, w_bits, self.r_data & self.peek))
            self._view(m, n_d, front_d, next_d)
        return m

    def _view(self, m, n_d, front_d, next_d):
        """``v_bits`` / ``v_rdy``: the next cycle's view, chosen at the edge by ``r_sel`` among the words the
        front and the second word will hold."""
        m.d.sync += [self.v_bits.eq(Mux(self.r_sel, next_d, front_d)),
                     self.v_rdy.eq(Mux(self.r_sel, n_d >= 2, n_d >= 1))]

    def _peek(self, m, n, pop, push, ram_we, wptr, rptr, inc):
        """``r_next``: the peeked bits of the second oldest word, a register, kept beside a register copy of
        the same bits of each RAM entry (the word behind the second is read from the copy, not the RAM).
        Returns its value after the edge."""
        mask, rest = self.peek, self.depth - 1
        side = [Signal(self.width, name=f"side_{k}") for k in range(rest)]
        w_bits = self.w_data & mask
        for k in range(rest):
            with m.If(ram_we & (wptr == k)):
                m.d.sync += side[k].eq(w_bits)
        after = Signal(self.width)   # the copy of the entry behind the second (read when n >= 3)
        nxt = inc(rptr)
        sel = side[0]
        for k in range(1, rest):
            sel = Mux(nxt == k, side[k], sel)
        m.d.comb += after.eq(sel)
        # the second word after the edge: the word written now when it lands second (one word held and none
        # leaves, or two held and the front leaves), the entry behind it when the front leaves with three held
        next_d = Signal(self.width)   # r_next after the edge
        m.d.comb += next_d.eq(self.r_next)
        with m.If(push & (((n == 1) & ~pop) | ((n == 2) & pop))):
            m.d.comb += next_d.eq(w_bits)
        with m.Elif(pop & (n >= 3)):
            m.d.comb += next_d.eq(after)
        m.d.sync += self.r_next.eq(next_d)
        return next_d
