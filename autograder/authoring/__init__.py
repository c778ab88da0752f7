"""Instructor tools: copy the reference into the source notebook (``sync``), generate and
check the student release (``release``), build a sample cohort for the demo (``sample_cohort``)."""
