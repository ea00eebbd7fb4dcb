"""radixnet.gen: topology families, the Network description and static metrics.

>>> from radixnet.gen import build
>>> build("torus", dims=[4, 4]).num_routers
16
"""

from .family import Family, Knowledge, build, family_names, get_family, register
from .network import Network, NetworkError
from .params import Param, ParamError

__all__ = ["Family", "Knowledge", "Network", "NetworkError", "Param", "ParamError", "build", "family_names",
           "get_family", "register"]
