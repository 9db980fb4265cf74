"""What the stakeholder report reads its examples and its figures by kind of query on."""

from __future__ import annotations

# the measure (a key) the report's examples (biggest gains and losses) and its paired
# differences per slice are read on
EXAMPLES_ON = "nDCG"
