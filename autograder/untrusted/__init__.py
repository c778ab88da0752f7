"""Everything that runs beside student code: the zygote, the worker, isolation, the wire format.

This is the untrusted side of the trust boundary. A submission can monkeypatch
anything loaded here, so nothing here may import anything trusted (the
reference, the checks, the grading logic, the evidence verifier, the
gradebook): ``tests/untrusted/test_boundary.py`` checks the imports of every module and
what a real forked worker has loaded. Whatever comes back from here is
untrusted plain data (``plain``) in messages both sides decode strictly (``messages``);
errors cross as records in them, their kinds spelled once (``errors.ErrorKind``).

The trusted side drives it through ``autograder.sandbox``. This file stays
empty so the zygote imports nothing it does not need.
"""
