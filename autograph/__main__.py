"""`python -m autograph` and the `autograph` console script: see `autograph.cli`."""
import sys

from autograph.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
