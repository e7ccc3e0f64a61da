"""`blockviz exercise`: practise in a terminal, or export a teacher's sheet.

    blockviz exercise [KIND | ID] [--seed N] [--lang en|zh]    one exercise, interactively
    blockviz exercise --set lesson1 [--lang zh]                a lesson's practice set
    blockviz exercise --sheet N [KIND] [--seed S] [--lang zh] [--out FILE]   N exercises + answer key
    blockviz exercise --list                                   the kinds and the sets
"""
import argparse
import random
import sys
from typing import Callable

from blockviz.exercises.core import Exercise
from blockviz.i18n import LANGS, t

QUIT = {"quit", "q", "exit", "退出"}
MAX_SHEET = 200  # exercises on one sheet: a few seconds to build
HINT = {"hint", "h", "?", "提示"}
SOLUTION = {"solution", "solve", "s", "答案", "解答"}


def practise(exercise: Exercise, lang: str, read: Callable[[str], str] = input,
             write: Callable[[str], None] = print) -> str:
    """Ask until the answer is right. Returns 'correct', 'solution' (shown) or 'quit'."""
    write(exercise.prompt_in(lang))
    write("")
    write(t("ex.cli.usage", lang))
    table = exercise.answer_lines > 1
    if table:
        write(t("ex.cli.rows", lang))
    while True:
        try:
            line = read("> ")
            word = line.strip().lower()
        except (EOFError, KeyboardInterrupt):
            write("")
            return "quit"
        while table and word and word not in QUIT | HINT | SOLUTION:  # a table: rows until an empty line
            try:
                row = read(". ")
            except EOFError:  # the end of piped input checks what was typed
                break
            if not row.strip():
                break
            line += "\n" + row
        if word in QUIT:
            return "quit"
        if word in HINT:
            write(exercise.hint(lang))
            continue
        if word in SOLUTION:
            write(exercise.solution(lang))
            return "solution"
        result = exercise.check(line, lang)
        write(result.message)
        if result.correct:
            return "correct"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="blockviz exercise", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kind", nargs="?", help="an exercise kind (see --list) or an id such as slot_mapping-1234")
    p.add_argument("--seed", type=int, help="the instance to generate (default: a random one)")
    p.add_argument("--lang", choices=LANGS, default="en")
    p.add_argument("--set", dest="practice_set", metavar="NAME", help="a lesson's practice set (see --list)")
    p.add_argument("--sheet", type=int, metavar="N", help="write a sheet of N exercises with an answer key")
    p.add_argument("--out", metavar="FILE", help="where to write the sheet (default: standard output)")
    p.add_argument("--list", action="store_true", help="list the exercise kinds and the practice sets")
    return p


def list_all(lang: str, write: Callable[[str], None]) -> None:
    """The kinds and the sets, by name and title: what they import is all a list needs (no widgets,
    no lessons package; bench: `time blockviz exercise --list`)."""
    from blockviz.exercises.kinds import KINDS
    from blockviz.exercises.sets import SETS, set_title
    for name in KINDS:
        write(f"{name:16} {t(f'{name}.title', lang)}")
    write("")
    for name, practice in SETS.items():
        write(f"--set {name:10} {set_title(name, lang)} ({len(practice.items)})")


def main(argv: list[str], read: Callable[[str], str] = input, write: Callable[[str], None] = print) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    lang = args.lang
    if args.list:
        list_all(lang, write)
        return 0
    from blockviz.exercises import from_id, kinds, make
    from blockviz.exercises.sets import set_exercises
    from blockviz.exercises.sheet import render_sheet, sheet_exercises
    try:
        if args.sheet is not None:
            if not 1 <= args.sheet <= MAX_SHEET:
                raise ValueError(f"--sheet takes a count in 1..{MAX_SHEET}, got {args.sheet}")
            if args.practice_set:
                exercises = set_exercises(args.practice_set, lang)[:args.sheet]
            else:
                seed = args.seed if args.seed is not None else random.randrange(10000)
                exercises = sheet_exercises(args.sheet, [args.kind] if args.kind else None, seed, lang)
            text = render_sheet(exercises, lang)
            if args.out:
                with open(args.out, "w", encoding="utf-8") as f:
                    f.write(text)
                write(args.out)
            else:
                write(text)
            return 0
        if args.practice_set:
            exercises = set_exercises(args.practice_set, lang)
        elif args.kind and ("-" in args.kind or ":" in args.kind) and args.seed is None:
            exercises = [from_id(args.kind, lang)]
        else:
            exercises = [make(args.kind or random.choice(kinds()), args.seed, lang=lang)]
    except (ValueError, OSError) as e:
        print(f"blockviz exercise: {e}", file=sys.stderr)
        return 2
    for i, exercise in enumerate(exercises):
        if i:
            write("")
            write(t("ex.cli.next", lang))
        if practise(exercise, lang, read, write) == "quit":
            break
    write(t("ex.cli.bye", lang))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
