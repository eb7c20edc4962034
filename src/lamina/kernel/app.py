"""Starting the kernel process (Jupyter runs the kernelspec's argv)."""
from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> None:
    # A kernel has no window: figures are drawn headless and shown inline (ipykernel would
    # otherwise pick matplotlib-inline, which needs an IPython shell).
    os.environ["MPLBACKEND"] = "Agg"
    try:
        from ipykernel.kernelapp import IPKernelApp
    except ImportError:
        print("lamina: the Jupyter kernel needs ipykernel: pip install 'lamina[jupyter]'", file=sys.stderr)
        sys.exit(2)
    from .kernel import LaminaKernel
    IPKernelApp.launch_instance(argv=argv, kernel_class=LaminaKernel)
