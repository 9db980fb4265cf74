"""What a command line names, read once: the files of `python -m metrics` and `python -m
dashboard report` turned into an evaluation, queries, a corpus, a judge's labels (`reading`)."""
