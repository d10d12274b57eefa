"""The install's build step: the solver's kernels compiled ahead of time.

`hexrail.compiled.build` compiles them (numba's pycc and the system's C compiler, about a
minute) into the extension module ``hexrail_kernels``, so that no run of hexrail compiles
anything and a solve process starts without numba. Where that cannot be done (no C compiler, a
numba without pycc) the install goes on without the module, saying so: the kernels then compile
on their first use, as numba does.
"""

import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CompileError


class BuildKernels(build_ext):
    def build_extension(self, ext: Extension) -> None:
        sys.path.insert(0, str(Path(__file__).resolve().parent / "src"))
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.unlink(missing_ok=True)  # a failed build leaves no module of an earlier one
        try:
            from hexrail.compiled import build

            build(target.parent, target.name)
        except Exception as err:  # optional: any failure leaves the kernels to numba's JIT
            raise CompileError(f"{type(err).__name__}: {err}") from err


setup(ext_modules=[Extension("hexrail_kernels", sources=[], optional=True)],
      cmdclass={"build_ext": BuildKernels})
