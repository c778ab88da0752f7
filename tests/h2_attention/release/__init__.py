"""H2's release: what nbgrader makes of source/, the synced copies, the student's environment."""
