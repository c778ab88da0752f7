"""The grader in other people's workflows: Gradescope (``gradescope``: the autograder zip
and ``run_autograder``'s contract), LMS gradebooks (``lms``: Canvas's and Moodle's grade
import files) and nbgrader's per-cohort course workflow (``cohorts``)."""
