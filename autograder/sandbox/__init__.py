"""Run student code in separate, limited worker processes; talk to it with plain data.

The trusted grader never imports or unpickles anything a worker produces: every
value crosses as ``autograder.plain`` bytes over a socket. Workers are forked
from a warm "zygote" process that has already imported numpy and torch (and
nothing trusted), so no submission pays interpreter start-up or ``import torch``.

Import the pieces from their modules (``autograder.sandbox.client`` etc.); this
package file stays empty so the zygote imports nothing it does not need.
"""
