"""The kernelspec, installed once into a temporary folder that Jupyter is pointed at."""
from __future__ import annotations

import os

import pytest

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
