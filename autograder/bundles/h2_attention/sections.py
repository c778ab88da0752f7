"""The evidence file's sections, each described once.

The spec (``assignment.toml``) names the evidence checks and their points. Every check
but ``identity`` (the file is this student's: it has no section of its own) is a
top-level section of the file, which the notebook's evidence cell builds with the
student's functions (``solutions.evidence``). What the verifier, the provenance check and
the non-finite layer need to know about a section (its title for a student, the builder,
the functions behind each number, the shapes, the student's own inputs it states) is
written here, for the sections the spec names, in the spec's order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from autograder.bundles.h2_attention.bundle import H2
from autograder.spec import SpecError
from solutions import evidence as builder

IDENTITY = "identity"
"""The check that the file is this student's (id, cohort, inputs): no section of its own."""

SDPA = "scaled_dot_product_attention"
_QKV_MASK = ("queries", "keys", "values", "mask")


@dataclass(frozen=True)
class Section:
    """One recomputed section of the evidence file."""

    name: str
    title: str  # as a student reads it: "the masked case"
    build: Callable[[Any, dict], Any]  # the evidence cell's builder (``solutions.evidence``)
    uses: tuple[str, ...]  # the student functions the builder calls, as messages name them
    computed_by: dict[str, tuple[str, ...]]  # each number the cell computes -> its functions
    shapes: dict[str, tuple[str, ...]] = field(default_factory=dict)  # field -> dimensions
    inputs: tuple[str, ...] = ()  # the fields stating the student's own (seeded) inputs
    own_inputs: bool = True  # computed from the student's inputs: another's void it


_DETAILS = (
    Section(
        "hand_example", "the hand example", builder.evidence_hand_example,
        uses=(SDPA, "attention_scores"),
        computed_by={"scale": ("attention_scores",), "raw_scores": ("attention_scores",),
                     "weights": (SDPA,), "context": (SDPA,)},
        shapes={"queries": ("n_q", "d_k"), "keys": ("n_k", "d_k"), "values": ("n_k", "d_v"),
                "raw_scores": ("n_q", "n_k"), "weights": ("n_q", "n_k"),
                "context": ("n_q", "d_v")},
        own_inputs=False,  # the lecture's example, the same for everyone
    ),
    Section(
        "masked_case", "the masked case", builder.evidence_masked_case,
        uses=(SDPA,),
        computed_by={"weights": (SDPA,), "row_sums": (SDPA,), "context": (SDPA,)},
        shapes={"queries": ("n_q", "d_k"), "keys": ("n_k", "d_k"), "values": ("n_k", "d_v"),
                "mask": ("n_q", "n_k"), "weights": ("n_q", "n_k"), "row_sums": ("n_q",),
                "context": ("n_q", "d_v")},
        inputs=_QKV_MASK,
    ),
    Section(
        "parity", "the parity check", builder.evidence_parity,
        uses=(SDPA, "torch_sdpa"),
        computed_by={"max_abs_diff": (SDPA, "torch_sdpa")},
    ),
    Section(
        "intervention", "the intervention", builder.evidence_intervention,
        uses=("value_intervention",),
        computed_by={name: ("value_intervention",) for name in
                     ("weights_before", "weights_after", "context_before", "context_after")},
        shapes={"queries": ("n_q", "d_k"), "keys": ("n_k", "d_k"), "values": ("n_k", "d_v"),
                "mask": ("n_q", "n_k"), "old_value": ("d_v",), "new_value": ("d_v",),
                "weights_before": ("n_q", "n_k"), "weights_after": ("n_q", "n_k"),
                "context_before": ("n_q", "d_v"), "context_after": ("n_q", "d_v")},
        inputs=(*_QKV_MASK, "index", "new_value"),
    ),
)


def _sections() -> dict[str, Section]:
    details = {section.name: section for section in _DETAILS}
    named = [name for name in H2.evidence_sections if name != IDENTITY]
    if set(named) != set(details):
        raise SpecError(f"the spec's evidence sections {named} are not the ones the verifier "
                        f"knows ({IDENTITY} and {sorted(details)})")
    return {name: details[name] for name in named}


SECTIONS: dict[str, Section] = _sections()
"""Section name -> what it is, in the spec's order."""
TITLES: dict[str, str] = {name: section.title for name, section in SECTIONS.items()}
STUDENT_FUNCTIONS = frozenset(name for section in SECTIONS.values() for name in section.uses)
"""Every student function some section's builder calls."""


INPUT_FIELDS: tuple[tuple[str, str], ...] = tuple(
    (name, field) for name, section in SECTIONS.items() for field in section.inputs)
"""(section, field) of every per-student input a file states, in the order the identity
check compares them."""


def expected_input(inputs: dict, section: str, field: str) -> object:
    """The value of (section, field) in ``solutions.evidence.evidence_inputs``'s ``inputs``:
    a section restates the masked case's queries, keys, values and mask."""
    own = inputs.get(section, {})
    return own[field] if field in own else inputs["masked_case"][field]
