"""python -m dashboard report: see dashboard/report/command.py."""

import sys

from dashboard.report.command import main

if __name__ == "__main__":
    sys.exit(main())
