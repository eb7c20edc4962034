"""Reading the arrays of a model file (a NumPy .npz archive) without trusting it.

np.load would unpickle nothing (allow_pickle=False), but it returns a bare array for a
.npy file, allocates whatever shape a member's header claims, and its errors speak of
pickles. Here each member is read by hand: its .npy header first, checked (a version
this reads, no Python objects, a float64 or float32 array or the one text header, a size that
matches the bytes the member holds), then its data, with the archive's checksum
verified. Every failure is a `Bad` carrying a sentence about the file.
"""
from __future__ import annotations

import zipfile
from typing import BinaryIO

import numpy as np

NPY_MAGIC = b"\x93NUMPY"
TEXT_MEMBER = "meta"


class Bad(Exception):
    """Why a file is not a readable model file (load_model adds the path)."""


def read_arrays(f: BinaryIO) -> dict[str, np.ndarray]:
    """The arrays of the open file f (seekable), by name."""
    head = f.read(len(NPY_MAGIC))
    f.seek(0)
    if head == NPY_MAGIC:
        raise Bad("it is a single NumPy array (a .npy file), not a .npz archive of a model's arrays")
    if not head.startswith(b"PK"):
        raise Bad("it is not a .npz archive (a zip file of NumPy arrays)")
    try:
        with zipfile.ZipFile(f) as z:
            arrays = {}
            for info in z.infolist():
                key = _key(info.filename)
                if key in arrays:
                    raise Bad(f"it holds the array '{key}' twice")
                with z.open(info) as member:
                    arrays[key] = _member(member, key, info.file_size)
            return arrays
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError) as e:
        raise Bad(f"it is not a readable zip archive ({e})") from None


def _key(filename: str) -> str:
    if not filename.endswith(".npy") or "/" in filename:
        raise Bad(f"it holds '{filename}', which is not a NumPy array (.npy) member")
    return filename[:-4]


def _member(member, key: str, size: int) -> np.ndarray:
    try:
        version = np.lib.format.read_magic(member)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(member)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(member)
        else:
            raise Bad(f"its array '{key}' is in .npy format version {version[0]}.{version[1]}, "
                      f"which a model file never uses")
    except ValueError as e:
        raise Bad(f"its array '{key}' has no valid .npy header ({e})") from None
    if dtype.hasobject:
        raise Bad(f"its array '{key}' holds Python objects, which a model file never does")
    text = key == TEXT_MEMBER
    if text and (dtype.type is not np.str_ or shape != ()):
        raise Bad(f"its '{TEXT_MEMBER}' array is {_what(shape, dtype)}, not the text of a header")
    if not text and dtype.type is not np.float64 and dtype.type is not np.float32:   # either byte order
        raise Bad(f"its array '{key}' is {_what(shape, dtype)}, not float64 or float32 numbers")
    count = int(np.prod(shape, dtype=object))
    expected = count * dtype.itemsize
    if size - member.tell() != expected:
        raise Bad(f"its array '{key}' is damaged: its header says {_what(shape, dtype)} "
                  f"({expected} bytes), but it holds {size - member.tell()} bytes")
    data = member.read(expected)
    if len(data) != expected or member.read(1):
        raise Bad(f"its array '{key}' is damaged: it is shorter or longer than its header says")
    a = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
    return str(a[()]) if text else a.astype(dtype.type)      # native byte order, a fresh copy


def _what(shape: tuple, dtype: np.dtype) -> str:
    dims = "x".join(str(n) for n in shape) or "one value"
    return f"{dims} of {'text' if dtype.type is np.str_ else dtype.name}"
