"""A due date as a TA types it: a day, a 24-hour time and a zone, or one line saying why not.

A bare day (``2026-12-14``) is refused with a suggestion that keeps the day (``23:59``): read
as midnight it would move the deadline a day earlier and make on-time students late. A time
without a zone is refused too (a course's students live in several zones). Zones may be
``UTC``, an offset (``+01:00``) or a named zone (``Europe/Berlin``, daylight saving included).
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

FORMS = ("give the day, a 24-hour time and a zone: '2026-12-14 23:59 UTC', "
         "'2026-12-14 23:59 Europe/Berlin' or '2026-12-14T23:59+01:00'")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
# Due dates outside these years are refused before they are remembered (a year 1 due date was
# written as "1-01-01" and broke every later run of the root).
FIRST_YEAR, LAST_YEAR = 1970, 9998
_NAMED_ZONE = re.compile(r"(?P<time>.*\S)\s+(?P<zone>[A-Za-z_]+(?:/[A-Za-z0-9_+-]+)+)")


# A due date's parts as typed: the day, a time of day, and whatever follows.
_PARTS = re.compile(r"(?P<day>\d{4}-\d{1,2}-\d{1,2})(?:[ T](?P<time>\d{1,2}:\d{2}(?::\d{2}"
                    r"(?:\.\d+)?)?))?\s*(?P<rest>.*)")
_TWELVE_HOUR = re.compile(r"(?P<half>[AaPp])\.?[Mm]\.?(?:\s+(?P<zone>.*))?")
_ZONES = "UTC, an offset (+01:00) or a place's zone (Europe/Berlin, America/New_York)"


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
        suffix = f" {named['zone']}" if named else " UTC"
        raise DueDateError(_unread(text, bare, suffix)) from None
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


def _unread(text: str, bare: str, zone: str) -> str:
    """Why ``bare`` (``text`` without its zone, which is `` UTC`` or ``zone``) is not a time:
    one line naming the part that was not read, with a form that is, keeping the day and the
    time of day when they were read."""
    parts = _PARTS.fullmatch(bare)
    if parts is None:
        return f"{text!r}: no day read at its start (write it as 2026-12-14); {FORMS}"
    day, clock, rest = parts["day"], parts["time"], parts["rest"]
    try:
        date.fromisoformat(day)
    except ValueError:
        return (f"{text!r}: the day {day!r} is not read (a real date, written YYYY-MM-DD: "
                f"'2026-12-14 23:59{zone}')")
    if clock is None:
        return (f"{text!r}: no 24-hour time of day read after the day ({rest!r} was not): "
                f"e.g. '{day} 23:59{zone}'")
    try:
        read = time.fromisoformat(clock if clock.index(":") == 2 else f"0{clock}")
    except ValueError:
        return f"{text!r}: the time of day {clock!r} is not read (00:00 to 23:59): {FORMS}"
    twelve = _TWELVE_HOUR.fullmatch(rest)
    if twelve:
        hour = read.hour % 12 + (12 if twelve["half"] in "Pp" else 0)
        fixed = f"{day} {hour:02d}:{read.minute:02d}"
        if twelve["zone"]:  # kept when it is read; else named too
            try:
                parse_due(f"{fixed} {twelve['zone']}")
                zone = f" {twelve['zone']}"
            except DueDateError:
                return (f"{text!r}: {clock} {rest.split()[0]} is a 12-hour time and "
                        f"{_zone_unread(twelve['zone'])}, e.g. '{fixed} UTC'")
        return (f"{text!r}: {clock} {rest.split()[0]} is a 12-hour time, which is not read: "
                f"write it as a 24-hour time, e.g. '{fixed}{zone}'")
    if rest:
        return (f"{text!r}: {_zone_unread(rest)}, e.g. "
                f"'{day} {read.hour:02d}:{read.minute:02d} UTC'")
    return f"not a time: {text!r}; {FORMS}"


def _zone_unread(zone: str) -> str:
    """``the time zone 'EST' is not read: write ...``, for a zone this does not read."""
    if zone.upper() == "UTC":
        return f"the time zone {zone!r} is not read: write it UTC"
    shared = " (abbreviations are not read: several zones share them)" if re.fullmatch(
        r"[A-Za-z]{2,5}", zone) else ""
    return f"the time zone {zone!r} is not read{shared}: write {_ZONES}"
