"""The solver's compiled kernels: built ahead of time by the install, or compiled on first use.

The kernels (`search._kernels`, `combine._kernels`, `combine._payonce_kernels`,
`graph._track_kernels`, `io._scan_kernels`) are plain Python functions over flat arrays, marked
`kernel`. They run compiled, one of two ways, chosen once per process:

- **Ahead of time** (``aot``): the extension module `hexrail_kernels`, which ``pip install``
  builds from the same source with numba's ``pycc`` (`build`; `setup.py` calls it). Importing
  it needs neither numba nor a compiler: a solve process starts in a fraction of a second and
  the first run ever compiles nothing. It is used only when it was built from this very source
  (`source_key`: the kernels and `KERNEL_TYPES`) on this kind of processor (`cpu_key`: it is
  compiled for the processor it is built on), and a call goes to it only when its arguments
  have the types it was built for (a generated check per entry, `_entry`): the compiled code
  reads memory as those types, so a mismatch would crash or be wrong rather than fail.
- **Just in time** (``jit``): numba's ``njit`` with its disk cache, as the kernels are written.
  Used when the module is missing (an install that could not build it), stale (a changed
  source), built for another processor, or when a call brings other types: then the whole process switches (`_to_jit`), so
  kernels calling kernels always meet compiled callees.

``HEXRAIL_KERNELS=jit`` forces the second (the build does, and the tests that compare both);
``HEXRAIL_KERNELS=aot`` makes a missing or stale module an error rather than a silent
fall-back. `status` says which is in use; `misses` counts the calls that fell back.

The first compile on a machine with no built module (or after a change) takes a minute or
more; the command line says so before its first solve (`first_run_notice`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import logging
import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger("hexrail")

AOT_MODULE = "hexrail_kernels"
KERNEL_MODULES = ("hexrail.graph._track_kernels", "hexrail.search._kernels",
                  "hexrail.combine._kernels", "hexrail.combine._payonce_kernels",
                  "hexrail.io._scan_kernels")
# every entry point called from Python, with the argument and result types it is built for
# (`spec_of` describes the notation); `python -m hexrail.compiled types` rewrites it
KERNEL_TYPES = Path(__file__).with_name("kernel_types.json")
JIT_OPTIONS = {"cache": True, "nogil": True}

NOTICE = ("compiling the solver for this machine, once: the first run takes a minute or two, "
          "later runs start in about a second")

misses: Counter = Counter()  # entry name -> calls whose argument types the module was not built for
_kernels: dict[Callable, tuple[str, dict]] = {}  # py_func -> (its module, njit options)
_state: dict[str, Any] = {}  # "mode": "aot" / "jit"; "module": the loaded extension


# -- the key of a source -----------------------------------------------------------------------


def source_key() -> int:
    """A 63-bit digest of the kernels' source and `KERNEL_TYPES`: what a built module must match."""
    digest = hashlib.sha256()
    root = Path(__file__).parent
    for name in KERNEL_MODULES:
        digest.update((root / (name.split(".", 1)[1].replace(".", "/") + ".py")).read_bytes())
    digest.update(KERNEL_TYPES.read_bytes())
    return int.from_bytes(digest.digest()[:8], "little") & (2**63 - 1)


def cpu_key() -> int:
    """A 63-bit digest of this processor's instruction-set flags (the first ``flags`` line of
    Linux's /proc/cpuinfo), or 0 where they cannot be read: a module built for the processor
    it was built on runs only where this matches."""
    try:
        with open("/proc/cpuinfo") as info:
            line = next((line for line in info if line.startswith(("flags", "Features"))), "")
    except OSError:
        line = ""
    if not line:
        return 0
    return int.from_bytes(hashlib.sha256(line.encode()).digest()[:8], "little") & (2**63 - 1)


def _load_module() -> Any:
    """The built extension when it matches this source and processor, else None (with the
    reason logged)."""
    try:
        module = importlib.import_module(AOT_MODULE)
    except ImportError:
        why = "not built"
    else:
        if module.source_key() != source_key():
            why = f"built from another source ({module.__file__})"
        elif module.cpu_key() not in (0, cpu_key()):
            why = f"built for another processor ({module.__file__})"
        else:
            return module
    if os.environ.get("HEXRAIL_KERNELS") == "aot":
        raise RuntimeError(f"HEXRAIL_KERNELS=aot but {AOT_MODULE} is {why}: reinstall hexrail")
    log.debug(f"{AOT_MODULE} is {why}: the kernels compile on first use")
    return None


def _mode() -> str:
    if "mode" not in _state:
        module = None if os.environ.get("HEXRAIL_KERNELS") == "jit" else _load_module()
        _state.update(mode="aot" if module is not None else "jit", module=module)
    return _state["mode"]


def status() -> str:
    """``aot`` (the built module runs the kernels) or ``jit`` (numba compiles them)."""
    return _mode()


# -- the decorator -----------------------------------------------------------------------------


def kernel(fn: Callable | None = None, *, inline: bool = False) -> Any:
    """Mark a compiled kernel (``@kernel``, or ``@kernel(inline=True)`` for a small helper numba
    inlines into its callers). In ``jit`` mode this is numba's ``njit`` (with its disk cache);
    in ``aot`` mode an entry point becomes the built module's function behind its type check,
    and a helper only compiled into others stays a placeholder that switches to ``jit`` if
    ever called from Python."""
    if fn is None:
        return functools.partial(kernel, inline=inline)
    options = dict(JIT_OPTIONS, inline="always") if inline else dict(JIT_OPTIONS)
    _kernels[fn] = (fn.__module__, options)
    if _mode() == "jit":
        import numba

        return numba.njit(**options)(fn)
    name = f"{fn.__module__}.{fn.__name__}"
    compiled = getattr(_state["module"], _export_name(name), None)
    if compiled is None:
        def placeholder(*args: Any) -> Any:
            return _to_jit()[fn](*args)
        stand_in = placeholder
    else:
        stand_in = _entry(name, compiled, fn)
    functools.update_wrapper(stand_in, fn)
    stand_in.py_func = fn  # as numba's dispatchers have it
    return stand_in


def _export_name(name: str) -> str:
    """A kernel's name in the built module (one flat namespace)."""
    return name.removeprefix("hexrail.").replace(".", "__")


def _to_jit() -> dict[Callable, Any]:
    """Switch this process to numba: every kernel becomes its dispatcher, in every module that
    holds it (kernel modules import each other's helpers). Returns py_func -> dispatcher."""
    import numba

    if "dispatchers" not in _state:
        log.warning(f"{AOT_MODULE} does not fit this call: compiling the kernels instead")
        dispatchers = {fn: numba.njit(**options)(fn) for fn, (_, options) in _kernels.items()}
        for module_name in {module for module, _ in _kernels.values()}:
            space = sys.modules[module_name].__dict__
            for key, value in list(space.items()):
                fn = getattr(value, "py_func", None)
                if fn in dispatchers:
                    space[key] = dispatchers[fn]
        _state.update(mode="jit", dispatchers=dispatchers)
    return _state["dispatchers"]


# -- types: the JSON notation, numba's types and the checks ------------------------------------
#
# A spec is a scalar type name ("int64", "float64", "bool"; "none" for no result), an array in
# numba's notation ("int32[::1]": C-contiguous, "int64[:, ::1]", "readonly int32[::1]"), a tuple
# (a list of specs), or a named tuple {"tuple": "module.Class", "of": [specs]}.

_ARRAY = re.compile(r"(readonly )?(\w+)\[(.*)\]$")


def spec_of(numba_type: Any) -> Any:
    """The JSON spec of a numba type (of an argument or result of a compiled kernel)."""
    from numba.core import types

    if isinstance(numba_type, types.Array):
        dims = [":"] * numba_type.ndim
        if numba_type.layout in "CF":
            dims[-1 if numba_type.layout == "C" else 0] = "::1"
        return f"{'' if numba_type.mutable else 'readonly '}{numba_type.dtype}[{', '.join(dims)}]"
    if isinstance(numba_type, types.BaseNamedTuple):
        cls = numba_type.instance_class
        return {"tuple": f"{cls.__module__}.{cls.__qualname__}",
                "of": [spec_of(t) for t in numba_type.types]}
    if isinstance(numba_type, types.BaseTuple):
        return [spec_of(t) for t in numba_type.types]
    if isinstance(numba_type, (types.Integer, types.Float, types.Boolean, types.NoneType)):
        return str(numba_type)
    raise TypeError(f"no spec for the kernel type {numba_type}")


def _array(spec: str) -> tuple[bool, str, int, str] | None:
    """(read-only, dtype, dimensions, layout) of an array spec; None for a scalar's."""
    match = _ARRAY.match(spec)
    if match is None:
        return None
    dims = [d.strip() for d in match[3].split(",")]
    layout = "C" if dims[-1] == "::1" else "F" if dims[0] == "::1" else "A"
    return bool(match[1]), match[2], len(dims), layout


def type_of(spec: Any) -> Any:
    """The numba type of a spec (`spec_of` reversed)."""
    from numba.core import types

    if isinstance(spec, list):
        return types.Tuple([type_of(s) for s in spec])
    if isinstance(spec, dict):
        module, _, cls = spec["tuple"].rpartition(".")
        return types.NamedTuple([type_of(s) for s in spec["of"]],
                                getattr(importlib.import_module(module), cls))
    array = _array(spec)
    if array is None:
        return getattr(types, "boolean" if spec == "bool" else spec)
    readonly, dtype, ndim, layout = array
    return types.Array(type_of(dtype), ndim, layout, readonly=readonly)


def _check_code(spec: Any, var: str, lines: list[str], env: dict) -> None:
    """Append to `lines` the statements that fail (False or an exception) unless `var` has the
    type of `spec` as the built code reads it: an array by its dtype, dimensions and layout
    (the code for contiguous arrays, a quarter faster in the walk than for any strides, reads
    them so); a tuple by its length and members. Scalars convert on the way in."""
    if isinstance(spec, str):
        array = _array(spec)
        if array is None:
            return
        import numpy as np

        _, dtype, ndim, layout = array
        env[f"D_{dtype}"], env["ndarray"] = np.dtype(dtype), np.ndarray
        lines.append(f"if type({var}) is not ndarray or not {var}.dtype == D_{dtype} "
                     f"or {var}.ndim != {ndim}: return False")
        if layout != "A":
            flag = "c_contiguous" if layout == "C" else "f_contiguous"
            lines.append(f"if not {var}.flags.{flag}: return False")
        return
    members = spec if isinstance(spec, list) else spec["of"]
    names = [f"{var}_{i}" for i in range(len(members))]
    lines.append(f"({', '.join(names)},) = {var}")  # ValueError on another length
    for name, member in zip(names, members):
        _check_code(member, name, lines, env)


MEMO = 64  # tuples of arrays known to check out, kept (alive, so their ids stay theirs)


def _checker(args: list) -> Callable[..., bool]:
    """A function of the arguments: do they have the types `args` (specs) say?

    The walk's track and train views come back call after call (each made once per graph or
    train): a tuple argument that passed once, the same object, is not checked again (its
    arrays cannot change type), so a call pays for its fresh tuples only."""
    env: dict = {"seen": {}, "MEMO": MEMO}
    lines: list[str] = []
    params = [f"a{i}" for i in range(len(args))]
    for param, spec in zip(params, args):
        if isinstance(spec, str):
            _check_code(spec, param, lines, env)
            continue
        checks: list[str] = []
        _check_code(spec, param, checks, env)
        lines.append(f"if seen.get(id({param})) is not {param}:")
        lines.extend(f"    {line}" for line in checks)
        lines.append(f"    seen[id({param})] = {param}")
        lines.append("    if len(seen) > MEMO: del seen[next(iter(seen))]")
    body = "\n".join(f"        {line}" for line in lines) or "        pass"
    source = (f"def ok({', '.join(params)}):\n    try:\n{body}\n"
              f"    except (TypeError, ValueError, AttributeError):\n        return False\n"
              f"    return True\n")
    exec(source, env)  # generated once per entry: a straight line of checks, no loop per call
    return env["ok"]


def _entry(name: str, compiled: Callable, fn: Callable) -> Callable:
    """The built module's `compiled` behind the check of its argument types, made on the
    entry's first call (a solve calls about half of the entries; making a check costs 0.5 ms)."""
    check: list[Callable[..., bool]] = []

    def run(*args: Any) -> Any:
        if not check:
            check.append(_checker(_kernel_types()[name]["args"]))
        if check[0](*args):
            return compiled(*args)
        misses[name] += 1
        return _to_jit()[fn](*args)

    return run


@functools.cache
def _kernel_types() -> dict:
    return json.loads(KERNEL_TYPES.read_text())


# -- building the module -----------------------------------------------------------------------


def build(output_dir: str | Path, output_file: str | None = None) -> Path:
    """Compile every entry of `KERNEL_TYPES` into the extension module `AOT_MODULE`, in
    `output_dir` (as `output_file` when given). Runs numba (``pycc``) and the system's C
    compiler; a few minutes. The module records `source_key`, so a later change to the
    kernels retires it."""
    os.environ["HEXRAIL_KERNELS"] = "jit"
    if _state.get("module") is not None:
        raise RuntimeError("build in a process that has not loaded the built kernels")
    _state.update(mode="jit", module=None)
    import warnings

    from numba.core import typing

    with warnings.catch_warnings():  # pycc's pending deprecation: said in the docs, not per build
        warnings.simplefilter("ignore")
        from numba.pycc import CC

    cc = CC(AOT_MODULE)
    # for this very processor, as numba's JIT compiles (the walk is a fifth faster than for the
    # architecture's generic one), where its flags can be read to hold the module to it
    cpu = cpu_key()
    if cpu:
        cc.target_cpu = "host"
    cc.output_dir = str(output_dir)
    if output_file:
        cc.output_file = output_file
    for name, types in _kernel_types().items():
        module, _, function = name.rpartition(".")
        dispatcher = getattr(importlib.import_module(module), function)
        signature = typing.signature(type_of(types["result"]), *map(type_of, types["args"]))
        cc.export(_export_name(name), signature)(dispatcher.py_func)
    space: dict = {}
    for name, value in (("source_key", source_key()), ("cpu_key", cpu)):
        exec(f"def {name}():\n    return {value}\n", space)  # a constant in the code
        cc.export(name, "int64()")(space[name])
    cc.compile()
    return Path(output_dir) / cc.output_file


def collect_types() -> dict:
    """The entry points compiled so far in this (``jit``) process and their types, for
    `KERNEL_TYPES`: run the positions that reach every combiner first."""
    found = {}
    for module_name in KERNEL_MODULES:
        module = importlib.import_module(module_name)
        for attr, value in vars(module).items():
            fn = getattr(value, "py_func", None)
            if fn is None or fn.__module__ != module_name or not hasattr(value, "overloads"):
                continue
            for signature in value.signatures:
                result = value.overloads[signature].signature.return_type
                found[f"{module_name}.{attr}"] = {"args": [spec_of(t) for t in signature],
                                                  "result": spec_of(result)}
    return dict(sorted(found.items()))


# -- what the command line says ----------------------------------------------------------------


def cold() -> bool:
    """True when the next solve compiles: no built module fits, and numba's disk cache holds no
    route walk compiled from this source. False when it cannot tell."""
    if _mode() == "aot":
        return False
    try:
        from hexrail.search._kernels import enumerate_anchors

        # the index numba keeps beside the cached machine code, empty when missing or stale
        return not enumerate_anchors._cache._cache_file._load_index()
    except Exception:  # numba's cache internals moved: say nothing rather than guess
        return False


def first_run_notice() -> None:
    """Log `NOTICE` (a warning: shown unless ``-q``) when the next solve will compile."""
    if cold():
        log.warning(NOTICE)


def main(argv: list[str] | None = None) -> int:
    """``python -m hexrail.compiled build [DIR]``: build the module (by default beside this
    package: in a source checkout, `src`); ``types [POSITIONS.jsonl ...]``: rewrite
    `KERNEL_TYPES` from a run over the bundled examples and the given 18xx.games positions."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["build"]:
        target = Path(args[1]) if len(args) > 1 else Path(__file__).parent.parent
        print(build(target))
        return 0
    if args[:1] == ["types"]:
        os.environ["HEXRAIL_KERNELS"] = "jit"
        _state.update(mode="jit", module=None)
        from hexrail.examples import example_names, example_path
        from hexrail.solve import solve

        for name in example_names():
            solve(example_path(name))
        for path in args[1:]:  # 18xx.games position files, to reach what the examples do not
            from hexrail.io.g18xx.streams import read_positions
            from hexrail.io.g18xx.reader import position_from_18xx

            for _, data in read_positions(path):
                solve(position_from_18xx(data))
        KERNEL_TYPES.write_text(json.dumps(collect_types(), indent=1) + "\n")
        print(KERNEL_TYPES)
        return 0
    print("usage: python -m hexrail.compiled build [DIR] | types [POSITIONS.jsonl ...]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
