"""Read a ``results.json`` written before the record had a format (format 1).

Format 1 kept what a message meant inside its words: an evidence pointer before a colon
("/raw_scores: ..."), carried-forward credit as the words "carried forward" first, a
reason to review as a known sentence. This is the one place those words are read, with the
sentences as format 1 wrote them (copied here, so rewording today's messages never changes
how an old file reads). A result read here is shown and published as it was graded; the
next ``autograde`` regrades it (its grading key is an older grader's) and writes format 2.
"""

from __future__ import annotations

import re
from typing import Any

from autograder.results import note_codes
from autograder.results.message import CARRIED_FORWARD

_POINTED = re.compile(r"^(/[\w/~.-]*): (.+)$", re.S)
_CARRIED = re.compile(rf"^{CARRIED_FORWARD}(?: from (?P<from>(?:`\w+`(?: and )?)+))?: (?P<text>.*)$",
                      re.S)
_LEADING_NAME = re.compile(r"^`(\w+)`")
# Format 1's sentences that meant a reason to review or a kind of note, as it wrote them.
_REACHED_OUT_CELL = "a cell of your notebook tried to open a file outside your submission"
_REACHED_OUT_FUNCTION = "one of your functions tried to open a file outside your submission"
_A_PERSON = "a person will check"
_CHECK_THE_TIME = "check when it was submitted"
_NOT_JUDGED = "no due date: lateness not judged"
FORMAT_2 = 2  # what it migrates to (autograder.results.result.FORMAT)


def message(text: str) -> dict[str, Any]:
    """A format-1 part or test message as a format-2 message."""
    pointer = ""
    pointed = _POINTED.match(text)
    if pointed:
        pointer, text = pointed.group(1), pointed.group(2)
    carried = _CARRIED.match(text)
    if carried is None:
        return {"text": text, "pointer": pointer}
    names = re.findall(r"`(\w+)`", carried.group("from") or "")
    return {"text": carried.group("text"), "pointer": pointer, "carried": True,
            "carried_from": names}


def note(text: str) -> dict[str, Any]:
    """A format-1 note (student-facing) as a format-2 message, with its kind."""
    if text.startswith(_REACHED_OUT_CELL):
        return {"text": text, "code": note_codes.REACHED_OUT_CELL, "review": True}
    if text.startswith(_REACHED_OUT_FUNCTION):
        return {"text": text, "code": note_codes.REACHED_OUT_FUNCTION, "review": True}
    if _CHECK_THE_TIME in text:
        return {"text": text, "code": note_codes.TIME_UNCONFIRMED, "review": True}
    named = _LEADING_NAME.match(text)
    return {"text": text, "part": named.group(1) if named else "", "review": _A_PERSON in text}


def ta_note(text: str) -> dict[str, Any]:
    code = note_codes.LATE_NOT_JUDGED if text == _NOT_JUDGED else note_codes.EVIDENCE_FINDING
    return {"text": text, "code": code}


def _test(entry: dict[str, Any], explanations: set[str]) -> dict[str, Any]:
    lines = [line for line in entry.get("output", "").split("\n") if line.strip()]
    return {"name": entry["name"], "part": entry["tags"][0], "score": entry["score"],
            "max_score": entry["max_score"], "status": entry["status"],
            "messages": [message(line) for line in lines if line not in explanations],
            "explanations": [line for line in lines if line in explanations]}


def format_1_record(data: dict[str, Any]) -> dict[str, Any]:
    """The record (format 2, as ``SubmissionResult.record`` writes it) of a format-1
    ``results.json``: its ``extra_data`` with every message, note and test structured."""
    extra = dict(data["extra_data"])
    extra["parts"] = [{**part, "messages": [message(m) for m in part.get("messages", [])]}
                      for part in extra["parts"]]
    words = {part["part"]: set(part.get("explanations", [])) for part in extra["parts"]}
    extra["tests"] = [_test(test, words.get(test["tags"][0], set()))
                      for test in data.get("tests", [])]
    extra["notes"] = [note(text) for text in extra.get("notes", [])]
    extra["ta_notes"] = [ta_note(text) for text in extra.get("ta_notes", [])]
    return {**extra, "format": FORMAT_2}
