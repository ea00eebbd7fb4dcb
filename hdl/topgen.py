"""Structural Verilog around the shared router cores: route ROMs, router wrappers, network and switch tops.

:mod:`radixnet.hdl.rtlgen` (``make rtl``) elaborates one
:class:`~radixnet.hdl.router.Router` **core** (``external_rom=True``) per
distinct port configuration with Amaranth and Yosys, and writes everything
that differs from router to router as plain Verilog text with the functions
here -- no elaboration, no Yosys, so a 256-router network costs a few cores,
not 256 flattenings:

* :func:`rom_verilog`: module ``route_rom_<r>``, the ROM of router ``r``: a
  constant table (one ``localparam``, one commented line per destination
  terminal) of the words ``{ok, eject, port}`` of
  :meth:`radixnet.hdl.route_table.RouteCompute.rom_ints`, with one
  combinational read port (``addr_ip_<p>_ivc_<v>`` -> ``word_ip_<p>_ivc_<v>``)
  per input VC;
* :func:`wrapper_verilog`: module ``router_<r>``, the ports of the default
  Router (``in_flit_ip__<p>``, ``in_valid_ip``, ``credit_out_ip_ivc__<p>``,
  ``out_flit_op__<p>``, ``out_valid_op``, ``credit_in_op_ovc__<p>``,
  ``error``, ``clk``, ``rst``): the core plus one ROM instance with a read
  port per input VC, fed by the core's ``route_addr_ip_ivc__<p>__<v>`` and
  driving its ``route_word_ip_ivc__<p>__<v>`` (under the ``iq`` model's
  lookahead, router-spec §R10.4, one per input port: ``route_*_ip__<p>``);
* :func:`network_top_verilog`: module ``network_top``, the routers wired per
  the Network's channels exactly as :class:`~radixnet.hdl.network.NetworkTop`
  (flit and valid downstream, credits upstream; an unused input is tied to 0)
  with its terminal ports ``inj_flit_t__<t>``, ``inj_valid_t``,
  ``inj_credit_t_ivc__<t>``, ``ej_flit_t__<t>``, ``ej_valid_t``, ``error``;
* :func:`switch_top_verilog`: module ``switch_top``, ``network_top`` with an
  ``axis_ingress`` / ``axis_egress`` (:mod:`radixnet.hdl.axis`, generated once)
  on every terminal, ports ``s_axis_<t>_tdata`` ... ``m_axis_<t>_tuser`` and
  ``error`` as :class:`~radixnet.hdl.switch.AxisSwitchTop`.

One module per file, named after it (no ``DECLFILENAME``). :func:`lint_files`
lints a whole generated tree with ``verilator --lint-only -Wall`` and only the
:data:`radixnet.hdl.verilog.WAIVERS`, and those only in the files Amaranth
writes: the text written here lints with no warning at all (outputs nothing
reads, e.g. the flit of an unused router port, go to wires named ``*_unused``,
which Verilator's default ``--unused-regexp`` exempts).

Examples
--------
>>> print(rom_verilog("route_rom_0", [0b1100, 0b1101, 0, 0b1011], addr_bits=2, n_ports=4, reads=["ip_0_ivc_0"]))
// route ROM (radixnet.hdl.topgen): word = {ok, eject, port[1:0]} per destination terminal
module route_rom_0 (
  input  wire [1:0] addr_ip_0_ivc_0,
  output wire [3:0] word_ip_0_ivc_0
);
  // word of terminal t in ROM[4*t +: 4]; ok = 0: no route (and padding past the last terminal)
  localparam [15:0] ROM = {
    4'hb,  // 3: port 3
    4'h0,  // 2: no route
    4'hd,  // 1: eject on port 1
    4'hc   // 0: eject on port 0
  };
  assign word_ip_0_ivc_0 = ROM[{addr_ip_0_ivc_0, 2'd0} +: 4];
endmodule
<BLANKLINE>
>>> [p for p in verilog_ports("module m(a, b);\\n  input [3:0] a;\\n  output b;\\nendmodule")]
[('input', 'a', 4), ('output', 'b', 1)]
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from .arbiter import ptr_width
from .route_table import rom_word_bits

__all__ = ["verilog_ports", "rom_verilog", "wrapper_verilog", "network_top_verilog", "switch_top_verilog",
           "stub_verilog", "lint_files"]

_PORT = re.compile(r"^\s*(input|output)\s+(?:wire\s+|reg\s+)?(?:\[(\d+):0\]\s*)?"
                   r"\\?([A-Za-z_][A-Za-z0-9_$]*)\s*(?:[;,]|$)", re.M)
_TOOL = "radixnet.hdl.topgen"


def verilog_ports(text: str) -> list[tuple[str, str, int]]:
    """``(direction, name, width)`` of the ports declared in a one-module Verilog text (declaration order).

    Reads non-ANSI declarations (``input [35:0] in_flit_ip__0;``, as Yosys writes them) and the
    ANSI ones this module writes (``input wire [1:0] addr,``).
    """
    return [(d, n, int(hi) + 1 if hi else 1) for d, hi, n in _PORT.findall(text)]


def _rng(width: int) -> str:
    return f"[{width - 1}:0] " if width > 1 else ""


def _zero(width: int) -> str:
    return f"{width}'d0"


def _header(ports: list[tuple[str, str, int]]) -> str:
    lines = [f"  {d:<6} wire {_rng(w)}{n}" for d, n, w in ports]
    return ",\n".join(lines)


def rom_verilog(name: str, words: list[int], *, addr_bits: int, n_ports: int, reads: list[str],
                comment: str = "", word_bits: int | None = None) -> str:
    """Module ``name``: a constant table ``words`` with one combinational read port per entry of ``reads``.

    Read port ``x`` is ``addr_x`` (in, ``addr_bits``) -> ``word_x`` (out, ``rom_word_bits(n_ports)``).
    The table is one ``localparam`` (word ``a`` in the ``2**s``-bit slot ``a``, ``s`` the word
    width rounded up to a power of two, so a read is a plain multiplexer
    ``ROM[{addr, s'd0} +: W]``), one line per destination terminal with its meaning as a
    comment. A constant table rather than a ``case`` per read port: a router has ``P x V``
    read ports, and Verilator elaborates every copy of a ``case`` (a 256-router TTN's
    25 088 lookups of 256 entries would take tens of GB to lint); a ``localparam`` is also
    defined at time 0 in every simulator (an ``always @*`` is not until its input changes).

    Parameters
    ----------
    name : str
        Module name (``route_rom_<r>``).
    words : list of int
        The packed ROM words (:meth:`~radixnet.hdl.route_table.RouteCompute.rom_ints`), exactly
        ``2**addr_bits`` of them (padding included, so every address reads a defined word).
    addr_bits : int
        Address width (``ptr_width(T)``).
    n_ports : int
        Ports of the router (sizes the ``port`` field of the word).
    reads : list of str
        Suffixes of the read ports (``ip_<p>_ivc_<v>``).
    comment : str
        An extra comment line (e.g. the router).
    """
    wb, pw = (rom_word_bits(n_ports) if word_bits is None else word_bits), ptr_width(n_ports)
    if len(words) != 1 << addr_bits:
        raise ValueError(f"rom_verilog: {len(words)} words for {addr_bits} address bits (want {1 << addr_bits})")
    if not reads:
        raise ValueError("rom_verilog: reads (read port suffixes) must not be empty")
    sh = max(0, (wb - 1).bit_length())
    slot = 1 << sh
    ports = [("input", f"addr_{x}", addr_bits) for x in reads] + [("output", f"word_{x}", wb) for x in reads]
    cb = wb - pw - 3  # class-table field (router-spec §R7d), 0 bits without one
    layout = f"{{tcls[{cb - 1}:0], tcls_valid, ok, eject, port[{pw - 1}:0]}}" if cb > 0 \
        else f"{{ok, eject, port[{pw - 1}:0]}}"
    out = [f"// route ROM ({_TOOL}): word = {layout} per destination terminal"]
    if comment:
        out.append(f"// {comment}")
    out += [f"module {name} (", _header(ports), ");",
            f"  // word of terminal t in ROM[{slot}*t +: {wb}]; ok = 0: no route (and padding past the last terminal)",
            f"  localparam [{slot * len(words) - 1}:0] ROM = {{"]
    n = len(words)
    for a in reversed(range(n)):
        w = words[a]
        ok, ej, port = w >> (pw + 1) & 1, w >> pw & 1, w & ((1 << pw) - 1)
        what = ("no route" if not ok else f"eject on port {port}" if ej else f"port {port}")
        if cb > 0 and ok and not ej:
            what += f", class {w >> (pw + 3)}" if w >> (pw + 2) & 1 else ", class = hops"
        sep = "," if a else " "
        out.append(f"    {slot}'h{w:0{(slot + 3) // 4}x}{sep}  // {a}: {what}")
    out.append("  };")
    idx = (lambda x: f"{{addr_{x}, {sh}'d0}}") if sh else (lambda x: f"addr_{x}")
    out += [f"  assign word_{x} = ROM[{idx(x)} +: {wb}];" for x in reads]
    out += ["endmodule", ""]
    return "\n".join(out)


def _router_ports(n_ports: int, n_vcs: int, flit_bits: int) -> list[tuple[str, str, int]]:
    """The default Router's Verilog ports (flat names), in a fixed order."""
    P, V, F = n_ports, n_vcs, flit_bits
    ports = [("input", "clk", 1), ("input", "rst", 1)]
    ports += [("input", f"in_flit_ip__{p}", F) for p in range(P)]
    ports += [("input", "in_valid_ip", P)]
    ports += [("output", f"credit_out_ip_ivc__{p}", V) for p in range(P)]
    ports += [("output", f"out_flit_op__{p}", F) for p in range(P)]
    ports += [("output", "out_valid_op", P)]
    ports += [("input", f"credit_in_op_ovc__{p}", V) for p in range(P)]
    ports += [("output", "error", 1)]
    return ports


def wrapper_verilog(name: str, core: str, core_ports: list[tuple[str, str, int]], rom: str, *, n_ports: int,
                    n_vcs: int, comment: str = "") -> str:
    """Module ``name``: core ``core`` and ROM ``rom`` (:func:`rom_verilog`), one ROM read port per input VC
    (per input port under the ``iq`` model's lookahead).

    ``core_ports`` are the core's ports (:func:`verilog_ports` of its Verilog); its
    ``route_addr_ip_ivc__<p>__<v>`` / ``route_word_ip_ivc__<p>__<v>`` go to the ROM instances,
    the others are the wrapper's ports (the default Router's, checked here, and a core built with
    ``observe`` for the co-simulation also its ``obs_*`` outputs, passed through).
    """
    route = {n: (d, w) for d, n, w in core_ports if n.startswith(("route_addr_ip", "route_word_ip"))}
    outer = [p for p in core_ports if p[1] not in route]
    flit = {w for d, n, w in outer if n.startswith("in_flit_ip__")}
    if len(flit) != 1:
        raise ValueError(f"wrapper_verilog: core {core} has no single flit width ({sorted(flit)})")
    want = _router_ports(n_ports, n_vcs, flit.pop()) + [p for p in outer if p[0] == "output" and
                                                         p[1].startswith("obs_")]
    if sorted(outer) != sorted(want):
        raise ValueError(f"wrapper_verilog: core {core} ports differ from a Router's: "
                         f"{sorted(set(outer) ^ set(want))[:4]}")
    # a read port per input VC (route_*_ip_ivc__<p>__<v>), or per input port under the iq model's
    # lookahead (route_*_ip__<p>, router-spec §R10.4)
    per_vc = any(n.startswith("route_addr_ip_ivc__") for n in route)
    reads = [(f"ip_ivc__{p}__{v}", f"ip_{p}_ivc_{v}") for p in range(n_ports) for v in range(n_vcs)] if per_vc \
        else [(f"ip__{p}", f"ip_{p}") for p in range(n_ports)]
    if sorted(route) != sorted(f"route_{k}_{c}" for c, _ in reads for k in ("addr", "word")):
        raise ValueError(f"wrapper_verilog: core {core} has {len(route)} route ports, want {2 * len(reads)} "
                         f"(one read per input {'VC' if per_vc else 'port'})")
    out = [f"// router wrapper ({_TOOL}): core {core} + route ROM {rom} "
           f"(one read port per input {'VC' if per_vc else 'port'})"]
    if comment:
        out.append(f"// {comment}")
    out += [f"module {name} (", _header(want), ");"]
    for c, x in reads:
        for kind in ("addr", "word"):
            out.append(f"  wire {_rng(route[f'route_{kind}_{c}'][1])}route_{kind}_{x};")
    out.append(f"  {core} core (")
    conns = [f"    .{n}({n})" for _, n, _ in want]
    conns += [f"    .route_{k}_{c}(route_{k}_{x})" for c, x in reads for k in ("addr", "word")]
    out += [",\n".join(conns), "  );"]
    conns = [f"    .{k}_{x}(route_{k}_{x})" for _, x in reads for k in ("addr", "word")]
    out += [f"  {rom} rom (", ",\n".join(conns), "  );", "endmodule", ""]
    return "\n".join(out)


def network_top_ports(n_terminals: int, n_vcs: int, flit_bits: int, *,
                      egress_credits: bool = False) -> list[tuple[str, str, int]]:
    """The ports of ``network_top`` (those of :class:`~radixnet.hdl.network.NetworkTop`'s Verilog; with
    ``egress_credits``, its ``egress_depth >= 1`` form, router-spec §R3a, also ``ej_credit_t``)."""
    T = n_terminals
    ports = [("input", "clk", 1), ("input", "rst", 1)]
    ports += [("input", f"inj_flit_t__{t}", flit_bits) for t in range(T)]
    ports += [("input", "inj_valid_t", T)]
    ports += [("output", f"inj_credit_t_ivc__{t}", n_vcs) for t in range(T)]
    ports += [("output", f"ej_flit_t__{t}", flit_bits) for t in range(T)]
    ports += [("output", "ej_valid_t", T), ("output", "error", 1)]
    if egress_credits:
        ports.insert(len(ports) - 1, ("input", "ej_credit_t", T))   # before error
    return ports


def _cat(bits: list[str]) -> str:
    """Verilog concatenation with element 0 as bit 0."""
    return bits[0] if len(bits) == 1 else "{" + ", ".join(reversed(bits)) + "}"


def network_top_verilog(net, modules: list[str], *, n_vcs: int, flit_bits: int, name: str = "network_top",
                        egress_credits: bool = False) -> str:
    """Module ``name``: one instance ``router_<r>`` of ``modules[r]`` per router, wired as NetworkTop.

    Channel ``c`` drives input ``dst_port[c]`` of ``dst[c]`` with output ``src_port[c]`` of ``src[c]``
    (flit, valid) and returns that input's credits to the output's ``credit_in_op_ovc``; terminal
    ``t`` injects at ``(inj_router, inj_port)`` and ejects at ``(ej_router, ej_port)``; every other
    input (flit, valid, credits) is 0; ``error`` is the OR of the routers' ``error``. With
    ``egress_credits`` (routers built with ``egress_depth >= 1``, router-spec §R3a) bit ``t`` of input
    ``ej_credit_t`` is VC 0's credit of terminal ``t``'s ejection port.
    """
    R, T, V, F = int(net.num_routers), int(net.num_terminals), n_vcs, flit_bits
    if len(modules) != R:
        raise ValueError(f"network_top_verilog: {len(modules)} modules for {R} routers")
    radix = [int(x) for x in net.radix]
    in_flit = [[_zero(F)] * radix[r] for r in range(R)]
    in_valid = [["1'b0"] * radix[r] for r in range(R)]
    credit_in = [[_zero(V)] * radix[r] for r in range(R)]
    for c in range(int(net.num_channels)):
        sr, sp, dr, dp = int(net.src[c]), int(net.src_port[c]), int(net.dst[c]), int(net.dst_port[c])
        in_flit[dr][dp] = f"r{sr}_out_flit_{sp}"
        in_valid[dr][dp] = f"r{sr}_out_valid_{sp}"
        credit_in[sr][sp] = f"r{dr}_credit_out_{dp}"
    for t in range(T):
        ir, ip = int(net.inj_router[t]), int(net.inj_port[t])
        in_flit[ir][ip] = f"inj_flit_t__{t}"
        in_valid[ir][ip] = f"inj_valid_t[{t}]" if T > 1 else "inj_valid_t"
        if egress_credits:
            er, ep = int(net.ej_router[t]), int(net.ej_port[t])
            bit = f"ej_credit_t[{t}]" if T > 1 else "ej_credit_t"
            credit_in[er][ep] = bit if V == 1 else f"{{{V - 1}'b0, {bit}}}"
    # outputs nothing reads (an unused port's flit, valid and credits) go to wires named *_unused,
    # which Verilator's default --unused-regexp exempts: no warning to waive in this file
    out_used = [[False] * radix[r] for r in range(R)]
    in_used = [[False] * radix[r] for r in range(R)]
    for c in range(int(net.num_channels)):
        out_used[int(net.src[c])][int(net.src_port[c])] = True
        in_used[int(net.dst[c])][int(net.dst_port[c])] = True
    for t in range(T):
        out_used[int(net.ej_router[t])][int(net.ej_port[t])] = True
        in_used[int(net.inj_router[t])][int(net.inj_port[t])] = True

    def flit_w(r, p):
        return f"r{r}_out_flit_{p}" + ("" if out_used[r][p] else "_unused")

    def valid_w(r, p):
        return f"r{r}_out_valid_{p}" + ("" if out_used[r][p] else "_unused")

    def cred_w(r, p):
        return f"r{r}_credit_out_{p}" + ("" if in_used[r][p] else "_unused")

    ports = network_top_ports(T, V, F, egress_credits=egress_credits)
    out = [f"// network top ({_TOOL}): {net.family} {net.params}, {R} routers, {T} terminals, "
           f"{int(net.num_channels)} channels; wired as radixnet.hdl.network.NetworkTop",
           f"module {name} (", _header(ports), ");"]
    for r in range(R):
        P = radix[r]
        out += [f"  wire {_rng(F)}{flit_w(r, p)};" for p in range(P)]
        out += [f"  wire {valid_w(r, p)};" for p in range(P)]
        out += [f"  wire {_rng(V)}{cred_w(r, p)};" for p in range(P)]
        out += [f"  wire r{r}_error;"]
    for r in range(R):
        P = radix[r]
        conns = ["    .clk(clk)", "    .rst(rst)"]
        conns += [f"    .in_flit_ip__{p}({in_flit[r][p]})" for p in range(P)]
        conns += [f"    .in_valid_ip({_cat(in_valid[r])})"]
        conns += [f"    .credit_out_ip_ivc__{p}({cred_w(r, p)})" for p in range(P)]
        conns += [f"    .out_flit_op__{p}({flit_w(r, p)})" for p in range(P)]
        conns += [f"    .out_valid_op({_cat([valid_w(r, p) for p in range(P)])})"]
        conns += [f"    .credit_in_op_ovc__{p}({credit_in[r][p]})" for p in range(P)]
        conns += [f"    .error(r{r}_error)"]
        out += [f"  {modules[r]} router_{r} (", ",\n".join(conns), "  );"]
    ej_valid = []
    for t in range(T):
        ir, ip = int(net.inj_router[t]), int(net.inj_port[t])
        er, ep = int(net.ej_router[t]), int(net.ej_port[t])
        out.append(f"  assign inj_credit_t_ivc__{t} = r{ir}_credit_out_{ip};")
        out.append(f"  assign ej_flit_t__{t} = r{er}_out_flit_{ep};")
        ej_valid.append(f"r{er}_out_valid_{ep}")
    out.append(f"  assign ej_valid_t = {_cat(ej_valid)};")
    out.append(f"  assign error = |{{{', '.join(f'r{r}_error' for r in range(R))}}};")
    out += ["endmodule", ""]
    return "\n".join(out)


_BEAT = ("tdata", "tkeep", "tlast", "tvalid", "tuser")


def switch_top_ports(n_terminals: int, data_width: int, tuser_width: int) -> list[tuple[str, str, int]]:
    """The ports of ``switch_top`` (those of :class:`~radixnet.hdl.switch.AxisSwitchTop`'s Verilog)."""
    widths = {"tdata": data_width, "tkeep": data_width // 8, "tlast": 1, "tvalid": 1, "tready": 1,
              "tuser": tuser_width}
    ports = [("input", "clk", 1), ("input", "rst", 1)]
    for t in range(n_terminals):
        for side, fwd, back in (("s", "input", "output"), ("m", "output", "input")):
            for f in ("tdata", "tkeep", "tlast", "tvalid", "tready", "tuser"):
                ports.append((back if f == "tready" else fwd, f"{side}_axis_{t}_{f}", widths[f]))
    ports.append(("output", "error", 1))
    return ports


def switch_top_verilog(n_terminals: int, *, data_width: int, tuser_width: int, n_vcs: int, flit_bits: int,
                       ingress_ports: list[tuple[str, str, int]], egress_ports: list[tuple[str, str, int]],
                       network: str = "network_top", ingress: str = "axis_ingress", egress: str = "axis_egress",
                       name: str = "switch_top", egress_credits: bool = False) -> str:
    """Module ``name``: ``network`` with ``ingress``/``egress`` on every terminal, wired as AxisSwitchTop.

    ``ingress_ports`` / ``egress_ports`` are the AXI modules' ports (:func:`verilog_ports`); outputs
    the switch does not use (the egress's ``m_route`` and ``overflow``) go to wires named
    ``*_unused`` (Verilator's default ``--unused-regexp``: not reported). With ``egress_credits``
    (router-spec §R3a) each egress's ``ej_credit`` drives bit ``t`` of the network's ``ej_credit_t``.
    """
    T, V, F = n_terminals, n_vcs, flit_bits
    ports = switch_top_ports(T, data_width, tuser_width)
    ig = {n: (d, w) for d, n, w in ingress_ports}
    eg = {n: (d, w) for d, n, w in egress_ports}
    for mod, have, need in ((ingress, ig, {"inj_flit": F, "inj_valid": 1, "inj_credit_vc": V, "error": 1}),
                            (egress, eg, {"ej_flit": F, "ej_valid": 1, "error": 1,
                                          **({"ej_credit": 1} if egress_credits else {})})):
        bad = [n for n, w in need.items() if n not in have or have[n][1] != w]
        if bad:
            raise ValueError(f"switch_top_verilog: module {mod} lacks port(s) {bad} of the expected width")
    out = [f"// switch top ({_TOOL}): {network} with {ingress}/{egress} on each of its {T} terminals; "
           "wired as radixnet.hdl.switch.AxisSwitchTop",
           f"module {name} (", _header(ports), ");"]
    for t in range(T):
        out += [f"  wire {_rng(F)}inj_flit_{t};", f"  wire inj_valid_{t};", f"  wire {_rng(V)}inj_credit_{t};",
                f"  wire {_rng(F)}ej_flit_{t};", f"  wire ingress_error_{t};", f"  wire egress_error_{t};"]
        for n, (d, w) in eg.items():
            if d == "output" and not n.startswith("m_axis_") and n != "error" \
                    and not (egress_credits and n == "ej_credit"):
                out.append(f"  wire {_rng(w)}egress_{n}_{t}_unused;")
    out += ["  wire network_error;", f"  wire {_rng(T)}ej_valid;", f"  wire {_rng(T)}inj_valid;",
            f"  assign inj_valid = {_cat([f'inj_valid_{t}' for t in range(T)])};"]
    if egress_credits:
        out += [f"  wire ej_credit_{t};" for t in range(T)]
        out += [f"  wire {_rng(T)}ej_credit;", f"  assign ej_credit = {_cat([f'ej_credit_{t}' for t in range(T)])};"]
    conns = ["    .clk(clk)", "    .rst(rst)"]
    conns += [f"    .inj_flit_t__{t}(inj_flit_{t})" for t in range(T)]
    conns += ["    .inj_valid_t(inj_valid)"]
    conns += [f"    .inj_credit_t_ivc__{t}(inj_credit_{t})" for t in range(T)]
    conns += [f"    .ej_flit_t__{t}(ej_flit_{t})" for t in range(T)]
    conns += ["    .ej_valid_t(ej_valid)", "    .error(network_error)"]
    if egress_credits:
        conns.append("    .ej_credit_t(ej_credit)")
    out += [f"  {network} network (", ",\n".join(conns), "  );"]
    for t in range(T):
        conns = ["    .clk(clk)", "    .rst(rst)"]
        for f in _BEAT + ("tready",):
            conns.append(f"    .s_axis_{f}(s_axis_{t}_{f})")
        conns += [f"    .inj_flit(inj_flit_{t})", f"    .inj_valid(inj_valid_{t})",
                  f"    .inj_credit_vc(inj_credit_{t})", f"    .error(ingress_error_{t})"]
        extra = sorted(set(ig) - {c.split("(")[0].strip()[1:] for c in conns})
        if extra:
            raise ValueError(f"switch_top_verilog: module {ingress} has unexpected port(s) {extra}")
        out += [f"  {ingress} ingress_{t} (", ",\n".join(conns), "  );"]
        conns = ["    .clk(clk)", "    .rst(rst)"]
        for f in _BEAT + ("tready",):
            conns.append(f"    .m_axis_{f}(m_axis_{t}_{f})")
        ejv = f"ej_valid[{t}]" if T > 1 else "ej_valid"
        conns += [f"    .ej_flit(ej_flit_{t})", f"    .ej_valid({ejv})", f"    .error(egress_error_{t})"]
        for n, (d, w) in eg.items():
            if egress_credits and n == "ej_credit":
                conns.append(f"    .ej_credit(ej_credit_{t})")
            elif d == "output" and not n.startswith("m_axis_") and n != "error":
                conns.append(f"    .{n}(egress_{n}_{t}_unused)")
        extra = sorted(set(eg) - {c.split("(")[0].strip()[1:] for c in conns})
        if extra:
            raise ValueError(f"switch_top_verilog: module {egress} has unexpected input port(s) {extra}")
        out += [f"  {egress} egress_{t} (", ",\n".join(conns), "  );"]
    errs = ["network_error"] + [f"{k}_error_{t}" for t in range(T) for k in ("ingress", "egress")]
    out += [f"  assign error = |{{{', '.join(errs)}}};", "endmodule", ""]
    return "\n".join(out)


def stub_verilog(name: str, ports: list[tuple[str, str, int]]) -> str:
    """A lint stand-in for module ``name`` with exactly ``ports``: one register of the XOR of every input.

    Used by the split lint of a large tree (:func:`radixnet.hdl.rtlgen.lint_tree`): the structural
    files are linted against stubs of the cores (each core is linted on its own), so Verilator does
    not elaborate hundreds of copies of a big core. Every input is read (``^{...}``), every output
    driven (from the register, so no combinational path and no loop through the stubs).
    """
    ins = [n for d, n, w in ports if d == "input" and n not in ("clk", "rst")]
    outs = [(n, w) for d, n, w in ports if d == "output"]
    out = [f"// lint stub of {name} ({_TOOL}): same ports, no function", f"module {name} (", _header(ports), ");",
           "  reg q = 1'b0;",
           "  always @(posedge clk)",
           f"    q <= rst ? 1'b0 : ^{{{', '.join(ins)}}};" if ins else "    q <= ~rst;"]
    out += [f"  assign {n} = {{{w}{{q}}}};" if w > 1 else f"  assign {n} = q;" for n, w in outs]
    out += ["endmodule", ""]
    return "\n".join(out)


_WARN = re.compile(r"%Warning-([A-Z0-9_]+): (?:([^:\s]+):(\d+):(?:\d+:)? )?(.*)")


def lint_files(paths, top: str, *, waivers=None, strict=(), verilator: str = "verilator",
               timeout: float = 1800.0) -> list[str]:
    """``verilator --lint-only -Wall`` on several files together; fail on anything not waived.

    The multi-file form of :func:`radixnet.hdl.verilog.lint`, with the same waiver rule
    (:data:`~radixnet.hdl.verilog.WAIVERS`; a waiver with ``on_ports=False`` does not cover a
    port of the module the warning is in). All files must be in one directory (Verilator runs
    there, so a file named after its module gives no ``DECLFILENAME``). ``strict`` names files
    (base names) where no warning at all is waived: the text written here has none, and a
    ``WIDTH`` warning there (e.g. a port connected to a wire of another width) is a real bug.

    Returns
    -------
    list of str
        The waived warnings (first line of each).

    Raises
    ------
    radixnet.hdl.verilog.LintError
        On a Verilator error or an unwaived warning.
    radixnet.hdl.verilog.ToolError
        If Verilator is missing or times out.
    """
    from .verilog import WAIVERS, LintError, ToolError, check_name, lint_verilator, module_spans, names_port

    check_name("lint_files", top)
    waivers = WAIVERS if waivers is None else waivers
    strict = {Path(f).name for f in strict}
    paths = [Path(p) for p in paths]
    dirs = {p.absolute().parent for p in paths}
    if not paths or len(dirs) != 1:
        raise ValueError(f"lint_files: paths must be files of one directory, got {len(dirs)} directories")
    exe, env = lint_verilator(verilator, "lint_files")
    cwd = dirs.pop()
    cmd = [exe, "--lint-only", "-Wall", "-Wno-fatal", "--top-module", top] + [p.name for p in paths]
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as exc:
        raise ToolError(f"lint_files: verilator timed out after {timeout} s on {top}") from exc
    output = proc.stdout + proc.stderr
    spans: dict[str, list] = {}
    waived, failing = [], []
    for raw in output.splitlines():
        if raw.startswith("%Error"):
            failing.append(raw)
            continue
        mw = _WARN.match(raw)
        if mw is None:
            continue
        code, fname, line, message = mw.groups()
        w = None if fname is not None and Path(fname).name in strict else waivers.get(code)
        ok = w is not None and w.on_ports
        if w is not None and not w.on_ports and fname is not None and line is not None:
            if fname not in spans:
                f = cwd / fname
                spans[fname] = module_spans(f.read_text()) if f.exists() else []
            ok = not names_port(message, int(line), spans[fname])
        (waived if ok else failing).append(raw)
    if failing or proc.returncode != 0:
        detail = "\n".join(failing[:50]) or output.strip()[-4000:]
        raise LintError(f"lint_files: verilator found {len(failing)} problem(s) in {top}:\n{detail}")
    return waived
