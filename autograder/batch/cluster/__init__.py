"""Grade a batch on a Dask cluster instead of the local process pool (``--cluster``).

The local pool (``autograder.batch.engine``) stays the default and the fastest on one
machine. A course that outgrows one machine grades on Dask, which runs on a laptop
(``LocalCluster``), on an existing scheduler (``tcp://HOST:8786``) and on Slurm
(dask-jobqueue), with one futures API. One job per module:

* ``choice``: what ``--cluster`` says (parsed without importing Dask) and ``ClusterError``;
* ``transfer``: a submission folder as plain data (its bytes, bounded) and back;
* ``worker``: the worker side: a ``WorkerPlugin`` that owns one grading session per Dask
  worker (warm zygote, uid lease, collected checks, isolation probe) and the task that
  grades one submission's bytes in a private temporary folder and returns plain data;
* ``executor``: the coordinator's loop: start or reach the cluster, hand out tasks,
  write ``results.json`` and ``feedback.html`` as results arrive, each exactly once;
* ``slurm``: the ``[cluster]`` table of ``cohorts.toml`` as a dask-jobqueue ``SLURMCluster``,
  and the batch's Slurm jobs watched: lost ones replaced, pending ones named, all cancelled
  at the end.

Dask is imported only when a cluster is asked for: the default path never pays for it.
"""
