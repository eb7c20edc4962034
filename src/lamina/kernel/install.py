"""`lamina kernel install [--user | --sys-prefix | --prefix DIR]`: write the kernelspec.

The spec runs this Python (`sys.executable -m lamina.kernel`), so the kernel uses the
environment Lamina is installed in whichever Jupyter starts it.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from . import DISPLAY_NAME, KERNEL_NAME

USAGE = "lamina kernel install [--user | --sys-prefix | --prefix DIR] [--name NAME]"


def kernel_json() -> dict:
    return {
        "argv": [sys.executable, "-m", "lamina.kernel", "-f", "{connection_file}"],
        "display_name": DISPLAY_NAME,
        "language": "lamina",
        "interrupt_mode": "signal",
        "metadata": {"debugger": False},
    }


def install(user: bool = True, prefix: str | None = None, name: str = KERNEL_NAME) -> str:
    """Install the kernelspec; return the folder it went to."""
    from jupyter_client.kernelspec import KernelSpecManager
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "kernel.json").write_text(json.dumps(kernel_json(), indent=2) + "\n")
        return KernelSpecManager().install_kernel_spec(tmp, kernel_name=name, user=user and prefix is None,
                                                       prefix=prefix)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="lamina kernel install", usage=USAGE)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="for this user (the default)")
    where.add_argument("--sys-prefix", action="store_true", help="into this Python environment")
    where.add_argument("--prefix", metavar="DIR", help="under DIR/share/jupyter/kernels")
    parser.add_argument("--name", default=KERNEL_NAME, help="the kernelspec's name (default lamina)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code else 0
    try:
        import ipykernel  # noqa: F401
        import jupyter_client  # noqa: F401
    except ImportError:
        print("lamina: the Jupyter kernel needs ipykernel and jupyter_client: "
              "pip install 'lamina[jupyter]'", file=sys.stderr)
        return 2
    prefix = sys.prefix if args.sys_prefix else args.prefix
    try:
        folder = install(user=prefix is None, prefix=prefix, name=args.name)
    except OSError as exc:
        print(f"lamina: cannot install the kernelspec: {exc}", file=sys.stderr)
        return 1
    print(f"Installed the Jupyter kernel '{args.name}' (\"{DISPLAY_NAME}\") in {folder}")
    return 0
