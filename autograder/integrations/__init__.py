"""The grader in other people's workflows: Gradescope's ``run_autograder`` contract
(``gradescope``) and nbgrader's per-cohort course workflow (``cohorts``)."""
