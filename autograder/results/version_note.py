"""The one sentence a student's page says about which of their submissions counts.

Shown when the course grades by a rule other than the newest submission, or when more than
one version of the submission was kept (``autograder.batch.version_rule``; the result's
``version``): a student who resubmitted late must see which one was graded, and why.
"""

from __future__ import annotations

RULE_WORDS = {
    "newest": "the course grades the newest submission",
    "last_on_time": "the course grades the last on-time submission",
    "best_after_penalty": "the course grades the better of the last on-time submission and "
                          "the late one, after its late penalty",
}
WHY_WORDS = {
    "better_after_penalty": "; it scored higher after the late penalty",
    "tie_on_time": "; both scored the same, so the on-time one counts",
}
MAX_OTHERS = 3  # other versions named; the rest are counted


def when(text: str) -> str:
    """``2026-12-14 22:10 UTC`` from results.json's ``2026-12-14 22:10:00 UTC``."""
    return f"{text[:16]} UTC" if len(text) >= 16 and text.endswith("UTC") else (text or "an unknown time")


def _other(entry: dict, counted_at: str) -> str:
    later = bool(counted_at) and entry.get("submitted_at", "") > counted_at
    text = f"{'a later' if later else 'an earlier'} one of {when(entry.get('submitted_at', ''))} was kept"
    score = entry.get("score")
    if isinstance(score, int | float):
        text += f" and scored {score:g}" + (" after its late penalty" if entry.get("late") == "yes"
                                            else "")
    return text


def sentence(version: dict) -> str:
    """The sentence for a result's ``version`` ("" when there is nothing to say)."""
    listed = version.get("versions") or []
    rule = version.get("rule", "newest")
    if not version or (rule == "newest" and len(listed) <= 1):
        return ""
    counted = next((v for v in listed if v.get("hash") == version.get("counted")), {})
    counted_at = counted.get("submitted_at", "")
    why = WHY_WORDS.get(version.get("why", ""), "")
    if not why and rule != "newest" and counted.get("late") == "yes":
        why = "; no earlier submission was on time"
    text = (f"Your submission of {when(counted_at)} counts "
            f"({RULE_WORDS.get(rule, rule)}{why})")
    others = [v for v in listed if v is not counted]
    shown = [_other(entry, counted_at) for entry in others[-MAX_OTHERS:]]
    if len(others) > MAX_OTHERS:
        shown.insert(0, f"{len(others) - MAX_OTHERS} more were kept")
    return text + ("; " + "; ".join(shown) if shown else "") + "."
