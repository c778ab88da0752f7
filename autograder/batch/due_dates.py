"""A due date as a TA types it: a day, a 24-hour time and a zone, or one line saying why not.

A bare day (``2026-12-14``) is refused with a suggestion that keeps the day (``23:59``): read
as midnight it would move the deadline a day earlier and make on-time students late. A time
without a zone is refused too (a course's students live in several zones). Zones may be
``UTC``, an offset (``+01:00``) or a named zone (``Europe/Berlin``, daylight saving included).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

FORMS = ("give the day, a 24-hour time and a zone: '2026-12-14 23:59 UTC', "
         "'2026-12-14 23:59 Europe/Berlin' or '2026-12-14T23:59+01:00'")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
# Due dates outside these years are refused before they are remembered (a year 1 due date was
# written as "1-01-01" and broke every later run of the root).
FIRST_YEAR, LAST_YEAR = 1970, 9998
_NAMED_ZONE = re.compile(r"(?P<time>.*\S)\s+(?P<zone>[A-Za-z_]+(?:/[A-Za-z0-9_+-]+)+)")


class DueDateError(ValueError):
    """Not a due date: the message is one line saying what to type instead."""


def parse_due(text: str) -> datetime:
    """``text`` as an aware UTC time; ``DueDateError`` for a bare day, a missing zone, an
    unknown zone or anything else that is not a time."""
    cleaned = " ".join(text.split())
    named = _NAMED_ZONE.fullmatch(cleaned)
    zone: ZoneInfo | None = None
    if named:
        try:
            zone = ZoneInfo(named["zone"])
        except (ZoneInfoNotFoundError, ValueError):
            raise DueDateError(f"{text!r}: unknown time zone {named['zone']!r}; {FORMS}") from None
        cleaned = named["time"]
    as_utc = cleaned.endswith("UTC")
    bare = cleaned.removesuffix("UTC").strip()
    if _DAY.fullmatch(bare):
        suffix = f" {named['zone']}" if named else " UTC"
        raise DueDateError(f"{text!r} has no time of day (midnight would end the day before "
                           f"it): say which, e.g. '{bare} 23:59{suffix}'")
    try:
        moment = datetime.fromisoformat(bare)
    except ValueError:
        raise DueDateError(f"not a time: {text!r}; {FORMS}") from None
    if zone is not None:
        if moment.tzinfo is not None or as_utc:
            raise DueDateError(f"{text!r} names two zones; {FORMS}")
        moment = moment.replace(tzinfo=zone)
    elif as_utc:
        if moment.tzinfo is not None:
            raise DueDateError(f"{text!r} names two zones; {FORMS}")
        moment = moment.replace(tzinfo=UTC)
    elif moment.tzinfo is None:
        raise DueDateError(f"{text!r} has no time zone: add one, e.g. '{bare} UTC' "
                           "(or your course's zone, e.g. Europe/Berlin)")
    try:
        moment = moment.astimezone(UTC)
    except OverflowError:
        raise DueDateError(f"not a time: {text!r}; {FORMS}") from None
    if not FIRST_YEAR <= moment.year <= LAST_YEAR:  # a typo; and dates near the ends overflow
        raise DueDateError(f"{text!r} is in the year {moment.year}: a due date is between "
                           f"{FIRST_YEAR} and {LAST_YEAR}")
    return moment
