"""python -m metrics: see metrics.cli."""

from metrics.cli import run

if __name__ == "__main__":
    run()
