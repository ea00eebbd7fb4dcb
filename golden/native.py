"""The golden model's compiled functions: numba's JIT, or the same functions compiled ahead of time.

Every compiled function of the golden model (:mod:`~radixnet.golden.kernel`,
:mod:`~radixnet.golden.sources`, :mod:`~radixnet.golden.held`) is declared with :func:`compiled`,
which takes :func:`numba.njit`'s options. ``make setup`` (``make kernels``) runs
:mod:`radixnet.golden.native_build`: a workload under the JIT records the signatures each
function is called with from Python, and ``numba.pycc`` compiles those into one extension module
(``golden/__pycache__/native_kernels*.so``, with ``native_kernels.json`` beside it). A process that
finds that module built from the sources it runs (a hash of the kernel sources, numpy, Python and
the CPU) calls it and never imports numba: a 64-node ``radixnet sim`` takes 0.22 s and 47 MB instead
of 0.85 s and 220 MB (numba with llvmlite, the JIT's loaded machine code and the scipy numba imports).
The machine code is the same LLVM output at the same optimisation for this CPU
(``target_cpu="host"``, no numba runtime, as ``_nrt=False``), and so are the results
(``tests/test_native.py`` compares them bit for bit).

A call whose argument types were not built (a new dtype, layout or group), or a function never
called from Python in the workload, switches the whole process to the JIT: numba is imported, every
function becomes its dispatcher (compiled or loaded from numba's on-disk cache as before), and the
call goes on. A process never mixes the two for lack of a signature; :data:`STATE` says which one
it runs.

``RADIXNET_KERNELS`` chooses: ``auto`` (default: native when built and current, else JIT),
``jit``, or ``native`` (an error when the module is missing or stale, for tests and benchmarks).

Examples
--------
>>> from radixnet.golden import native, held
>>> native.STATE.mode in ("native", "jit")
True
>>> held.within_quota.py_func is not None     # the Python function, in either mode
True
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import platform
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable

import numpy as np

__all__ = ["compiled", "STATE", "State", "Native", "use_jit", "registry", "arg_key", "type_key", "stamp",
           "qualname", "current_meta", "load_native", "SOURCES", "NATIVE_DIR", "NATIVE_NAME", "NATIVE_META",
           "MODE_ENV", "NativeUnavailable", "LOWERING", "no_wraparound", "fix_index_no_wraparound", "jit_dispatcher",
           "BUILD_OPTIONS", "as_python"]

#: The environment variable choosing the kernels: ``auto``, ``jit`` or ``native``.
MODE_ENV = "RADIXNET_KERNELS"
#: Where the built module and its metadata live (next to numba's own cache files, not tracked by git).
NATIVE_DIR = Path(__file__).resolve().parent / "__pycache__"
#: The extension module's name (its ``PyInit_`` symbol).
NATIVE_NAME = "native_kernels"
#: The built module's metadata: its stamp and, per function, the exported signatures.
NATIVE_META = NATIVE_DIR / f"{NATIVE_NAME}.json"
#: The sources whose compiled code the module holds (relative to the repository), hashed into the stamp:
#: every module that declares compiled functions. The routing codes the kernel imports from
#: :mod:`radixnet.gen.routing` are hashed by value (numba freezes a module-level constant into the machine
#: code).
SOURCES = ("golden/kernel.py", "golden/sources.py", "golden/held.py", "golden/tally.py")
#: The version of the argument keys (:func:`arg_key`, :func:`type_key`) that the metadata holds, in the stamp.
KEY_VERSION = 1
#: How the compiled functions are lowered, in the stamp and in numba's cache keys: arrays indexed without
#: wraparound (:func:`no_wraparound`), and ``inline="always"`` done by LLVM (:func:`jit_dispatcher`).
LOWERING = "no-wraparound forceinline"
ROOT = Path(__file__).resolve().parent.parent


class NativeUnavailable(ValueError):
    """``RADIXNET_KERNELS`` is not one of its values, or is ``native`` and the module is not built or not
    built from these sources: raised where the first compiled function is declared (``str()`` is the
    one-line message)."""


class State:
    """Which kernels this process runs: ``mode`` is ``"native"`` or ``"jit"``; ``reason`` says why
    (the module's build, or why it is not used); ``misses`` lists the calls that switched a native
    process to the JIT (function and argument types)."""

    def __init__(self) -> None:
        self.mode = "jit"
        self.reason = ""
        self.module: Any = None
        #: qualified function name -> {argument key: exported function}
        self.exports: dict[str, dict[tuple, Callable]] = {}
        self.misses: list[str] = []
        #: the message of :class:`NativeUnavailable`, raised when a function is declared
        self.error = ""

    def __repr__(self) -> str:
        return f"{self.mode} ({self.reason})" if self.reason else self.mode


#: This process's kernels.
STATE = State()
#: Every function declared with :func:`compiled`, in declaration order.
registry: list["Native | Any"] = []


def hash_files(h, names, paths) -> None:
    """Feed ``h`` each file's name and bytes, in the order given (``names[i]`` labels ``paths[i]``)."""
    for name, path in zip(names, paths):
        h.update(name.encode())
        h.update(Path(path).read_bytes())


def stamp() -> str:
    """The hash a built module must carry to be used: the kernel sources, the routing codes, numpy's and
    Python's versions and the CPU (the code is compiled for this CPU's features)."""
    from ..gen import routing
    h = hashlib.sha256(f"keys {KEY_VERSION} lowering {LOWERING}".encode())
    hash_files(h, SOURCES, [ROOT / rel for rel in SOURCES])
    h.update(repr(sorted((k, v) for k, v in vars(routing).items() if k.isupper() and type(v) is int)).encode())
    h.update(f"numpy {np.__version__} python {sys.version} {platform.machine()}".encode())
    try:
        with open("/proc/cpuinfo", "rb") as f:
            for line in f:
                if line.startswith((b"flags", b"model name", b"vendor_id")):
                    h.update(line)
                elif not line.strip():
                    break   # the first processor's lines are enough
    except OSError:
        h.update(platform.processor().encode())
    return h.hexdigest()


def current_meta() -> tuple[dict | None, str]:
    """The built module's metadata if it carries this tree's :func:`stamp` (else None), and why not."""
    try:
        meta = json.loads(NATIVE_META.read_text())
    except FileNotFoundError:
        return None, "the native module is not built (make kernels)"
    except (OSError, ValueError) as e:
        return None, f"the native module does not load ({type(e).__name__}: {e})"
    if meta.get("stamp") != stamp():
        return None, "the native module was built from other sources (make kernels)"
    return meta, ""


def qualname(fn: Callable) -> str:
    """A compiled function's name in the metadata: ``module.function`` of its Python function."""
    return f"{fn.__module__}.{fn.__name__}"


# ---- argument keys: the same key from a call's arguments and from a numba signature's types


def dtype_key(dt: np.dtype) -> str:
    return f"{dt.kind}{dt.itemsize}"


def arg_key(x: Any) -> Any:
    """The key of one argument, equal to :func:`type_key` of the type numba infers for it (``numba.typeof``:
    dtype, dimensions, layout, read-only and aligned flags of an array; a namedtuple's class and fields)."""
    t = type(x)
    if t is np.ndarray:
        f = x.flags
        return ("A", dtype_key(x.dtype), x.ndim, "C" if f.c_contiguous else "F" if f.f_contiguous else "A",
                not f.writeable, f.aligned)
    if t is bool or t is np.bool_:
        return "b1"
    if t is int:
        return "i8" if -2**63 <= x < 2**63 else "big"
    if t is float:
        return "f8"
    if isinstance(x, np.generic):
        return dtype_key(x.dtype)
    if isinstance(x, tuple):   # keyed at every call (no cache: ~60 us for the cycle kernel's ~150 arrays)
        if hasattr(t, "_fields"):
            return ("N", f"{t.__module__}.{t.__qualname__}", tuple(map(arg_key, x)))
        return ("T", tuple(map(arg_key, x)))
    return ("?", t.__name__)


def type_key(ty: Any) -> Any:
    """The key of a numba type (build side of :func:`arg_key`); None for a type the native module does not
    take."""
    from numba.core import types
    from numba.np.numpy_support import as_dtype
    if isinstance(ty, types.Boolean):
        return "b1"
    if isinstance(ty, (types.Integer, types.Float)):
        return dtype_key(as_dtype(ty))
    if isinstance(ty, types.Array):
        if isinstance(ty.dtype, (types.Boolean, types.Integer, types.Float)):
            return ("A", dtype_key(as_dtype(ty.dtype)), ty.ndim, ty.layout, not ty.mutable, ty.aligned)
        return None
    if isinstance(ty, types.BaseNamedTuple):
        c = ty.instance_class
        keys = tuple(type_key(e) for e in ty.types)
        return None if None in keys else ("N", f"{c.__module__}.{c.__qualname__}", keys)
    if isinstance(ty, types.BaseTuple):
        keys = tuple(type_key(e) for e in ty.types)
        return None if None in keys else ("T", keys)
    return None


def as_tuples(x: Any) -> Any:
    """A key read back from JSON (lists) as tuples."""
    return tuple(as_tuples(e) for e in x) if isinstance(x, list) else x


# ---- array indexing without negative-index wraparound


def fix_index_no_wraparound(context, builder, idxty, idx, size):
    """numba's ``arrayobj.fix_integer_index`` without the wraparound of negative indices: the index cast
    to ``intp`` (``uintp`` if unsigned), as it is."""
    from numba.core import types
    return context.cast(builder, idx, idxty, types.intp if idxty.signed else types.uintp)


@contextmanager
def no_wraparound():
    """Compile without negative-index wraparound: within this block numba lowers ``a[i, j, k]`` with each
    index as it is, not ``i + (i < 0) * n``.

    Python's ``a[-1]`` costs every access of every array a compare, a select and the dimension's length
    loaded from the stack; the golden model's compiled functions never index with a negative number (they
    test ``>= 0`` where a field holds -1), and without it the kernel runs 15-25% faster
    (``benchmarks/golden_speed.py``). ``tests/test_kernel_bounds.py`` runs the kernel under numba's
    bounds checking, which then refuses any negative index. numba has no option for this, so the block
    swaps numba's own helper for :func:`fix_index_no_wraparound`, holding numba's compiler lock so that no
    other thread compiles meanwhile; on a numba without that helper it changes nothing (the code is then
    as correct and slower)."""
    from numba.core.compiler_lock import global_compiler_lock
    from numba.np import arrayobj
    with global_compiler_lock:
        saved = getattr(arrayobj, "fix_integer_index", None)
        if saved is not None:
            arrayobj.fix_integer_index = fix_index_no_wraparound
        try:
            yield
        finally:
            if saved is not None:
                arrayobj.fix_integer_index = saved


#: numba options every dispatcher of this process gets on top of its own (:func:`jit_dispatcher`): the kernel
#: build sets ``no_cpython_wrapper`` and ``no_cfunc_wrapper`` (the functions it compiles are only called from
#: compiled code there), which its cache entries are keyed by.
BUILD_OPTIONS: dict = {}


def jit_dispatcher(fn: Callable, options: dict) -> Any:
    """numba's dispatcher of ``fn`` (:func:`numba.njit` with ``options``), compiling every signature (and
    the compiled functions it calls or inlines) in :func:`no_wraparound`; its on-disk cache entries carry
    :data:`LOWERING` (and :data:`BUILD_OPTIONS`), so that none compiled otherwise is loaded.
    ``inline="always"`` becomes numba's ``forceinline``: LLVM's ``alwaysinline`` on the function, so that it is
    compiled once and LLVM inlines it into each caller (numba's ``inline="always"`` types a copy of its IR at
    every call site: the cycle kernel's copies made the native build 416 s on a fresh machine; the same
    kernels build in about 100 s this way and run as fast, measured in :mod:`.native_build`)."""
    from numba import njit
    if options.get("inline") == "always":   # LLVM's inlining, not numba's: the module docstring
        options = {**{k: v for k, v in options.items() if k != "inline"}, "forceinline": True}
    options = {**options, **BUILD_OPTIONS}
    d = njit(**options)(fn)
    compile_ = d.compile

    def compile(sig):
        with no_wraparound():
            return compile_(sig)
    d.compile = compile
    # the argument types Python called it with (numba's dispatcher calls _compile_for_args on a miss from
    # Python only; a callee compiled for its caller goes through compile): what the native build exports
    d.py_called = set()
    compile_for_args = d._compile_for_args

    def _compile_for_args(*args, **kws):
        d.py_called.add(tuple(d.typeof_pyval(a) for a in args))
        return compile_for_args(*args, **kws)
    d._compile_for_args = _compile_for_args
    cache = getattr(d, "_cache", None)   # numba's on-disk cache: its entries keyed by the lowering too
    if cache is not None and hasattr(cache, "_index_key"):
        index_key = cache._index_key
        extra = tuple(sorted(BUILD_OPTIONS.items()))
        cache._index_key = lambda sig, codegen: (index_key(sig, codegen), LOWERING, *extra)
    return d


# ---- the two modes


class Native:
    """A compiled function in a native process: calls the exported function built for its argument types
    (:func:`arg_key`), else switches the process to the JIT (:func:`use_jit`) and calls numba's dispatcher.
    ``py_func`` is the Python function, as on a numba dispatcher."""

    def __init__(self, fn: Callable, options: dict) -> None:
        self.py_func = fn
        self.qualname = qualname(fn)
        self.options = options
        self.exports = STATE.exports.get(self.qualname, {})
        self.jit = None
        self.__doc__, self.__name__, self.__module__, self.__wrapped__ = fn.__doc__, fn.__name__, fn.__module__, fn

    def __call__(self, *args):
        if self.jit is None:
            key = tuple(map(arg_key, args))
            f = self.exports.get(key)
            if f is not None:
                return f(*args)
            STATE.misses.append(f"{self.qualname}{key}")
            use_jit(f"no native build of {self.qualname} for these argument types")
        return self.jit(*args)

    def __repr__(self) -> str:
        return f"<compiled {self.qualname} ({STATE.mode})>"


def use_jit(reason: str) -> None:
    """Switch this process to numba's JIT: every :class:`Native` gets its dispatcher, and the modules that
    declare them see the dispatchers, so that compiled code calls compiled code."""
    if STATE.mode == "jit":
        return
    STATE.mode, STATE.reason = "jit", f"switched from native: {reason}"
    for n in registry:
        n.jit = jit_dispatcher(n.py_func, n.options)
    for g, k, v in _declared_globals(registry):
        g[k] = v.jit


def _declared_globals(objects):
    """``(globals, name, value)`` of each global, in the modules that declare compiled functions, whose value
    is one of ``objects`` (by identity)."""
    ids = {id(x) for x in objects}
    for name in {n.py_func.__module__ for n in registry}:
        g = vars(sys.modules[name])
        for k, v in list(g.items()):
            if id(v) in ids:
                yield g, k, v


@contextmanager
def as_python():
    """Within this block every compiled function runs as its Python function, and so does every compiled
    function it calls: the modules that declare them see the ``py_func`` in their place (in either mode).

    For tests that check a kernel's own decisions on states they build (the RTL decision units against the
    golden ``_decide``): such a call has argument types the simulator never passes, and through the native
    module or the JIT it would switch the process to the JIT and compile every kernel (minutes on a cold
    numba cache). Compiled and Python functions compute the same: ``tests/test_native.py`` and the
    co-simulations compare the compiled kernels.

    >>> from radixnet.golden import kernel
    >>> with as_python():
    ...     type(kernel.mix32).__name__
    'function'
    >>> type(kernel.mix32).__name__ != "function"
    True
    """
    # the declared objects, and after a switch to the JIT the dispatchers the modules see instead
    ours = [x for n in registry for x in (n, getattr(n, "jit", None)) if x is not None]
    saved = list(_declared_globals(ours))
    for g, k, v in saved:
        g[k] = v.py_func
    try:
        yield
    finally:
        for g, k, v in saved:
            g[k] = v


def compiled(**options) -> Callable[[Callable], Any]:
    """Declare a compiled function: ``options`` are :func:`numba.njit`'s (``cache``, ``inline``,
    ``_nrt``). Returns numba's dispatcher in a JIT process, a :class:`Native` in a native one."""
    def deco(fn: Callable) -> Any:
        if STATE.error:
            raise NativeUnavailable(STATE.error)
        if STATE.mode == "native":
            out: Any = Native(fn, options)
        else:
            out = jit_dispatcher(fn, options)
        registry.append(out)
        return out
    return deco


def load_native() -> None:
    """Decide this process's mode (at import, before any function is declared)."""
    mode = os.environ.get(MODE_ENV, "auto")
    if mode not in ("auto", "jit", "native"):
        STATE.error = f"{MODE_ENV}={mode!r}: allowed are auto, jit, native"
        return
    if mode == "jit":
        STATE.reason = f"{MODE_ENV}=jit"
        return
    meta, reason = current_meta()
    if meta is not None:
        try:
            path = NATIVE_DIR / meta["file"]
            spec = importlib.util.spec_from_file_location(
                f"{__package__}.{NATIVE_NAME}", path, loader=importlib.machinery.ExtensionFileLoader(
                    f"{__package__}.{NATIVE_NAME}", str(path)))
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            STATE.exports = {q: {as_tuples(k): getattr(mod, e) for k, e in sigs} for q, sigs in meta["exports"].items()}
            STATE.module = mod
            STATE.mode = "native"
            STATE.reason = f"{NATIVE_NAME}, {sum(map(len, STATE.exports.values()))} signatures"
            return
        except (OSError, ValueError, KeyError, AttributeError, ImportError) as e:
            reason = f"the native module does not load ({type(e).__name__}: {e})"
    if mode == "native":
        STATE.error = f"{MODE_ENV}=native: {reason}"
    STATE.reason = reason


load_native()
