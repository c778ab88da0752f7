"""Bad input: a corpus of unreadable files, each refused with the right code, where and what."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from autograder.bundles.h2_attention.evidence import verify_evidence
from autograder.bundles.h2_attention.evidence.loading import MAX_BYTES, MAX_DEPTH, load_evidence
from autograder.bundles.h2_attention.evidence.report import STATUSES
from tests.support.h2 import SPEC

from .helpers import COHORT, STUDENT, dump


def _with_nan(evidence: dict, literal: float) -> bytes:
    evidence["intervention"]["weights_after"][0][2] = literal
    return json.dumps(evidence, indent=1).encode()  # allow_nan=True: what Python writes by default


def _replace_once(raw: bytes, old: bytes, new: bytes) -> bytes:
    assert raw.count(old) >= 1, old
    return raw.replace(old, new, 1)


# name -> (make(evidence dict, tmp_path) -> path, code, status, pointer or None)
def _corpus() -> dict:
    def file(content_of):
        def make(evidence, tmp_path):
            path = tmp_path / SPEC.evidence_file
            content = content_of(evidence)
            path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
            return path
        return make

    def symlink(evidence, tmp_path):
        target = tmp_path / "real.json"
        target.write_bytes(dump(evidence))
        link = tmp_path / SPEC.evidence_file
        link.symlink_to(target)
        return link

    def fifo(evidence, tmp_path):
        path = tmp_path / SPEC.evidence_file
        os.mkfifo(path)
        return path

    def directory(evidence, tmp_path):
        path = tmp_path / SPEC.evidence_file
        path.mkdir()
        return path

    def sparse_100mb(evidence, tmp_path):
        path = tmp_path / SPEC.evidence_file
        with open(path, "wb") as handle:
            handle.write(b"{")
            handle.truncate(100 * 2**20)
        return path

    def duplicate_nested(evidence):
        raw = json.dumps(evidence)
        return raw.replace('"dtype": "float64",', '"dtype": "float64", "dtype": "float32",', 1)

    return {
        "missing": (lambda e, t: t / "nope.json", "missing", "missing", None),
        "symlink": (symlink, "symlink", "unreadable", None),
        "fifo": (fifo, "not_a_file", "unreadable", None),
        "directory": (directory, "not_a_file", "unreadable", None),
        "100 MB": (sparse_100mb, "too_large", "unreadable", None),
        "1 MiB + 1 byte": (file(lambda e: dump(e) + b" " * (MAX_BYTES + 1 - len(dump(e)))),
                           "too_large", "unreadable", None),
        "empty": (file(lambda e: b""), "empty", "unreadable", None),
        "whitespace only": (file(lambda e: b" \n\t\n"), "empty", "unreadable", None),
        "invalid byte": (file(lambda e: _replace_once(dump(e), b"causal", b"caus\xffl")),
                         "not_utf8", "unreadable", None),
        "latin-1 text": (file(lambda e: _replace_once(dump(e), b"causal", "caus\u00e9".encode("latin-1"))),
                         "not_utf8", "unreadable", None),
        "utf-16 file": (file(lambda e: json.dumps(e).encode("utf-16")), "not_utf8", "unreadable", None),
        "truncated": (file(lambda e: dump(e)[: len(dump(e)) // 2]), "invalid_json", "unreadable", None),
        "trailing garbage": (file(lambda e: dump(e) + b"garbage"), "trailing_data", "unreadable", None),
        "two objects": (file(lambda e: dump(e) + dump(e)), "trailing_data", "unreadable", None),
        "top-level array": (file(lambda e: json.dumps([e])), "not_object", "unreadable", None),
        "top-level string": (file(lambda e: '"attention"'), "not_object", "unreadable", None),
        "top-level null": (file(lambda e: "null"), "not_object", "unreadable", None),
        "duplicate top-level key": (file(lambda e: '{"student_id": "x", ' + json.dumps(e)[1:]),
                                    "duplicate_key", "unreadable", "/student_id"),
        "duplicate nested key": (file(duplicate_nested), "duplicate_key", "unreadable", "/parity/0/dtype"),
        "NaN": (file(lambda e: _with_nan(e, float("nan"))), "non_finite_number", "unreadable",
                "/intervention/weights_after/0/2"),
        "Infinity": (file(lambda e: _with_nan(e, float("inf"))), "non_finite_number", "unreadable",
                     "/intervention/weights_after/0/2"),
        "-Infinity": (file(lambda e: _with_nan(e, float("-inf"))), "non_finite_number", "unreadable",
                      "/intervention/weights_after/0/2"),
        "1e400 overflows": (file(lambda e: _replace_once(dump(e), b'"scale": 0.7071067811865475',
                                                         b'"scale": 1e400')),
                            "non_finite_number", "unreadable", "/hand_example/scale"),
        "5000-digit integer": (file(lambda e: _replace_once(dump(e), b'"index": ', b'"index": ' + b"9" * 5000 + b", \"x\": ")),
                               "number_too_long", "unreadable", "/intervention/index"),
        "100k-deep list": (file(lambda e: "[" * 100_000 + "]" * 100_000), "too_deep", "unreadable", None),
        "deep inside a field": (file(lambda e: json.dumps(dict(e, limitation=[[[[[[[[[[[[[[[[[["x"]]]]]]]]]]]]]]]]]]))),
                                "too_deep", "unreadable", None),
        "python repr": (file(lambda e: repr(e)), "invalid_json", "unreadable", None),
        "comment": (file(lambda e: "// my evidence\n" + json.dumps(e)), "invalid_json", "unreadable", None),
        "trailing comma": (file(lambda e: json.dumps(e)[:-1] + ",}"), "invalid_json", "unreadable", None),
        "unpaired surrogate": (file(lambda e: _replace_once(dump(e), b"causal", b"caus\\ud800l")),
                               "invalid_string", "unreadable", "/limitation"),
        "unterminated string, 1 MiB": (file(lambda e: '"' + '[\\"' * (MAX_BYTES // 4)),
                                       "invalid_json", "unreadable", None),
    }


CORPUS = _corpus()


def test_corpus_is_big_enough():
    assert len(CORPUS) >= 20


@pytest.mark.parametrize("name", list(CORPUS))
def test_bad_file_is_refused_with_a_clear_finding(name, evidence, tmp_path):
    make, code, status, pointer = CORPUS[name]
    path = make(evidence, tmp_path)
    report = verify_evidence(path, student_id=STUDENT, cohort=COHORT)
    assert report.status == status
    assert report.codes()[0] == code, report.findings
    assert all(f.layer == "file" for f in report.findings)
    if pointer is not None:
        assert report.findings[0].pointer == pointer
    assert report.points == {"evidence": 0, "limitation": 0}
    assert not report.needs_review
    message = report.findings[0].message
    assert "Traceback" not in message and len(message) > 30
    json.dumps(report.to_dict(), allow_nan=False)  # the report itself is plain JSON


def test_positions_are_reported(evidence, tmp_path):
    raw = dump(evidence)
    broken = _replace_once(raw, b'"scale":', b'"scale" ')
    line = raw[: raw.index(b'"scale":')].count(b"\n") + 1
    message = load_evidence(broken).findings[0].message
    assert f"line {line}," in message
    bad_byte = load_evidence(_replace_once(raw, b"causal", b"caus\xffl")).findings[0].message
    assert "0xff" in bad_byte and "line" in bad_byte


def test_every_non_finite_number_is_listed(evidence):
    evidence["hand_example"]["weights"][0] = [float("nan")] * 3
    evidence["parity"][1]["max_abs_diff"] = float("inf")
    findings = load_evidence(json.dumps(evidence).encode()).findings
    assert [f.pointer for f in findings] == [
        "/hand_example/weights/0/0", "/hand_example/weights/0/1", "/hand_example/weights/0/2",
        "/parity/1/max_abs_diff",
    ]


def test_large_file_is_not_read(tmp_path, monkeypatch):
    path = tmp_path / "big.json"
    with open(path, "wb") as handle:
        handle.truncate(100 * 2**20)
    opened = []

    def spy(*args, **kwargs):
        opened.append(args)
        raise AssertionError("the file was opened")

    monkeypatch.setattr(os, "open", spy)
    assert load_evidence(path).findings[0].code == "too_large"
    assert opened == []


def test_depth_limit_allows_the_format_and_refuses_just_beyond(evidence):
    nested: object = "x"
    for _ in range(MAX_DEPTH - 1):
        nested = [nested]
    assert load_evidence(json.dumps({"a": nested}).encode()).status == "ok"
    assert load_evidence(json.dumps({"a": [nested]}).encode()).findings[0].code == "too_deep"
    # brackets inside strings do not count
    assert load_evidence(json.dumps({"a": "[" * 1000}).encode()).status == "ok"


def test_bom_and_bytes_input_are_accepted(reference_evidence):
    raw = dump(reference_evidence)
    assert load_evidence(raw).data == reference_evidence
    assert load_evidence(b"\xef\xbb\xbf" + raw).data == reference_evidence


def test_one_bad_file_does_not_stop_a_batch(evidence, write, tmp_path):
    paths = [write("good.json", evidence), write("bad.json", b"[" * 10**5),
             tmp_path / "missing.json", write("nan.json", _with_nan(evidence, float("nan")))]
    statuses = [verify_evidence(p, student_id=STUDENT, cohort=COHORT).status for p in paths]
    assert statuses == ["ok", "unreadable", "missing", "unreadable"]


def test_random_byte_damage_never_raises(reference_evidence):
    raw = bytearray(dump(reference_evidence))
    rng = random.Random(1234)
    for _ in range(150):
        damaged = bytearray(raw)
        for _ in range(rng.randint(1, 5)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        report = verify_evidence(bytes(damaged), student_id=STUDENT, cohort=COHORT)
        assert report.status in STATUSES
        assert "internal_error" not in report.codes(), report.findings


def test_random_value_swaps_never_raise(reference_evidence):
    """Replace one value anywhere with another JSON value: always a report, never a crash."""
    rng = random.Random(99)
    replacements = [None, True, 0, -1, 1e9, 2.5, "", "x", [], {}, [[1.0]], [[True]], [1.0, "a"], {"a": 1}]

    def paths(value, prefix=()):
        yield prefix
        if isinstance(value, dict):
            for key, item in value.items():
                yield from paths(item, (*prefix, key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                yield from paths(item, (*prefix, index))

    all_paths = [p for p in paths(reference_evidence) if p]
    for _ in range(150):
        data = json.loads(json.dumps(reference_evidence))
        where = rng.choice(all_paths)
        node = data
        for step in where[:-1]:
            node = node[step]
        node[where[-1]] = rng.choice(replacements)
        report = verify_evidence(dump(data), student_id=STUDENT, cohort=COHORT)
        assert report.status in ("ok", "invalid"), (where, report.findings)
        assert "internal_error" not in report.codes(), (where, report.findings)


def test_unexpected_failure_becomes_a_finding(monkeypatch, reference_evidence):
    import autograder.bundles.h2_attention.evidence.verify as verify

    def boom(*args, **kwargs):
        raise ZeroDivisionError("bug in the grader")

    monkeypatch.setattr(verify, "consistency_findings", boom)
    report = verify_evidence(dump(reference_evidence))
    assert report.status == "unreadable" and report.needs_review
    assert report.codes() == ["internal_error"]
    assert "ZeroDivisionError" in report.findings[0].message


def test_unreadable_path_objects(tmp_path: Path):
    assert verify_evidence(str(tmp_path / "x.json")).status == "missing"
    assert verify_evidence(tmp_path).codes() == ["not_a_file"]
