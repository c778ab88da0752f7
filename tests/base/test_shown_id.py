"""``shown_id``: a student id as a TA's terminal shows it (issue 50, item 14)."""

from __future__ import annotations

from autograder.base.safe_text import shown_id


def test_controls_are_written_as_escapes_and_the_rest_is_kept():
    assert shown_id("s1\x1b[2J\x07") == "s1\\x1b[2J\\x07"
    assert shown_id("s1\u202eab\tc\n") == "s1\\u202eab\\tc\\n"
    assert shown_id("maría-ø.42") == "maría-ø.42"
    assert shown_id("s1\x1b") != shown_id("s1")  # two ids stay two


def test_anything_is_text():
    assert shown_id(None) == "" and shown_id(7) == "7"
    assert shown_id("s\ud800") == "s?"
