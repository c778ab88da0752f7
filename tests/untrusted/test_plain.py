"""The plain-data boundary: what may cross from student code to the grader, and how."""

from __future__ import annotations

import io
import json
import math
import struct

import numpy as np
import pytest

from autograder.untrusted import plain
from tests.support.wire import roundtrip


class _LyingArray(np.ndarray):
    """Compares equal to everything and refuses every conversion method."""

    def __eq__(self, other):
        return True

    def __array__(self, *args, **kwargs):
        raise AssertionError("__array__ must not be called")

    def view(self, *args, **kwargs):
        raise AssertionError("subclass view must not be called")

    def copy(self, *args, **kwargs):
        raise AssertionError("subclass copy must not be called")


@pytest.mark.parametrize(
    "value",
    [None, True, False, 0, -7, 2**100, 1.5, -0.0, "text", "", [], (), {}, [1, (2.0, "x")], {"a": {"b": [None]}}],
)
def test_python_values_roundtrip_exactly(value):
    back = roundtrip(value)
    assert back == value
    assert type(back) is type(value)


@pytest.mark.parametrize("special", [math.inf, -math.inf])
def test_infinities_roundtrip(special):
    assert roundtrip(special) == special


def test_nan_roundtrips_as_nan():
    assert math.isnan(roundtrip(float("nan")))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int64, np.uint16, np.bool_, np.complex128])
def test_arrays_keep_dtype_shape_and_values(dtype):
    original = (np.arange(24).reshape(2, 3, 4) % 5).astype(dtype)
    back = roundtrip(original)
    assert type(back) is np.ndarray
    assert back.dtype == original.dtype and back.shape == original.shape
    np.testing.assert_array_equal(back, original)
    assert not np.shares_memory(back, original)


def test_non_contiguous_and_nan_arrays_roundtrip():
    original = np.arange(30.0).reshape(5, 6)[::2, ::-1].copy()
    original[0, 0] = np.nan
    original[1, 1] = -np.inf
    back = roundtrip(original[:, ::2])
    np.testing.assert_array_equal(back, original[:, ::2])


def test_numpy_scalars_become_zero_d_arrays_with_their_dtype():
    back = roundtrip({"a": np.float32(1.5), "b": np.int64(3), "c": np.bool_(True)})
    assert back["a"].shape == () and back["a"].dtype == np.float32 and float(back["a"]) == 1.5
    assert back["b"].dtype == np.int64 and int(back["b"]) == 3
    assert back["c"].dtype == np.bool_


def test_subclass_is_converted_to_its_data_without_calling_its_methods():
    lying = np.zeros((2, 3)).view(_LyingArray)
    back = roundtrip(lying)
    assert type(back) is np.ndarray
    assert not np.array_equal(back, np.ones((2, 3)))  # the real data, not the lie
    np.testing.assert_array_equal(back, np.zeros((2, 3)))


def test_masked_array_is_reduced_to_its_data():
    back = roundtrip(np.ma.masked_array([1.0, 2.0], mask=[True, False]))
    assert type(back) is np.ndarray


class _MyInt(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


class _MyList(list):
    pass


@pytest.mark.parametrize(
    "value",
    [
        object(),
        _MyInt(3),
        _MyList([1]),
        {1: "non-str key"},
        np.array([object()], dtype=object),
        np.array(["a", "b"]),
        np.zeros(2, dtype=[("x", "f8")]),
        np.array(["2020-01-01"], dtype="datetime64[D]"),
        2**300,
        "x" * (plain.MAX_STR_CHARS + 1),
        1j,
        {"a": {1, 2}},
        lambda: None,
    ],
    ids=lambda v: type(v).__name__,
)
def test_non_plain_values_are_rejected(value):
    with pytest.raises(plain.PlainDataError):
        plain.encode(value)


def test_deep_and_cyclic_values_are_rejected():
    deep: list = []
    cursor = deep
    for _ in range(plain.MAX_DEPTH + 2):
        cursor.append([])
        cursor = cursor[0]
    with pytest.raises(plain.PlainDataError):
        plain.encode(deep)
    cyclic: list = []
    cyclic.append(cyclic)
    with pytest.raises(plain.PlainDataError):
        plain.encode(cyclic)


def test_too_many_items_are_rejected():
    with pytest.raises(plain.PlainDataError):
        plain.encode(list(range(plain.MAX_ITEMS + 1)))


def test_readonly_decode_cannot_be_made_writable():
    back = roundtrip({"x": np.arange(6.0).reshape(2, 3)}, readonly=True)["x"]
    assert not back.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        back[0, 0] = 1.0
    with pytest.raises(ValueError):
        back.setflags(write=True)
    np.testing.assert_array_equal(back, np.arange(6.0).reshape(2, 3))


def _crafted(layouts: list, blob: bytes, tree: object = None) -> bytes:
    """A message a hostile worker could write by hand."""
    header = json.dumps({"tree": {"$array": 0} if tree is None else tree, "arrays": layouts})
    return plain.MAGIC + struct.pack(">I", len(header)) + header.encode() + blob


def test_decode_rejects_garbage_and_pickled_arrays():
    with pytest.raises(plain.PlainDataError):
        plain.decode(b"not plain")
    with pytest.raises(plain.PlainDataError):
        plain.decode("a str, not bytes")  # type: ignore[arg-type]
    # An object-dtype (pickled) array, as an .npy file: not plain whatever it claims to be.
    buffer = io.BytesIO()
    np.save(buffer, np.array([{"evil": 1}], dtype=object), allow_pickle=True)
    blob = buffer.getvalue()
    for code in ("|O", "O", "|V8", "<U1", "|S8", "<M8[s]", "<m8[s]"):
        with pytest.raises(plain.PlainDataError):
            plain.decode(_crafted([[code, [1]], ], blob[:8]))
    with pytest.raises(plain.PlainDataError):
        plain.decode(_crafted([["<f8", [1]]], blob))  # the size does not match the shape


@pytest.mark.parametrize(
    "layout, size",
    [
        (["(2,)f8", [1]], 16),          # a sub-array dtype
        (["f8,f8", [1]], 16),           # a structured dtype
        (["<f8", [-1]], 8),             # a negative dimension
        (["<f8", [1.5]], 8),            # not an integer
        (["<f8", [True]], 8),           # a Boolean is not a dimension
        (["<f8", [1] * 40], 8),         # too many dimensions
        (["<f8", [2**40, 2**40]], 8),   # larger than the limit, however little is sent
        (["<f8", [2]], 8),              # shorter than its shape
        (["<f8"], 8),                   # no shape
        (["not-a-dtype", [1]], 8),
        (["<f8" * 10, [1]], 8),         # an overlong dtype string
        ([5, [1]], 8),
        ("<f8", 8),
    ],
)
def test_decode_rejects_a_crafted_array_layout(layout, size):
    with pytest.raises(plain.PlainDataError):
        plain.decode(_crafted([layout], b"\0" * size))


def test_decode_rejects_trailing_bytes_and_bad_references():
    good = _crafted([["<f8", [1]]], b"\0" * 8)
    assert plain.decode(good).shape == (1,)
    with pytest.raises(plain.PlainDataError):
        plain.decode(good + b"\0")
    with pytest.raises(plain.PlainDataError):
        plain.decode(_crafted([["<f8", [1]]], b"\0" * 8, tree={"$array": 1}))
    with pytest.raises(plain.PlainDataError):
        plain.decode(_crafted("nope", b""))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "tree",
    [
        {"$list": "abc"},               # a string would be iterated into ['a', 'b', 'c']
        {"$tuple": "abc"},
        {"$list": {"a": 1}},            # a dict would be iterated into its keys
        {"$list": 3},
        {"$dict": ["a", 1]},            # a malformed dict (was an AttributeError)
        {"$dict": "ab"},
        {"$dict": None},
        {"$list": [{"$dict": 5}]},      # ... at any depth
        {"$float": ["nan"]},
        {"$array": True},
        {"$what": []},
        2**300,                         # wider than an encoder ever writes
        {"$list": [], "$tuple": []},
    ],
)
def test_decode_checks_container_types(tree):
    with pytest.raises(plain.PlainDataError):
        plain.decode(_crafted([], b"", tree=tree))


def test_decode_of_a_short_message_is_the_decoders_own_error():
    for data in (plain.MAGIC, plain.MAGIC + b"\0\0", plain.MAGIC + b"\0\0\0\x09{}"):
        with pytest.raises(plain.PlainDataError):
            plain.decode(data)


def test_well_formed_containers_still_decode():
    tree = {"$dict": {"l": {"$list": ["abc", 1]}, "t": {"$tuple": []}, "d": {"$dict": {}}}}
    assert plain.decode(_crafted([], b"", tree=tree)) == {"l": ["abc", 1], "t": (), "d": {}}


@pytest.mark.parametrize("readonly", [False, True])
def test_a_boolean_byte_other_than_0_or_1_arrives_as_true(readonly):
    back = plain.decode(_crafted([["|b1", [3]]], bytes([0, 1, 7])), readonly=readonly)
    assert back.dtype == np.bool_
    assert back.tolist() == [False, True, True]
    assert back.view(np.uint8).tolist() == [0, 1, 1]
    assert back.flags.writeable is not readonly


def test_arrays_keep_dtype_byte_order_and_shape_and_come_back_owned():
    values = [
        np.arange(6.0).reshape(2, 3).T, np.asfortranarray(np.ones((2, 3))),
        np.arange(3, dtype=">i4"), np.array(2 + 1j), np.zeros((0, 3)), np.float32(2.5),
        np.ones((2, 1), dtype=np.float16), np.array([True, False]),
    ]
    back = roundtrip(values)
    for sent, got in zip(values, back, strict=True):
        sent = np.asarray(sent)
        assert got.dtype == sent.dtype and got.shape == sent.shape
        np.testing.assert_array_equal(got, sent)
        assert got.flags.writeable and got.base is None and type(got) is np.ndarray


def test_encoding_is_deterministic():
    value = {"w": np.linspace(0, 1, 7), "n": [1, 2.5, None], "t": ("a", np.float32(2))}
    assert plain.encode(value) == plain.encode(value)
