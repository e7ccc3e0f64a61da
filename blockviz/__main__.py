import sys

from blockviz.cli import main

sys.exit(main())
