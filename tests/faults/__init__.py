"""Fault injection (issue 51): each command of the grader hurt, then every output of the root
compared with an uninterrupted run's."""
