"""Verifier for the attention-evidence file students save from the H2 notebook.

``verify_evidence(path_or_bytes, student_id=..., cohort=...)`` runs safe loading,
the JSON Schema, a recomputation with the reference, and the limitation check,
and returns an ``EvidenceReport`` with a status, findings and points per part.
"""

from .report import (
    EVIDENCE_CHECK_POINTS,
    EVIDENCE_POINTS,
    LIMITATION_POINTS,
    LIMITATION_REVIEW_POINTS,
    EvidenceReport,
    Finding,
)
from .schema_check import SCHEMA_PATH, load_schema
from .verify import verify_evidence

__all__ = [
    "EVIDENCE_CHECK_POINTS",
    "EVIDENCE_POINTS",
    "LIMITATION_POINTS",
    "LIMITATION_REVIEW_POINTS",
    "SCHEMA_PATH",
    "EvidenceReport",
    "Finding",
    "load_schema",
    "verify_evidence",
]
