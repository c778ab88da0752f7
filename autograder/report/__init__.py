"""The instructor's report of a graded course: ``write_report(root, assignment)`` ->
report.html + CSVs, for the parts, checks and diagnoses of the assignment it is given.

Modules, one job each: ``loading`` (results.json and grades.csv), ``statistics``
(scores, item analysis, misconceptions per student, review and late lists),
``similarity`` (winnowed fingerprints of each student's own code),
``evidence_copies`` (evidence files holding another student's inputs, for an assignment
whose evidence plugin draws inputs per student), ``plots``
(inline SVG), ``render`` (the Jinja2 page), ``figures_csv`` and ``command``.
"""

from autograder.report.build import ReportFiles, write_report
from autograder.report.loading import ReportError

__all__ = ["ReportError", "ReportFiles", "write_report"]
