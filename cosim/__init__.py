"""The co-simulation: the golden model's traffic replayed into the generated RTL, compared hop for hop."""

__all__ = ["DEFAULT_CYCLES", "DEFAULT_LOAD", "DEFAULT_VC_DEPTH"]

#: ``vc_depth`` of a co-simulation that does not give one: small buffers, so output VCs run out of credits and
#: the run exercises backpressure (the router's own default, 32 flits per port, is never filled by a 200-cycle
#: run at moderate load; the vacuity rule of :mod:`radixnet.cosim.hops` refuses such a run). The one place the
#: co-simulation departs from :mod:`radixnet.gen.router_config`'s defaults.
DEFAULT_VC_DEPTH = 2

#: offered load of a co-simulation that does not give one: near saturation, so sources stall and buffers fill
#: (the vacuity rule, :mod:`radixnet.cosim.hops`)
DEFAULT_LOAD = 0.8

#: cycles with packet creation of a co-simulation that does not give them (a cocotb replay runs about 1,000
#: cycles a second)
DEFAULT_CYCLES = 200
