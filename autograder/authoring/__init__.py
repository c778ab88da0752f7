"""Instructor tools, working from a checkout (``checkout``): copy an assignment's reference into
its source notebook (``sync``), generate and check its student release (``release``), pin the
student's environment (``student_env``), and build a bundle's sample cohort from the installed
package alone (``sample_cohort``)."""
