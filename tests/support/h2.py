"""H2, the first assignment bundle, as the tests use it (tests may name an assignment; the
engine may not)."""

from autograder.assignments import load_assignment

H2 = load_assignment("h2_attention")
SPEC = H2  # what the tests read as the assignment's facts (an Assignment reads its spec's)


def hand_example_truth() -> tuple[list[float], list[float]]:
    """The hand example's raw scores and weights (the notebook's Step 1)."""
    from autograder.bundles.h2_attention.samples import hand_example_answers

    return hand_example_answers()


def predicted(source: str, rankings: dict[str, str] | None = None) -> str:
    """A code cell as a student who made the notebook's predictions has it: Step 1's
    prediction cell filled in (as the sample students fill it), the explorer's rankings with
    ``rankings`` (left empty by default), every other cell unchanged."""
    from autograder.bundles.h2_attention.samples import paper_prediction

    if "MY_RAW_SCORES = None" in source:
        return paper_prediction()
    if "MY_RANKINGS = {" in source and rankings is not None:
        return f"MY_RANKINGS = {rankings!r}"
    return source
