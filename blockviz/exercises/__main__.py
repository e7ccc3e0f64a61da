import sys

from blockviz.exercises.cli import main

sys.exit(main(sys.argv[1:]))
