"""Flits of the router tests as dicts of the flit layout's fields, and back."""

FIELDS = ("head", "tail", "vc", "dest", "hops", "data")


def pack(lay, f):
    """A flit dict (FIELDS) as the integer of the flit layout."""
    return sum((f[k] & ((1 << lay[k].width) - 1)) << lay[k].offset for k in FIELDS)


def unpack(lay, bits):
    """The integer of the flit layout as a flit dict (FIELDS)."""
    return {k: (bits >> lay[k].offset) & ((1 << lay[k].width) - 1) for k in FIELDS}
