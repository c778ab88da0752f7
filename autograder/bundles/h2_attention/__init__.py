"""H2, attention as query-dependent retrieval: the first assignment bundle (see its
``assignment.toml``; the reference is the repository's ``solutions/``)."""
