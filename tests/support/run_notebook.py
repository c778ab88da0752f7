"""Child process of ``tests.support.kernels.run_all``: one Run All with nbclient.

Usage: run_notebook.py IN OUT WORKDIR CELL_TIMEOUT ALLOW_ERRORS REQUESTS KERNEL_PGID

Writes the executed notebook to OUT, the shell message types the client sent besides
the cells (``execute_request``) and its opening ``kernel_info_request`` to REQUESTS (JSON), and the kernel's process group to KERNEL_PGID as
soon as the kernel starts, so that the parent can kill it at its wall-clock limit. A script
of its own, importing neither the grader nor the tests, so the run starts fast.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

# As the grader's processes start (autograder.startup.prepare_process): jsonschema, which
# nbformat imports, does without rfc3987_syntax, whose parsers take ~0.9 s to build.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

import nbformat  # noqa: E402
from nbclient import NotebookClient  # noqa: E402


def main(argv: list[str]) -> int:
    source, executed, workdir, cell_timeout, allow_errors, requests, pgid = argv
    notebook = nbformat.read(source, as_version=4)
    sent: list[str] = []

    def started(**_: object) -> None:
        Path(pgid).write_text(str(client.km.provisioner.pgid or client.km.provisioner.pid))
        channel = client.kc.shell_channel
        send = channel.send

        def recording(msg: dict) -> None:
            sent.append(msg["header"]["msg_type"])
            send(msg)

        channel.send = recording

    client = NotebookClient(notebook, kernel_name="python3", timeout=int(cell_timeout),
                            allow_errors=allow_errors == "1", on_notebook_start=started,
                            resources={"metadata": {"path": workdir}})
    client.execute()
    nbformat.write(notebook, executed)
    expected = {"execute_request", "kernel_info_request"}
    Path(requests).write_text(json.dumps([kind for kind in sent if kind not in expected]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
