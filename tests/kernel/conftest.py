"""The kernelspec, installed once into a temporary folder that Jupyter is pointed at; `kc`, a
client of a real kernel shared by a test module's tests."""
from __future__ import annotations

import os

import pytest
from jupyter_client.manager import start_new_kernel

from lamina.kernel.install import install


@pytest.fixture(scope="session", autouse=True)
def lamina_kernelspec(tmp_path_factory):
    prefix = tmp_path_factory.mktemp("jupyter")
    folder = install(prefix=str(prefix))
    before = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = str(prefix / "share" / "jupyter")
    yield folder
    if before is None:
        os.environ.pop("JUPYTER_PATH", None)
    else:
        os.environ["JUPYTER_PATH"] = before


@pytest.fixture(scope="module")
def kc():
    km, client = start_new_kernel(kernel_name="lamina")
    yield client
    client.stop_channels()
    km.shutdown_kernel(now=True)
