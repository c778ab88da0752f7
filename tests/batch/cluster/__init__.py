"""Tests of autograder.batch.cluster: the batch on Dask (a LocalCluster, a running
scheduler, Slurm)."""
