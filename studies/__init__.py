"""radixnet.studies: the experiment harness on top of the golden model.

Load sweeps (:mod:`radixnet.studies.sweep`: resumable, in parallel, on a Dask cluster with ``--scheduler``), the
papers' studies and their scored claims (:mod:`radixnet.studies.registry`, :mod:`radixnet.studies.paper`,
:mod:`radixnet.studies.cost`). It depends on :mod:`radixnet.golden` (the simulator) and :mod:`radixnet.gen`;
neither imports it.
"""
