"""The Jupyter kernel: one Interpreter per kernel, on ipykernel's wrapper-kernel base.

`lamina kernel install` writes the kernelspec (install.py); Jupyter starts the kernel as
`python -m lamina.kernel -f CONNECTION_FILE` (__main__.py); kernel.py answers the messages
(execute, complete, inspect, is_complete) and display.py turns values and figures into
the MIME bundles a notebook shows. ipykernel is imported only here, never by the language.
"""
from __future__ import annotations

KERNEL_NAME = "lamina"
DISPLAY_NAME = "Lamina"
