"""A study's scored claim: what the paper states, what radixnet computed, and whether it holds.

>>> claim("VAL saturates at half of capacity", 0.5, True)
{'claim': 'VAL saturates at half of capacity', 'computed': 0.5, 'holds': True}
>>> claim("25 % cheaper than the dragonfly", 15.7, False, paper="25 %")["paper"]
'25 %'
"""

from __future__ import annotations

from typing import Any

__all__ = ["claim"]


def claim(text: str, value: Any, holds: bool, paper: Any = None) -> dict[str, Any]:
    """One claim of a study: ``text`` (the paper's statement), ``value`` (what radixnet computed), ``holds``, and
    with ``paper`` the paper's own number beside it."""
    c = {"claim": text, "computed": value, "holds": bool(holds)}
    if paper is not None:
        c["paper"] = paper
    return c
