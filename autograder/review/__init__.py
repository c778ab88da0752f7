"""A TA's review without Jupyter: what needs a person, and the decisions they make."""
