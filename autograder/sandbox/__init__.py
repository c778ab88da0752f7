"""The trusted side's handle on the sandbox: start the zygote, fork and drive workers.

``client.SandboxStudent`` runs a submission's cells in a worker and forwards
each call of a check; ``zygote.Zygote`` starts and talks to the warm zygote
process; ``uids`` leases a sandbox user id; ``limits`` holds the limits per
submission. What runs beside the student's code lives in ``autograder.untrusted``;
values come back from it as plain data only, never unpickled.

Import the pieces from their modules; this package file stays empty.
"""
