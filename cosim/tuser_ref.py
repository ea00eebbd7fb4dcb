"""An independent encoder of the AXI4-Stream ``tuser`` word, written from docs/axis-ports.md only.

The golden side of the co-simulation and the RTL share :meth:`radixnet.hdl.axis.TuserLayout.pack`
(the job's expected ``tuser``) and :meth:`TuserLayout.layout` (the bit positions the ingress decodes
and the egress rebuilds), so a mistake in that layout is invisible to a co-simulation that uses it on
both sides. This module re-derives the word from the table in
docs/axis-ports.md, "tuser layout", and imports nothing from :mod:`radixnet.hdl`:

======================  =========  =========================================================
bits                    field      meaning
======================  =========  =========================================================
``[15:0]``              ``len``    packet length in bytes
``[23:16]``             ``src``    source port (``binary``: its low 8 bits)
``[31:24]``             ``dst``    destination port (``binary``: its low 8 bits)
``[32+h-1:32]``         ``src_hi`` ``binary`` only, ``h > 0``: the high ``h`` bits of ``src``
``[32+2h-1:32+h]``      ``dst_hi`` idem for ``dst``
``[127:32+2h]``         ``user``   user-defined
======================  =========  =========================================================

* ``onehot`` (NetFPGA, ``T <= 8``): terminal ``i`` is bit ``i`` of the 8-bit port field; ``h = 0``.
* ``binary`` (the default for ``T > 8``): terminal ``i`` is the number ``i`` in
  ``p = max(8, ptr_width(T))`` bits (``ptr_width(T)`` = bits of an index over ``T`` values,
  ``ceil(log2 T)``, at least 1); the low 8 bits go in the NetFPGA port field, the ``h = p - 8``
  high bits in ``src_hi``/``dst_hi``. ``T <= 2**56`` fits (``32 + 2h <= 128``).

:func:`encode_tuser` is what ``cosim/tb_axis.py`` drives and expects; ``tests/test_independent_refs.py``
holds it against ``TuserLayout.pack``/``unpack``/``layout``.

Examples
--------
The worked example of docs/axis-ports.md (``T = 1000``: 10-bit ports, two high bits each):

>>> hex(encode_tuser(1000, "binary", length=1500, src=999, dst=513))
'0xb01e705dc'
>>> decode_tuser(1000, "binary", 0xb01e705dc)
{'len': 1500, 'src': 999, 'dst': 513, 'user': 0}
>>> hex(encode_tuser(8, "onehot", length=64, src=0, dst=7))      # 0x01 = terminal 0, 0x80 = terminal 7
'0x80010040'
"""

from __future__ import annotations

__all__ = ["TUSER_BITS", "ENCODINGS", "default_encoding", "high_bits", "user_bits_available", "encode_tuser",
           "decode_tuser"]

#: width of ``*_axis_tuser``
TUSER_BITS = 128
#: the port encodings the document defines
ENCODINGS = ("onehot", "binary")


def default_encoding(n_terminals: int) -> str:
    """``"onehot"`` for ``T <= 8`` (NetFPGA), ``"binary"`` above."""
    return "onehot" if n_terminals <= 8 else "binary"


def high_bits(n_terminals: int, encoding: str) -> int:
    """``h``: the width of ``src_hi`` and of ``dst_hi`` (0 when there are none).

    Raises
    ------
    ValueError
        An encoding the document does not define, one-hot ports for more than 8 terminals, or
        binary ports that do not fit the 128-bit word.
    """
    if not isinstance(n_terminals, int) or isinstance(n_terminals, bool) or n_terminals < 1:
        raise ValueError(f"n_terminals must be an int >= 1, got {n_terminals!r}")
    if encoding == "onehot":
        if n_terminals > 8:
            raise ValueError(f"one-hot ports name at most 8 terminals, got {n_terminals}")
        return 0
    if encoding != "binary":
        raise ValueError(f"encoding must be one of {ENCODINGS}, got {encoding!r}")
    p = max(8, max(1, (n_terminals - 1).bit_length()))
    h = p - 8
    if 32 + 2 * h > TUSER_BITS:
        raise ValueError(f"binary ports of {p} bits do not fit the {TUSER_BITS}-bit tuser (T <= 2**56)")
    return h


def user_bits_available(n_terminals: int, encoding: str) -> int:
    """Width of the ``user`` field, ``[127:32+2h]`` (0 when ``32 + 2h = 128``)."""
    return TUSER_BITS - 32 - 2 * high_bits(n_terminals, encoding)


def _port(n_terminals: int, encoding: str, name: str, i: int) -> tuple[int, int]:
    """(value of the 8-bit NetFPGA field, value of the ``*_hi`` field) naming terminal ``i``."""
    if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < n_terminals:
        raise ValueError(f"{name} must be a terminal index in [0, {n_terminals}), got {i!r}")
    if encoding == "onehot":
        return 1 << i, 0
    return i % 256, i // 256


def encode_tuser(n_terminals: int, encoding: str, *, length: int, src: int, dst: int, user: int = 0) -> int:
    """The 128-bit ``tuser`` of a packet of ``length`` bytes from terminal ``src`` to ``dst``.

    Parameters
    ----------
    n_terminals : int
        ``T``, the ports ``src``/``dst`` can name.
    encoding : {"onehot", "binary"}
        The port encoding (:func:`default_encoding` gives the document's default).
    length : int
        Bytes, ``0 <= length < 2**16`` (a real packet has ``length >= 1``; the ingress flags 0).
    src, dst : int
        Terminal indices in ``[0, T)``.
    user : int
        The user-defined field, ``0 <= user < 2**user_bits_available(T, encoding)``.

    Returns
    -------
    int
        The word, bit 0 = ``tuser[0]``.
    """
    h = high_bits(n_terminals, encoding)
    if not isinstance(length, int) or isinstance(length, bool) or not 0 <= length < 1 << 16:
        raise ValueError(f"length must be an int in [0, 2**16), got {length!r}")
    uw = TUSER_BITS - 32 - 2 * h
    if not isinstance(user, int) or isinstance(user, bool) or not 0 <= user < 1 << uw:
        raise ValueError(f"user must be an int in [0, 2**{uw}), got {user!r}")
    s8, s_hi = _port(n_terminals, encoding, "src", src)
    d8, d_hi = _port(n_terminals, encoding, "dst", dst)
    word = 0
    for value, lsb, width in ((length, 0, 16), (s8, 16, 8), (d8, 24, 8), (s_hi, 32, h), (d_hi, 32 + h, h),
                              (user, 32 + 2 * h, uw)):
        assert 0 <= value < 1 << width      # each field fits its bits (checked above)
        word |= value << lsb
    return word


def decode_tuser(n_terminals: int, encoding: str, word: int) -> dict[str, int]:
    """Inverse of :func:`encode_tuser`: ``{"len", "src", "dst", "user"}`` with ports as terminal indices.

    Raises
    ------
    ValueError
        A port field that names no terminal (not exactly one bit of the ``T`` low bits in one-hot;
        ``>= T`` in binary), or a word wider than 128 bits.
    """
    h = high_bits(n_terminals, encoding)
    if not isinstance(word, int) or not 0 <= word < 1 << TUSER_BITS:
        raise ValueError(f"word must be a {TUSER_BITS}-bit unsigned int, got {word!r}")

    def bits(lsb: int, width: int) -> int:
        return (word >> lsb) & ((1 << width) - 1)

    out = {"len": bits(0, 16)}
    for name, lsb, hi_lsb in (("src", 16, 32), ("dst", 24, 32 + h)):
        raw = bits(lsb, 8)
        if encoding == "onehot":
            if [raw == 1 << i for i in range(n_terminals)].count(True) != 1:
                raise ValueError(f"{name} field {raw:#04x} is not one-hot over {n_terminals} ports")
            out[name] = raw.bit_length() - 1
        else:
            port = raw + (bits(hi_lsb, h) << 8)
            if port >= n_terminals:
                raise ValueError(f"{name} port {port} >= {n_terminals}")
            out[name] = port
    out["user"] = bits(32 + 2 * h, TUSER_BITS - 32 - 2 * h)
    return out
