"""What both front ends write, in one place: the plain-text tables (`text`), trec_eval's three
columns (`trec_eval`), a paper's LaTeX table (`latex`). The command line and the dashboard's
report command call these writers; neither formats a figure of its own."""
