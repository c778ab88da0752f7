"""The version rules a course may choose (``course.json``, ``cohorts.toml``,
``--version-rule``), and reading one: part of the course's settings, so the record reads
them without the machinery that applies them (``autograder.batch.version_rule``)."""

from __future__ import annotations

NEWEST = "newest"
LAST_ON_TIME = "last_on_time"
BEST_AFTER_PENALTY = "best_after_penalty"
RULES = (NEWEST, LAST_ON_TIME, BEST_AFTER_PENALTY)
# Why the counted version counts (results.json's ``version.why``).
WHY_NEWEST = "newest"
WHY_LAST_ON_TIME = "last_on_time"
WHY_BETTER = "better_after_penalty"
WHY_TIE = "tie_on_time"


class VersionRuleError(ValueError):
    """A ``version_rule`` that is not one of ``RULES``: one line naming them."""


def parse(text: str) -> str:
    """``text`` as a rule, written exactly as one of ``RULES`` (the docs, course.json and
    cohorts.toml spell them so), else ``VersionRuleError``: one line naming the three, and
    the one meant when only its case or ``-`` for ``_`` differ."""
    if text in RULES:
        return text
    meant = str(text).strip().lower().replace("-", "_")
    hint = f" (did you mean {meant}?)" if meant in RULES else ""
    raise VersionRuleError(f"version rule {text!r} is not one of {', '.join(RULES)}{hint}")
