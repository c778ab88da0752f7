"""When each collected submission reached the course, by a record its student cannot write.

A student's own ``nbgrader submit`` writes ``timestamp.txt``, so it proves nothing. At
collect time the TA's side records, per student, a time the student does not control (the
exchange's file system change times, or the LMS's time) in ``receipts/<assignment>.json``
at the course root: outside ``submitted/``, where the student's files land, and nothing
nbgrader copies. Each receipt names the content it was made for (``content_hash``), so a
submission changed afterwards no longer has one. The file is schema-checked when read.

A file saved before the format was renamed (``autograder.legacy_names.RECEIPTS_FORMAT``)
is read as it is; the next save writes the current name.
"""

from __future__ import annotations

import functools
import json
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from jsonschema import Draft202012Validator

from autograder.base.course import parse_time
from autograder.legacy_names import RECEIPTS_FORMAT as LEGACY_FORMAT
from autograder.results.result import write_atomically

RECEIPTS_DIR = "receipts"
FORMAT = "autograder-receipts"
READ_FORMATS = (FORMAT, LEGACY_FORMAT)  # what load accepts; save writes FORMAT
VERSION = 1
SOURCE_EXCHANGE = "exchange"  # nbgrader's exchange, as the file system recorded it
SOURCE_LMS = "lms"  # an LMS download: the TA's --received, or the zip's own file times
MAX_BYTES = 20_000_000  # far above a large course's receipts; a bigger file is not ours

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["format", "version", "assignment", "submissions"],
    "additionalProperties": False,
    "properties": {
        "format": {"enum": list(READ_FORMATS)},
        "version": {"const": VERSION},
        "assignment": {"type": "string", "minLength": 1, "maxLength": 200},
        "submissions": {
            "type": "object",
            "propertyNames": {"minLength": 1, "maxLength": 200},
            "additionalProperties": {
                "type": "object",
                "required": ["source", "received_at", "how", "submission_hash"],
                "additionalProperties": False,
                "properties": {
                    "source": {"enum": [SOURCE_EXCHANGE, SOURCE_LMS]},
                    "received_at": {"type": ["string", "null"], "maxLength": 64},
                    "how": {"type": "string", "minLength": 1, "maxLength": 500},
                    "submission_hash": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                    "detail": {"type": "string", "maxLength": 1000},
                },
            },
        },
    },
}


class ReceiptsError(ValueError):
    """The receipts file exists but is not one we wrote (damaged, edited, another format)."""


@dataclass(frozen=True)
class Receipt:
    """One student's record: where the time comes from, the time (None: it could not be
    established, and ``how`` says why), and the collected content it belongs to.

    ``how`` completes "... at <time>" for a TA and a student: "its files reached the
    exchange", "the TA says the LMS received it"; without a time it is the reason."""

    source: str
    received_at: str | None
    how: str
    submission_hash: str
    detail: str = ""  # for the TA: the inbound folder or the zip it came from

    @property
    def moment(self) -> datetime | None:
        return parse_time(self.received_at) if self.received_at else None


def time_text(moment: datetime) -> str:
    """A receipt's time: UTC, to the microsecond (as nbgrader writes timestamp.txt)."""
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M:%S.%f} UTC"


def path_for(root: Path, assignment: str) -> Path:
    return Path(root) / RECEIPTS_DIR / f"{assignment}.json"


@functools.lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    return Draft202012Validator(SCHEMA)


def _parse(text: str, path: Path, assignment: str) -> dict[str, Receipt]:
    try:
        data = json.loads(text)
    except ValueError:
        raise ReceiptsError(f"{path} is not JSON") from None
    error = next(iter(sorted(_validator().iter_errors(data), key=lambda e: list(e.path))), None)
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "top level"
        raise ReceiptsError(f"{path} is not a receipts file ({where}: {error.message[:200]})")
    if data["assignment"] != assignment:
        raise ReceiptsError(f"{path} is for assignment {data['assignment']!r}, not {assignment!r}")
    receipts = {student: Receipt(**entry) for student, entry in data["submissions"].items()}
    for student, receipt in receipts.items():
        try:
            receipt.moment  # noqa: B018 - a time that does not parse is a damaged file
        except (ValueError, OverflowError):
            raise ReceiptsError(f"{path}: the time of {student!r} is not a time") from None
    return receipts


@functools.lru_cache(maxsize=4)
def _cached(path: str, assignment: str, stamp: tuple[int, int, int]) -> dict[str, Receipt]:
    with open(path, "rb") as handle:
        raw = handle.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        raise ReceiptsError(f"{path} is larger than a receipts file can be")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ReceiptsError(f"{path} is not UTF-8 text") from None
    return _parse(text, Path(path), assignment)


def load(root: Path, assignment: str) -> dict[str, Receipt]:
    """Every receipt of the course root's assignment ({} when none was ever recorded);
    ``ReceiptsError`` when the file is there but damaged. Read once per version of the file
    in a process (a batch asks for every submission)."""
    path = path_for(root, assignment)
    try:
        info = path.stat()
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise ReceiptsError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        return _cached(str(path), assignment, (info.st_mtime_ns, info.st_size, info.st_ino))
    except OSError as error:
        raise ReceiptsError(f"cannot read {path}: {error.strerror or error}") from None


def save(root: Path, assignment: str, receipts: dict[str, Receipt]) -> Path:
    """Write every receipt (atomically; read back through the schema before it replaces
    the old file, so a receipts file we wrote always loads)."""
    path = path_for(root, assignment)
    data = {
        "format": FORMAT, "version": VERSION, "assignment": assignment,
        "submissions": {
            student: {k: v for k, v in asdict(receipt).items() if k != "detail" or v}
            for student, receipt in sorted(receipts.items())
        },
    }
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    _parse(text, path, assignment)
    write_atomically(path, text)
    return path
