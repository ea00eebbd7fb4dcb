"""Allocator stages of the ``hiradix`` router (router-spec §R11) as components of their own.

:class:`~radixnet.hdl.alloc.ri.InputSelect`: RI's per-input round-robin choice of up to ``S`` eligible
VCs, its pointer moving on selection (§R11.2). :class:`~radixnet.hdl.alloc.go.OutputArbiter`: GO's
per-output round robin over the registered per-input one-hot requests, up to ``S`` grants (§R11.3).
"""

from .go import OutputArbiter
from .ri import InputSelect

__all__ = ["InputSelect", "OutputArbiter"]
