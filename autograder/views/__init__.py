"""Views of the record: every file a grade is shown in (results.json's neighbours
feedback.html and the graded notebook, grades.csv, the gradebook and formgrader,
nbgrader's feedback layout), rendered from the saved results, decisions and settings."""
