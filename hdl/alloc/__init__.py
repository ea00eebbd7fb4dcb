"""Allocator stages of the ``hiradix`` and ``subswitch`` routers (router-spec §R11, §R12), each a component.

:class:`~radixnet.hdl.alloc.ri.InputSelect`: RI's per-input round-robin choice of up to ``S`` eligible
VCs, its pointer moving on selection (§R11.2). :class:`~radixnet.hdl.alloc.go.OutputArbiter`: GO's
per-output round robin over the registered per-input one-hot requests, up to ``S`` grants (§R11.3).
:class:`~radixnet.hdl.alloc.chain.OutputChain`: under the decision line, the sequential RI's chain beside GO,
per output the first ``S`` requests in service order admitted (§R11.2a).

The ``subswitch`` model's units (router-spec §R12): :class:`~radixnet.hdl.alloc.sa.SubSwitchAllocator`, one
sub-switch's local ``G × G`` allocator over its row buffers, and :class:`~radixnet.hdl.alloc.column.ColumnArbiter`,
an output's GO over its column buffers.
"""

from .chain import OutputChain
from .column import ColumnArbiter
from .go import OutputArbiter
from .ri import InputSelect
from .sa import SubSwitchAllocator

__all__ = ["ColumnArbiter", "InputSelect", "OutputArbiter", "OutputChain", "SubSwitchAllocator"]
