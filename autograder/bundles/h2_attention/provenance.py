"""Evidence provenance: the submitted functions must reproduce the submitted evidence file.

The evidence verifier (the bundle's ``evidence``) checks a file against the
reference and the student's own inputs, but nothing there ties the file to the
code that was submitted: a file written by the reference, or by a few lines of
torch, verifies although every function is a stub. So the grader rebuilds each
section with the builder the notebook uses (``solutions.evidence``), section by
section, with an ``api`` whose functions are the *student's*, called in the
sandbox through ``Student.call`` (only plain data crosses). A section that the
student's functions do not reproduce loses its points and is flagged for a TA.

What is recomputed: only the sections the verifier awarded points to (a
section it already failed costs nothing more, so an honest file from buggy
code is never charged twice), and never the identity section (it is about the
student id, not the code). The cost is the builder's own calls: at most 9
round trips per submission (hand example 3, masked case 1, parity 4,
intervention 1), fewer when sections already failed or a function gave up; a section
recorded as an error adds the calls up to that error and, when the file's error is the
one the functions raise, a few more to find where the bug lives (at most 4, and 2 per
function that scored 0).

What the student reads: which section was not reproduced, by which function, where
in the file and the file's own number there. Never what the function returned or the
text of what it raised: a function can keep what it saw during the hidden checks and
hand it back here, so only the grader's words and the student's own file are quoted.

Tolerances. The notebook ran in a Jupyter kernel, possibly multi-threaded,
perhaps on another CPU or with other NumPy/torch builds; the sandbox runs the
same code single-threaded. Both therefore agree only up to rounding:

* stated arrays and the scale: ``RTOL``/``ATOL`` = 1e-9, the consistency
  layer's own tolerance. Float64 runs of the same code agree to ~1e-15 here
  (small integer inputs, values below 10), and a difference below 1e-9 cannot
  change any verdict of the verifier, so nothing is gained by a file that is
  only that close to the student's code;
* parity's ``max_abs_diff`` is a difference of two computations in ``dtype``
  (float32 torch may use other kernels and a faster ``exp``): the reproduced
  value may exceed the stated one by at most ``PARITY_ULPS`` units of
  ``dtype``'s epsilon times the size of the values (``max(1, max |V|)``, which
  bounds the context): 256 ulps is ~1.5e-4 in float32 and ~3e-13 in float64,
  far above the few ulps two faithful runs differ by, and far below what a real
  disagreement costs (a wrong scale or mask moves the context by 1e-2 or more).
  The check is one-sided: a file that overstates the difference gains nothing
  (the verifier fails it).

Reproduced is not yet genuine: a function could recognise this student's evidence
inputs (they follow from the student id) and return stored numbers for them only.
Such a function fails its hidden checks, so a section that is reproduced by a
function whose part scored 0 keeps its points but is flagged for review
(``failed_functions``).

NaN and infinities: the evidence cell writes a NaN (or infinity) the student's function
returned as the text "NaN" ("Infinity", "-Infinity"); the verifier fails such a section
(``evidence.non_finite``). It is carried forward like any other section whose
numbers are wrong, when the charged functions compute exactly those numbers, NaN where the
file says NaN. A recorded NaN the functions do not compute (a forged or stale file) is said
to be not reproduced and flagged; one they do compute, with no function charged for it, is
flagged for review (a NaN the hidden checks did not catch).

Errors: a section the evidence cell recorded as ``{"error": ...}`` is rebuilt too. It is
carried forward when the student's functions raise the same error and the function the bug
lives in was charged in its own part and works there at least in part, never for an
unimplemented stub (``raised_sections`` says how). An error the functions
do not raise (a forged or stale file) is said to be not reproduced and flagged, as a NaN.
"""

from __future__ import annotations

import builtins
import math
import time
import warnings
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

import numpy as np

from autograder.grading.student import Student, StudentError
from autograder.untrusted.errors import FAILURES, ErrorKind
from solutions import evidence as builder

from . import no_work, raised_sections
from .evidence import EvidenceReport, Finding
from .evidence.consistency import ATOL, RTOL
from .evidence.non_finite import WORDS, decode_numbers, locate
from .raised_sections import RaisedSection
from .sections import IDENTITY, SECTIONS, STUDENT_FUNCTIONS, TITLES

LAYER = "provenance"
PARITY_ULPS = 256

# Each recomputed section's builder, the functions it calls and the fields it computes
# (with who computed them) are described once, in ``sections``.
ALL_FUNCTIONS = STUDENT_FUNCTIONS
REVIEW = "This section scores 0 for now; a person will check it before your grade is final."
REMEDY = (
    "The numbers in the evidence file must be the ones your submitted functions compute: "
    "if you changed a function after saving the file, re-run the whole notebook (Kernel → "
    f"Restart & Run All) and submit the notebook with the file it writes. {REVIEW}"
)


@dataclass(frozen=True)
class Provenance:
    """Which evidence sections the submitted functions did not reproduce, and why."""

    findings: tuple[Finding, ...] = ()
    checked: tuple[str, ...] = ()  # sections recomputed
    calls: int = 0  # calls into the student's code
    seconds: float = 0.0
    carried: tuple[str, ...] = ()  # failed sections the file holds honestly: carried forward
    # Sections whose recorded NaN, infinity or error the functions do not compute: the
    # verifier's "your function returned NaN here" is not true of them (a finding says why).
    disproved: tuple[str, ...] = ()
    raised: tuple[RaisedSection, ...] = ()  # carried sections the file records as an error

    @property
    def lost(self) -> frozenset[str]:
        """The sections that lose their points."""
        return frozenset(f.check for f in self.findings if f.check and f.severity == "error")

    @property
    def needs_review(self) -> bool:
        """A TA should look: some section was not reproduced (a submission with no work
        is not a question for a person)."""
        return any(f.code != no_work.NO_WORK for f in self.findings)


def _finding(code: str, section: str, pointer: str, message: str,
             severity: str = "error") -> Finding:
    return Finding(code=code, part="evidence", layer=LAYER, pointer=pointer,
                   message=message, severity=severity, check=section)


def _names(functions: tuple[str, ...]) -> str:
    quoted = [f"`{name}`" for name in functions]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def at_stake(report: EvidenceReport) -> list[str]:
    """The recomputed sections the verifier awarded points to (the only ones checked)."""
    return [section for section in SECTIONS if report.checks.get(section, 0) > 0]


def carry_candidates(report: EvidenceReport) -> list[str]:
    """Sections that scored 0 for their numbers alone (consistency findings only: no schema
    error, not an uncomputed section, not another student's inputs)."""
    if report.data is None or "inputs_other_student" in report.codes():
        return []
    candidates = []
    for section in SECTIONS:
        if report.checks.get(section, 0) > 0:
            continue
        own = [f for f in report.findings
               if f.check == section or f.pointer == f"/{section}"
               or f.pointer.startswith(f"/{section}/")]
        if own and all(f.layer == "consistency" and f.code != "section_not_computed"
                       and f.check == section for f in own):
            candidates.append(section)
    return candidates


def error_candidates(report: EvidenceReport) -> list[str]:
    """Sections the evidence cell recorded as ``{"error": ...}`` and that scored 0 for that
    alone (the verifier's one finding; not another student's inputs)."""
    if report.data is None or "inputs_other_student" in report.codes():
        return []
    candidates = []
    for section in SECTIONS:
        value = report.data.get(section)
        if report.checks.get(section, 0) > 0 or not (isinstance(value, dict) and "error" in value):
            continue
        own = [f for f in report.findings
               if f.check == section or f.pointer == f"/{section}"
               or f.pointer.startswith(f"/{section}/")]
        if [f.code for f in own] == ["section_not_computed"] and isinstance(value["error"], str):
            candidates.append(section)
    return candidates


def _owner(data: dict, student_id: str | None, cohort: str | None) -> tuple[str, str | None]:
    """Whose inputs the file must hold: as the verifier's identity check decides it."""
    cohort = cohort or None  # no cohort and an empty one give the same seed
    want_id = str(student_id) if student_id is not None else str(data.get("student_id"))
    return want_id, cohort if cohort is not None else (data.get("cohort") or None)


def check_provenance(
    report: EvidenceReport,
    student: Student,
    *,
    student_id: str | None,
    cohort: str | None = None,
    failed_functions: Collection[str] = (),
    charged_functions: Collection[str] | None = None,
) -> Provenance:
    """Rebuild every section the verifier gave points to with the student's functions
    (``student.call``) and compare it with the file; never raises for the student's doing.

    ``failed_functions``: function parts that scored 0 on the hidden checks; a section
    they reproduce keeps its points but is flagged for review. ``charged_functions``: the
    function parts that lost points or carry a bug of their blocks forward; a failed section
    is carried forward only from such a function (a transfer of a charge, never a gift);
    None: not known, every function counts."""
    if report.data is None:
        return Provenance()
    started = time.monotonic()
    # The identity check is earned by a student who did some work, whatever the sections
    # recorded (``no_work``): an untouched release earns nothing for a typed student id.
    idle = ([_no_work_finding()] if report.checks.get(IDENTITY, 0) > 0
            and no_work.no_work(student.call, failed_functions) else [])
    sections = at_stake(report)
    candidates = carry_candidates(report)
    errors = error_candidates(report)
    if not (sections or candidates or errors):
        return Provenance(tuple(idle), seconds=time.monotonic() - started)
    inputs = builder.evidence_inputs(*_owner(report.data, student_id, cohort))
    calls = 0
    last: list[raised_sections.Call] = []  # the latest call into the student's code

    def counted(name: str, *args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        last[:] = [(name, args, kwargs)]
        return student.call(name, *args, **kwargs)

    def proxy(name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            return counted(name, *args, **kwargs)

        return call

    api = {name: proxy(name) for name in ALL_FUNCTIONS}
    findings = idle
    for section in sections:
        finding = _reproduce(section, report.data[section], api, inputs)
        suspects = [name for name in SECTIONS[section].uses if name in failed_functions]
        if finding is None and suspects:
            finding = _finding("provenance_functions_fail_checks", section, f"/{section}", (
                f"your submitted functions reproduce {TITLES[section]}, but {_names(tuple(suspects))} "
                f"scored 0 on the hidden checks: a person will look at how they compute these "
                f"numbers. The points of this section stand until then."
            ), severity="review")
        if finding is not None:
            findings.append(finding)
    # Error carried forward: a section the verifier failed only because the student's
    # functions compute other numbers keeps its points when the file holds exactly those
    # numbers (the functions' bugs are charged in their own parts, once).
    carried, disproved = [], []
    for section in candidates:
        charged = charged_functions is None or bool(set(SECTIONS[section].uses) & set(charged_functions))
        recorded = locate(report.data, section)  # a NaN or infinity of the student's functions
        if not (charged or recorded):
            continue
        finding = _reproduce(section, report.data[section], api, inputs)
        if finding is None and charged:
            carried.append(section)
        elif finding is not None and recorded is not None:
            findings.append(finding)  # the section scores 0 already: said, not charged again
            disproved.append(section)
        elif finding is None and recorded is not None:
            findings.append(_finding("provenance_non_finite_uncharged", section, recorded.pointer, (
                f"{recorded.returned()}: the grader ran it on your evidence inputs and it does "
                f"return {WORDS[recorded.text]} there, but no function behind {TITLES[section]} "
                "lost points for it in its own part, so nothing carries it forward and this "
                "section scores 0 for now; a person will check it before your grade is final."
            ), severity="review"))
    # Error carried forward: a section recorded as an error keeps its points when the
    # functions raise that error and the function the bug lives in paid for it in its part.
    raised: list[RaisedSection] = []
    for section in errors:
        recorded = report.data[section]["error"]
        if raised_sections.unimplemented(recorded):
            continue  # a stub's section earns nothing, whatever the grader would find
        last.clear()
        error = _raises(section, api, inputs)
        if error is None or not raised_sections.same_error(recorded, error):
            findings.append(_not_raised(section, recorded, error))
            disproved.append(section)
            continue
        name, _, stub = raised_sections.type_of(error)
        if stub or not last:
            continue
        by_cell = not isinstance(error, StudentError)
        if by_cell:  # the evidence cell refused what the functions returned: theirs to pay
            raiser, culprits = last[0][0], SECTIONS[section].uses
        else:
            raiser, culprits = raised_sections.raised_by(counted, last[0], error)
        paying = raised_sections.working(culprits, counted, inputs, charged=charged_functions,
                                         failed=failed_functions)
        if paying:
            carried.append(section)
            raised.append(RaisedSection(
                section, TITLES[section], raiser if not by_cell else paying[0],
                raised_sections.shown_type(name), paying if by_cell else _with(paying, raiser),
                by_cell))
    return Provenance(tuple(findings), tuple(sections), calls, time.monotonic() - started,
                      tuple(carried), tuple(disproved), tuple(raised))


def _with(paying: tuple[str, ...], raiser: str) -> tuple[str, ...]:
    """The functions a note names: those that paid, the raiser first when it is one."""
    return (raiser, *(name for name in paying if name != raiser)) if raiser in paying else paying


def _raises(section: str, api: dict, inputs: dict) -> BaseException | None:
    """What rebuilding ``section`` with the student's functions raises (None: nothing)."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            SECTIONS[section].build(api, inputs)
    except StudentError as error:
        return error
    except Exception as error:  # noqa: BLE001 - the builder on whatever the student returned
        return error
    return None


def _not_raised(section: str, recorded: str, error: BaseException | None) -> Finding:
    """A recorded error the submitted functions do not raise: a forged or stale file."""
    said = raised_sections.shown_type(raised_sections.recorded_type(recorded))
    said = "an error" if said == "an exception" else said
    got = ("they compute it without an error" if error is None
           else "they do not raise that error there")
    return _finding("provenance_error_not_raised", section, f"/{section}", (
        f"your submitted functions do not reproduce {TITLES[section]}: the file says the "
        f"evidence cell stopped with {said} there, but when the grader ran "
        f"{_names(SECTIONS[section].uses)} on your evidence inputs, as the evidence cell does, {got}. "
        f"{REMEDY}"
    ))


def _no_work_finding() -> Finding:
    return Finding(code=no_work.NO_WORK, part="evidence", layer=LAYER, pointer="",
                   check=IDENTITY, message=no_work.MESSAGE)


def stubs_only(data: dict | None) -> bool:
    """Whether every section of a file records a stub's ``NotImplementedError``: all there
    is to go on when no notebook could be run (with one, ``no_work`` asks the functions)."""
    return data is not None and all(
        isinstance(value, dict) and isinstance(value.get("error"), str)
        and raised_sections.unimplemented(value["error"])
        for value in (data.get(name) for name in SECTIONS))


def without_code(report: EvidenceReport) -> Provenance:
    """No notebook could be run: no section the verifier gave points to is reproduced, and
    a file of stubs' errors earns nothing for the student id either."""
    idle = [_no_work_finding()] if (report.checks.get(IDENTITY, 0) > 0
                                    and stubs_only(report.data)) else []
    return Provenance((*idle, *(
        _finding("provenance_no_code", section, f"/{section}", (
            f"no notebook of yours could be run, so the grader could not check that your "
            f"functions produce the numbers of {TITLES[section]}: submit the notebook that "
            f"wrote the file. {REVIEW}"
        ))
        for section in at_stake(report)
    )), tuple(at_stake(report)))


def _reproduce(section: str, stated: Any, api: dict, inputs: dict) -> Finding | None:
    """None when the student's functions reproduce ``stated``, else why not."""
    title, uses = TITLES[section], _names(SECTIONS[section].uses)
    stated = decode_numbers(stated)  # "NaN" in the file: the NaN the function returned
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reproduced = SECTIONS[section].build(api, inputs)
    except StudentError as error:
        return _finding("provenance_function_failed", section, f"/{section}", (
            f"your submitted functions do not reproduce {title}: {_failure(error)} when the "
            f"grader ran {uses} on your evidence inputs, as the evidence cell does, so nothing "
            f"shows that the numbers in the file come from your code. {REMEDY}"
        ))
    except Exception as error:  # noqa: BLE001 - the builder on whatever the student returned
        return _finding("provenance_unusable_output", section, f"/{section}", (
            f"your submitted functions do not reproduce {title}: when the grader ran {uses} on "
            f"your evidence inputs, as the evidence cell does, they returned something the "
            f"evidence cell cannot use (it stopped with {type(error).__name__}). {REMEDY}"
        ))
    if section == "parity":
        return _compare_parity(stated, reproduced, inputs)
    for name, functions in SECTIONS[section].computed_by.items():
        problem = _compare_field(stated[name], reproduced[name])
        if problem is not None:
            where, detail = problem
            return _finding("provenance_mismatch", section, f"/{section}/{name}{where}", (
                f"your submitted functions do not reproduce {title}: the grader ran "
                f"{_names(functions)} on your evidence inputs, as the evidence cell does, and {detail}. "
                f"{REMEDY}"
            ))
    return None


def _failure(error: StudentError) -> str:
    """What went wrong, in the grader's words only: a student's message or exception class
    name could quote anything the function saw before, hidden check inputs included."""
    who = f"`{error.function}`" if error.function in ALL_FUNCTIONS else "your code"
    if error.kind is ErrorKind.RAISED:
        name = error.type_name
        builtin = isinstance(getattr(builtins, name, None), type) and name.isidentifier()
        return f"{who} raised {name if builtin else 'an exception'}"
    return f"{who} {FAILURES.get(error.kind, 'failed')}"


def _compare_field(stated: Any, reproduced: Any) -> tuple[str, str] | None:
    """(pointer suffix, what differs) for the first disagreement, or None."""
    want = np.asarray(stated, dtype=float)
    try:
        got = np.asarray(reproduced, dtype=float)
    except (TypeError, ValueError):
        return "", "got something that is not an array of numbers"
    if got.shape != want.shape:
        return "", f"got an array of another shape than the file's {want.shape}"
    # NaN reproduces NaN (the file records what the function returned), and an infinity
    # the same infinity; at stake, a section holds neither (the verifier failed it).
    bad = ~np.isclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True)
    if not bad.any():
        return None
    gap = np.where(bad, np.nan_to_num(np.abs(got - want), nan=np.inf), -1.0)
    index = np.unravel_index(int(np.argmax(gap)), gap.shape)
    where = "".join(f"/{int(i)}" for i in index)
    detail = (f"got another number than the file's {want[index]:.6g} here"
              if np.isfinite(want[index])
              else f"got something other than the file's {_word(float(want[index]))} here")
    if want.ndim:
        detail += f" ({int(bad.sum())} of {want.size} entries differ by more than rounding)"
    return where, detail


def parity_tolerance(dtype: str, values: Any) -> float:
    """How much more than the stated ``max_abs_diff`` a faithful re-run may find."""
    size = max(1.0, float(np.max(np.abs(np.asarray(values, dtype=float)))))
    return PARITY_ULPS * float(np.finfo(dtype).eps) * size


def _compare_parity(stated: list, reproduced: list, inputs: dict) -> Finding | None:
    values = inputs["masked_case"]["values"]
    ours = {entry["dtype"]: entry for entry in reproduced}
    for index, entry in enumerate(stated):
        again = ours.get(entry["dtype"])
        if again is None:
            continue
        claimed = float(decode_numbers(entry["max_abs_diff"]))
        found = float(again["max_abs_diff"])
        pointer = f"/parity/{index}/max_abs_diff"
        if not math.isfinite(claimed):  # recorded NaN or infinity: exactly that, nothing else
            if _word(found) == _word(claimed):
                continue
            return _finding("provenance_mismatch", "parity", pointer, (
                f"your submitted functions do not reproduce {TITLES['parity']}: in "
                f"{entry['dtype']}, the grader compared your `scaled_dot_product_attention` with "
                f"your `torch_sdpa` on your masked case and did not get the "
                f"{_word(claimed)} the file says. {REMEDY}"
            ))
        if found <= claimed + parity_tolerance(entry["dtype"], values):
            continue
        return _finding("provenance_mismatch", "parity", pointer, (
            f"your submitted functions do not reproduce {TITLES['parity']}: in {entry['dtype']}, "
            f"your `scaled_dot_product_attention` and your `torch_sdpa` differ by more on your "
            f"masked case than the {claimed:.3g} the file says (more than rounding explains). "
            f"{REMEDY}"
        ))
    return None


def _word(number: float) -> str:
    """A non-finite number as a student reads it ("NaN", "infinity"); "a number" otherwise."""
    if math.isnan(number):
        return WORDS["NaN"]
    return "a number" if math.isfinite(number) else WORDS["Infinity" if number > 0 else "-Infinity"]
