"""The only data format that crosses from student code to the grader: "plain data".

Student code may return anything, including objects whose ``__eq__`` lies or
whose methods run code in the grader. So results are converted to plain data
*before* any check sees them: None, bool, int, float, str, NumPy arrays of
numeric/bool dtype (always a base ``np.ndarray``), and lists, tuples and
str-keyed dicts of these, with bounded size and depth. NumPy scalars become
0-d arrays, so their dtype survives the trip.

Wire format: ``MAGIC``, a 4-byte big-endian header length, a JSON header that
describes the value tree and each array's dtype and shape, then the arrays' raw
C-order bytes. No ``.npy`` files (``np.save``/``np.load`` cost about 50 us per
array, a third of every call to a student function) and nothing that could
unpickle: a dtype is a short string that must name a numeric or Boolean type,
and a blob must have exactly the size its dtype and shape imply. The same bytes
travel through a socket once student code runs in a sandboxed worker process.
"""

from __future__ import annotations

import json
import math
import struct
from typing import Any

import numpy as np

MAGIC = b"PLAIN2\n"
MAX_DIMS = 32
MAX_DTYPE_CHARS = 8
MAX_DEPTH = 32
MAX_ITEMS = 100_000
MAX_STR_CHARS = 100_000
MAX_ARRAY_BYTES = 256 * 2**20
MAX_INT_BITS = 256
_ARRAY_KINDS = frozenset("biufc")  # bool, signed, unsigned, float, complex
_NUMPY_SCALAR_TYPES = frozenset(
    np.dtype(code).type for code in "?bBhHiIlLqQefdgFDG"
) | {np.intp, np.uintp}


class PlainDataError(TypeError):
    """A value is not plain data (or exceeds the size limits) and cannot be sent."""


def encode(value: object) -> bytes:
    """Serialise a plain value; raise ``PlainDataError`` for anything else.

    Types are checked with ``type(x) is ...`` so that no method of a student
    object is called (ndarray subclasses are viewed as base arrays first).
    """
    blobs: list[bytes] = []
    layouts: list[list] = []  # [dtype string, shape] of each blob
    budget = _Budget()
    tree = _to_tree(value, (blobs, layouts), budget, depth=0)
    header = json.dumps({"tree": tree, "arrays": layouts}, allow_nan=False)
    header_bytes = header.encode("utf-8")
    return b"".join([MAGIC, struct.pack(">I", len(header_bytes)), header_bytes, *blobs])


def decode(data: bytes, *, readonly: bool = False) -> Any:
    """Rebuild a value produced by ``encode``; arrays are fresh base ndarrays.

    With ``readonly=True`` every array is a view of an immutable ``bytes``
    buffer, so it cannot be written and its WRITEABLE flag cannot be turned
    back on: the honest way to hand student code inputs it must not modify.
    """
    if type(data) is not bytes or not data.startswith(MAGIC):
        raise PlainDataError("not an encoded plain value")
    start = len(MAGIC)
    if len(data) < start + 4:
        raise PlainDataError("corrupt header: too short")
    (header_len,) = struct.unpack(">I", data[start : start + 4])
    start += 4
    try:
        header = json.loads(data[start : start + header_len].decode("utf-8"))
    except ValueError as err:
        raise PlainDataError(f"corrupt header: {err}") from None
    start += header_len
    layouts = header.get("arrays") if type(header) is dict else None
    if type(layouts) is not list or "tree" not in header:
        raise PlainDataError("corrupt header")
    arrays = []
    for layout in layouts:
        dtype, shape, size = _layout(layout)
        if start + size > len(data):
            raise PlainDataError("an array is shorter than its shape")
        arrays.append(_load_array(data[start : start + size], dtype, shape, readonly=readonly))
        start += size
    if start != len(data):
        raise PlainDataError("trailing bytes after the last array")
    return _from_tree(header["tree"], arrays, depth=0)


def describe_type(value: object) -> str:
    """A short, safe name for the type of ``value`` (for student messages)."""
    kind = type(value)
    module = getattr(kind, "__module__", "") or ""
    name = getattr(kind, "__qualname__", "?")
    if not isinstance(name, str) or not isinstance(module, str):
        return "?"
    short = name if module in ("builtins", "") else f"{module.split('.')[0]}.{name}"
    return short[:80]


class _Budget:
    """Counts items and array bytes so a huge or cyclic value fails fast."""

    def __init__(self) -> None:
        self.items = 0
        self.array_bytes = 0

    def add_item(self) -> None:
        self.items += 1
        if self.items > MAX_ITEMS:
            raise PlainDataError(f"more than {MAX_ITEMS} items")

    def add_array(self, nbytes: int) -> None:
        self.array_bytes += nbytes
        if self.array_bytes > MAX_ARRAY_BYTES:
            raise PlainDataError(f"arrays larger than {MAX_ARRAY_BYTES // 2**20} MiB in total")


def _to_tree(value: object, blobs: tuple[list[bytes], list[list]], budget: _Budget, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise PlainDataError(f"nested deeper than {MAX_DEPTH} levels")
    budget.add_item()
    kind = type(value)
    if value is None or kind is bool:
        return value
    if kind is int:
        if value.bit_length() > MAX_INT_BITS:  # type: ignore[union-attr]
            raise PlainDataError(f"integer wider than {MAX_INT_BITS} bits")
        return value
    if kind is float:
        return value if math.isfinite(value) else {"$float": repr(value)}  # type: ignore[arg-type]
    if kind is str:
        if len(value) > MAX_STR_CHARS:  # type: ignore[arg-type]
            raise PlainDataError(f"string longer than {MAX_STR_CHARS} characters")
        return value
    if kind is list or kind is tuple:
        items = [_to_tree(item, blobs, budget, depth + 1) for item in value]  # type: ignore[attr-defined]
        return {"$list": items} if kind is list else {"$tuple": items}
    if kind is dict:
        out = {}
        for key, item in dict.items(value):  # type: ignore[arg-type]
            if type(key) is not str:
                raise PlainDataError(f"dict key of type {describe_type(key)}; only str keys are plain")
            out[key] = _to_tree(item, blobs, budget, depth + 1)
        return {"$dict": out}
    if kind in _NUMPY_SCALAR_TYPES:
        return _array_ref(np.asarray(value), blobs, budget)
    if issubclass(kind, np.ndarray):
        # type() cannot be faked (isinstance could, via __class__). Base-class view:
        # no method of a subclass (__eq__, __array__, view...) is used.
        base = np.ndarray.view(value, np.ndarray)
        return _array_ref(base, blobs, budget)
    raise PlainDataError(f"a value of type {describe_type(value)} is not plain data")


def _array_ref(
    array: np.ndarray, blobs: tuple[list[bytes], list[list]], budget: _Budget
) -> dict[str, int]:
    dtype = array.dtype
    if dtype.kind not in _ARRAY_KINDS or dtype.hasobject or dtype.fields is not None:
        raise PlainDataError(f"array dtype {dtype} is not numeric or Boolean")
    budget.add_array(array.nbytes)
    data, layouts = blobs
    data.append(np.ndarray.tobytes(array, order="C"))
    layouts.append([dtype.str, list(array.shape)])
    return {"$array": len(data) - 1}


def _layout(layout: object) -> tuple[np.dtype, tuple[int, ...], int]:
    """An array's declared dtype and shape, checked; and its size in bytes."""
    if type(layout) is not list or len(layout) != 2:
        raise PlainDataError("corrupt array layout")
    code, shape = layout
    if type(code) is not str or len(code) > MAX_DTYPE_CHARS:
        raise PlainDataError("corrupt array dtype")
    try:
        dtype = np.dtype(code)
    except (TypeError, ValueError):
        raise PlainDataError(f"unknown array dtype {code[:MAX_DTYPE_CHARS]!r}") from None
    if (
        dtype.kind not in _ARRAY_KINDS or dtype.hasobject or dtype.fields is not None
        or dtype.subdtype is not None
    ):
        raise PlainDataError(f"array dtype {dtype} is not numeric or Boolean")
    if (
        type(shape) is not list or len(shape) > MAX_DIMS
        or any(type(n) is not int or n < 0 for n in shape)
    ):
        raise PlainDataError("corrupt array shape")
    size = math.prod(shape) * dtype.itemsize
    if size > MAX_ARRAY_BYTES:
        raise PlainDataError(f"an array larger than {MAX_ARRAY_BYTES // 2**20} MiB")
    return dtype, tuple(shape), size


def _load_array(
    blob: bytes, dtype: np.dtype, shape: tuple[int, ...], *, readonly: bool
) -> np.ndarray:
    """A fresh base array of the blob (``readonly``: a view of the immutable ``bytes``)."""
    array = np.frombuffer(blob, dtype=dtype).reshape(shape)
    if dtype.kind == "b":  # a byte other than 0 or 1 is not a Boolean NumPy can trust
        array = array.view(np.uint8) != 0
        return np.frombuffer(array.tobytes(), dtype=bool).reshape(shape) if readonly else array
    return array if readonly else array.copy()


def _from_tree(node: Any, arrays: list[np.ndarray], depth: int) -> Any:
    if depth > MAX_DEPTH + 1:
        raise PlainDataError("header nested too deeply")
    if type(node) is int and node.bit_length() > MAX_INT_BITS:
        raise PlainDataError(f"integer wider than {MAX_INT_BITS} bits")
    if node is None or type(node) in (bool, int, float, str):
        return node
    if type(node) is not dict or len(node) != 1:
        raise PlainDataError("corrupt header node")
    ((tag, payload),) = node.items()
    if tag == "$float":
        if payload not in ("nan", "inf", "-inf"):
            raise PlainDataError("corrupt float")
        return float(payload)
    if tag == "$array":
        if type(payload) is not int or not 0 <= payload < len(arrays):
            raise PlainDataError("corrupt array reference")
        return arrays[payload]
    if tag == "$list" or tag == "$tuple":
        if type(payload) is not list:  # a string or a dict would be iterated item by item
            raise PlainDataError(f"corrupt {tag[1:]}: its items are not a JSON array")
        items = [_from_tree(item, arrays, depth + 1) for item in payload]
        return items if tag == "$list" else tuple(items)
    if tag == "$dict":
        if type(payload) is not dict:
            raise PlainDataError("corrupt dict: its items are not a JSON object")
        return {key: _from_tree(item, arrays, depth + 1) for key, item in payload.items()}
    raise PlainDataError(f"unknown header tag {str(tag)[:40]!r}")
