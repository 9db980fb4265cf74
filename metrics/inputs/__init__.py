"""What a command line names, below both front ends (`python -m metrics` and `python -m
dashboard report` parse and read with these): the flags every command that reads runs shares
and the parser built from them (`arguments`), and the files they name read once into an
evaluation, queries, a corpus, a judge's labels (`reading`)."""
