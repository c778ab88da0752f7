"""H2's notebook as students run it: real Jupyter kernels, its wording, its visible checks."""
