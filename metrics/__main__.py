"""python -m metrics: see metrics.cli."""

import sys

from metrics.cli import main

if __name__ == "__main__":
    sys.exit(main())
