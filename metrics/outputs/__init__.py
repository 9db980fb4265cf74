"""What both front ends write, in one place: the plain-text tables (`text`), the JSON documents
and their writer (`documents`; an evaluation's own contract is `metrics.snapshot.contract`),
trec_eval's three columns (`trec_eval`), a paper's LaTeX table (`latex`) and the stakeholder
report's contents (`report`: one function that the Export page and `python -m dashboard
report` call; the dashboard lays out what it returns). The command line and the dashboard call
these; neither decides what a written figure or report holds on its own."""
