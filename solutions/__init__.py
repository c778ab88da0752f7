"""Reference solution of the H2 attention assignment (trusted side only; never released).

The functions are ``solutions.attention``'s, listed once there (``__all__``)."""

from solutions import attention
from solutions.attention import *  # noqa: F403  (the names attention.__all__ lists)

__all__ = list(attention.__all__)
