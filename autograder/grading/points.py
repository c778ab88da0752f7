"""Points per code part, as the hidden checks must add up to.

Read from the notebook's ``check_<function>`` grade cells by ``autograder.parts``
(the one place points are set). ``score_parts`` refuses to score when the
checks of a part are worth a different total, so a change of weights in the
notebook that the checks do not follow cannot go unnoticed.
"""

from __future__ import annotations

from autograder.parts import FUNCTION_PARTS, part_points


def code_part_points() -> dict[str, int]:
    """Function part -> points, in ``solutions.__all__`` order."""
    points = part_points()
    return {part: points[part] for part in FUNCTION_PARTS}


PART_POINTS: dict[str, int] = code_part_points()
"""Parts graded by the hidden checks in ``autograder/checks`` (part = function name)."""
