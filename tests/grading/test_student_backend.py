"""The in-process student backend: plain data in and out, errors as records."""

from __future__ import annotations

import numpy as np
import pytest

from autograder.grading.student import Student, StudentError
from autograder.untrusted.errors import MESSAGE_LIMIT
from autograder.untrusted.messages import ErrorRecord
from tests.support.in_process import InProcessStudent

SOURCE = '''
import numpy as np

class MyError(ValueError):
    pass

def double(x):
    return np.asarray(x) * 2

def scribble(x):
    x[0] = 99.0
    return x

def force_writable(x):
    x.setflags(write=True)
    x[0] = 99.0
    return x

def boom(message):
    raise MyError(message)

def custom():
    class Thing:
        pass
    return Thing()

def noisy():
    print("hello")
    import warnings
    warnings.warn("careful")
    return 1

def dice():
    return np.random.rand(3)

def leave():
    raise SystemExit(3)
'''


@pytest.fixture(scope="module")
def student():
    return InProcessStudent(SOURCE)


def test_is_a_student(student):
    assert isinstance(student, Student)
    assert student.has("double") and not student.has("np.nope") and not student.has("MISSING")


def test_results_are_plain_base_arrays(student):
    got = student.call("double", [1.0, 2.0])
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, [2.0, 4.0])


def test_arguments_are_copies(student):
    mine = np.zeros(3)
    returned = student.call("scribble", mine)
    assert mine[0] == 0.0
    assert returned[0] == 99.0


def test_readonly_call_blocks_writes_even_after_setflags(student):
    mine = np.zeros(3)
    for name in ("scribble", "force_writable"):
        with pytest.raises(StudentError) as info:
            student.call_readonly(name, mine)
        assert info.value.kind == "raised" and info.value.is_a("ValueError")
    assert mine[0] == 0.0


def test_missing_function(student):
    with pytest.raises(StudentError) as info:
        student.call("does_not_exist")
    assert info.value.kind == "missing"
    assert "does_not_exist" in info.value.describe()


def test_raised_error_keeps_type_bases_and_trimmed_message(student):
    with pytest.raises(StudentError) as info:
        student.call("boom", "x" * 1000)
    err = info.value
    assert err.kind == "raised" and err.type_name == "MyError"
    assert err.is_a("ValueError") and not err.is_a("TypeError")
    assert len(err.message) <= MESSAGE_LIMIT
    record = ErrorRecord.decode(ErrorRecord.of(err).encode())  # as it crosses the boundary
    assert record.to_student_error().signature() == err.signature()


def test_non_plain_result_is_bad_output(student):
    with pytest.raises(StudentError) as info:
        student.call("custom")
    assert info.value.kind == "bad_output"
    assert "Thing" in info.value.message


def test_prints_and_warnings_are_swallowed(student, capsys):
    assert student.call("noisy") == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_calls_are_seeded_identically(student):
    np.testing.assert_array_equal(student.call("dice"), student.call("dice"))


def test_system_exit_is_a_crash_not_an_exit(student):
    with pytest.raises(StudentError) as info:
        student.call("leave")
    assert info.value.kind == "crashed"


def test_a_broken_cell_does_not_hide_later_cells():
    student = InProcessStudent(["def early():\n    return 1\n", "1 / 0\n", "def late():\n    return 2\n"])
    assert student.call("early") == 1 and student.call("late") == 2
    assert [e.type_name for e in student.cell_errors] == ["ZeroDivisionError"]
