"""A grade, written down: ``results.json`` (``result``), the student's ``feedback.html``
(``feedback_page``), the TA's ``grades.csv`` (``grades_csv``) and nbgrader's gradebook
(``gradebook``)."""
