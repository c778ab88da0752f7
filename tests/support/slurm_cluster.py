"""A real one-node Slurm for the tests: munged, slurmctld and slurmd from Debian's packages
(``apt-get install slurm-wlm munge``, as ``.ci/run`` does), on loopback, with a state
folder of their own.

``SlurmCluster.start`` writes a munge key and a ``slurm.conf`` (two free ports, the node
named as ``hostname -s`` says, one partition ``cpu``), starts the three daemons in the
foreground (so each one's pid is the one started here) and waits until ``sinfo`` shows the
node idle. ``stop`` cancels every job, then stops each daemon it started by its pid, also
after a failed start. Slurm's commands find this cluster through ``SLURM_CONF`` (``env``).

Missing daemons: in CI (``CI`` set) the tests FAIL, since a skipped real-Slurm test proves
nothing; elsewhere they skip, saying how to install them.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.skips import install

INSTALL = "apt-get install -y slurm-wlm munge"
DAEMONS = ("munged", "slurmctld", "slurmd")
COMMANDS = ("sinfo", "squeue", "sbatch", "scancel", "scontrol")
PARTITION = "cpu"
CPUS = 2
MEMORY_MB = 8000
START_TIMEOUT = 60.0

CONF = """\
ClusterName=t
SlurmctldHost={node}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={dir}/munge/munge.sock
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MpiDefault=none
StateSaveLocation={dir}/state
SlurmdSpoolDir={dir}/spool
SlurmctldPidFile={dir}/slurmctld.pid
SlurmdPidFile={dir}/slurmd.pid
SlurmctldLogFile={dir}/slurmctld.log
SlurmdLogFile={dir}/slurmd.log
SlurmctldTimeout=10
SlurmdTimeout=30
MessageTimeout=5
InactiveLimit=0
KillWait=2
MinJobAge=5
NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory} State=UNKNOWN
PartitionName={partition} Nodes={node} Default=YES MaxTime=INFINITE State=UP
"""


def missing_software() -> str:
    """What of Slurm and munge this machine lacks ("" when nothing)."""
    missing = [name for name in (*DAEMONS, *COMMANDS) if shutil.which(name) is None
               and not Path("/usr/sbin", name).exists()]
    return ", ".join(missing)


def require_slurm() -> None:
    """Fail in CI (the real-Slurm tests must run there), skip elsewhere, saying why."""
    missing = missing_software()
    if not missing:
        return
    reason = f"no real Slurm here ({missing} missing)"
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must run the Slurm tests ({INSTALL}, as .ci/run does)",
                    pytrace=False)
    pytest.skip(install(reason, INSTALL))  # in CI the test fails instead (above)


def _program(name: str) -> str:
    return shutil.which(name) or str(Path("/usr/sbin", name))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class SlurmCluster:
    """The daemons of one test cluster under ``folder``; see the module docstring."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.conf = folder / "slurm.conf"
        self.node = socket.gethostname().split(".")[0]  # `hostname -s`
        self.daemons: dict[str, subprocess.Popen] = {}

    @property
    def env(self) -> dict[str, str]:
        """This process's environment with ``SLURM_CONF`` pointing at this cluster."""
        return {**os.environ, "SLURM_CONF": str(self.conf)}

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        """A Slurm command (``sinfo``, ``scontrol`` ...) against this cluster."""
        return subprocess.run(args, env=self.env, capture_output=True, text=True, timeout=30,
                              check=check)

    # -- start and stop ------------------------------------------------------------------

    def start(self) -> None:
        """Write the key and the conf, start munged, slurmctld and slurmd, wait for idle."""
        for sub in ("munge", "state", "spool"):
            (self.folder / sub).mkdir(mode=0o700, parents=True, exist_ok=True)
        socket_path = self.folder / "munge" / "munge.sock"
        assert len(str(socket_path)) < 100, f"munge's socket path is too long: {socket_path}"
        key = self.folder / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        self.conf.write_text(CONF.format(
            node=self.node, dir=self.folder, ctld_port=free_port(), slurmd_port=free_port(),
            cpus=CPUS, memory=MEMORY_MB, partition=PARTITION))
        self._daemon("munged", [
            _program("munged"), "--foreground", "--force", f"--socket={socket_path}",
            f"--key-file={key}", f"--pid-file={self.folder}/munge/munged.pid",
            f"--log-file={self.folder}/munge/munged.log",
            f"--seed-file={self.folder}/munge/munged.seed"])
        self._wait(socket_path.exists, "munged did not create its socket")
        self.start_controller()
        self._daemon("slurmd", [_program("slurmd"), "-D", "-f", str(self.conf)])
        self.wait_idle()

    def _daemon(self, name: str, command: list[str]) -> None:
        log = (self.folder / f"{name}.out").open("w")
        self.daemons[name] = subprocess.Popen(
            command, env=self.env, stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True)

    def start_controller(self) -> None:
        """Start slurmctld (again, after ``stop_controller``), keeping the saved state."""
        self._daemon("slurmctld", [_program("slurmctld"), "-D", "-f", str(self.conf)])
        self._wait(lambda: self.run("sinfo", "-h", check=False).returncode == 0,
                   "slurmctld does not answer sinfo")

    def stop_controller(self) -> None:
        """Stop slurmctld alone (a controller that went away)."""
        self._stop("slurmctld")

    def wait_idle(self, timeout: float = START_TIMEOUT) -> None:
        """Until ``sinfo`` shows the node idle (no job on it)."""
        self._wait(lambda: self.node_state() == "idle", "the node did not become idle "
                   f"(sinfo: {self.node_state()!r})", timeout)

    def node_state(self) -> str:
        done = self.run("sinfo", "-h", "-N", "-o", "%t", check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    def _wait(self, ready, problem: str, timeout: float = START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while not ready():
            dead = [name for name, process in self.daemons.items() if process.poll() is not None]
            if dead or time.monotonic() > deadline:
                logs = {p.name: p.read_text()[-2000:] for p in self.folder.glob("*.log")}
                raise RuntimeError(f"{problem}; stopped: {dead}; logs: {logs}")
            time.sleep(0.2)

    def _stop(self, name: str) -> None:
        process = self.daemons.pop(name, None)
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def stop(self) -> None:
        """Cancel every job, then stop each daemon started here (by its pid)."""
        if "slurmctld" in self.daemons and self.daemons["slurmctld"].poll() is None:
            self.cancel_all()
        for name in ("slurmd", "slurmctld", "munged"):
            self._stop(name)

    # -- jobs ----------------------------------------------------------------------------

    def jobs(self) -> list[str]:
        """The ids of the jobs Slurm still holds (pending, running or completing)."""
        return self.run("squeue", "-h", "-o", "%i").stdout.split()

    def cancel_all(self, timeout: float = 30.0) -> None:
        """Cancel every job and wait until none is left (a job's processes end with it)."""
        self.run("scancel", "--user", "root", check=False)
        deadline = time.monotonic() + timeout
        while self.run("squeue", "-h", "-o", "%i", check=False).stdout.split():
            if time.monotonic() > deadline:
                break
            time.sleep(0.3)

    def set_partition(self, state: str) -> None:
        """``UP`` or ``DOWN`` (jobs then stay pending with the reason PartitionDown)."""
        self.run("scontrol", "update", f"PartitionName={PARTITION}", f"State={state}")

    def fail_node(self) -> None:
        """The node goes DOWN, as a node that failed: its jobs end with NODE_FAIL."""
        self.run("scontrol", "update", f"NodeName={self.node}", "State=DOWN",
                 "Reason=test-node-failure")

    def job_states(self) -> dict[str, str]:
        """``{id: state}`` of every job Slurm lists, ended ones included."""
        lines = self.run("squeue", "-h", "-t", "all", "-o", "%i %T").stdout.splitlines()
        return dict(line.split() for line in lines if line.strip())

    def restore(self) -> None:
        """Back to how ``start`` left it (for the next test): the controller running, no
        job, the partition up, the node idle."""
        if self.daemons.get("slurmctld") is None or self.daemons["slurmctld"].poll() is not None:
            self.start_controller()
        self.cancel_all()
        self.set_partition("UP")
        if self.node_state() not in ("idle", "mix", "alloc"):
            # ReturnToService=2 may have brought it back already: then RESUME is refused.
            self.run("scontrol", "update", f"NodeName={self.node}", "State=RESUME",
                     check=False)
        self.wait_idle()


@contextmanager
def running_slurm(folder: Path) -> Iterator[SlurmCluster]:
    """A started ``SlurmCluster`` in ``folder``, stopped on exit (also when it failed to
    start)."""
    require_slurm()
    cluster = SlurmCluster(folder)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def slurm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SlurmCluster]:
    """A one-node Slurm for a test module (its ``conf`` is the ``SLURM_CONF`` to use);
    every daemon stopped at the end."""
    with running_slurm(tmp_path_factory.mktemp("slurm")) as cluster:
        yield cluster


@pytest.fixture
def fresh_slurm(slurm: SlurmCluster) -> Iterator[SlurmCluster]:
    """``slurm``, put back as it was after the test (controller, partition, node, no job)."""
    try:
        yield slurm
    finally:
        slurm.restore()
