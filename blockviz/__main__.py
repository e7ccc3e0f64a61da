import sys

from blockviz.commands import main

sys.exit(main())
