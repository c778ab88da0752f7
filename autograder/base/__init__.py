"""The base layer: what every package may use (the course root's layout, safe text,
shared wording); it imports no other package of the grader."""
