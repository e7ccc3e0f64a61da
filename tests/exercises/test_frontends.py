"""The front ends over the one checker: CLI, teacher's sheet, notebook widget, practice sets, strings."""
import os
import subprocess
import sys
from pathlib import Path

from blockviz import exercises
from blockviz.commands.exercise import main
from blockviz.exercises.sets import SETS, files, set_exercises, set_title
from blockviz.exercises.sheet import sheet_exercises
from blockviz.i18n import STRINGS
from blockviz.course import LESSONS

ROOT = Path(__file__).resolve().parents[2]


def run(argv, answers=()):
    lines = iter(answers)
    out = []

    def read(prompt):
        try:
            return next(lines)
        except StopIteration:
            raise EOFError

    code = main(argv, read=read, write=out.append)
    return code, "\n".join(out)


def test_cli_interactive_hint_wrong_right():
    code, out = run(["slot_mapping-3"], ["hint", "1, 2, 3", exercises.from_id("slot_mapping-3").answer_text()])
    assert code == 0
    assert "logical block = ⌊t / B⌋" in out
    assert "✗" in out or "Try again" in out or "Expected" in out
    assert "✓ Correct." in out


def test_cli_kind_seed_lang_and_quit():
    code, out = run(["can_allocate", "--seed", "4", "--lang", "zh"], ["提示", "退出"])
    assert code == 0 and "can_allocate 的返回值" in out and "再见" in out


def test_cli_solution_and_end_of_input():
    code, out = run(["slot", "--seed", "1"], ["solution"])
    assert code == 0 and "**" in out
    code, out = run(["slot", "--seed", "1"], [])
    assert code == 0


def test_cli_practice_set_runs_in_order():
    practice = set_exercises("lesson0")
    code, out = run(["--set", "lesson0"], [ex.answer_text() for ex in practice])
    assert code == 0 and out.count("✓ Correct.") == len(practice) == 5


def test_cli_list_and_errors(capsys):
    code, out = run(["--list"])
    assert code == 0 and "slot_mapping" in out and "--set lesson1" in out
    assert run(["no_such_kind"])[0] == 2
    assert "unknown exercise kind" in capsys.readouterr().err
    assert run(["--lang", "fr"])[0] == 2


def test_cli_sheet_to_file(tmp_path):
    out_file = tmp_path / "sheet.md"
    code, _ = run(["--sheet", "4", "--lang", "zh", "--seed", "10", "--out", str(out_file)])
    assert code == 0
    text = out_file.read_text(encoding="utf-8")
    assert text.startswith("# blockviz 练习单") and "# 答案" in text
    questions, key = text.split("# 答案")
    for ex in sheet_exercises(4, seed=10, lang="zh"):
        assert f"`{ex.id}`" in questions and ex.id in key
        assert ex.answer_text("zh") in key


def test_sheet_of_one_kind_and_of_a_set(tmp_path):
    code, out = run(["--sheet", "2", "preemption", "--seed", "3"])
    assert code == 0 and out.count("`preemption-") >= 2
    code, out = run(["--sheet", "2", "--set", "lesson1"])
    assert code == 0 and "23, 8, 9, 10" in out.split("# Answer key")[1]


def test_blockviz_cli_entry():
    from blockviz.commands import main as blockviz_main
    assert blockviz_main(["exercise", "--list"]) == 0


def test_the_list_imports_only_what_it_prints():
    """`blockviz exercise --list` names kinds and sets: no widgets, no notebooks, no lessons package
    (jupytext and ipywidgets took seconds of a 5 s list)."""
    code = ("import sys, io, contextlib\nfrom blockviz.commands import main\n"
            "with contextlib.redirect_stdout(io.StringIO()) as out:\n    main(['exercise', '--list'])\n"
            "assert '--set lesson0' in out.getvalue()\n"
            "print(sorted(m for m in ('ipywidgets', 'IPython', 'jupytext', 'blockviz.lessons.lesson', 'blockviz.views.render_text') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "[]"


def test_widget_is_thin_over_check():
    ex = exercises.make("slot_mapping", block_size=4, block_table=[5, 2, 7], positions=[3, 4, 5, 6], lang="zh")
    w = ex.widget()
    assert "slot_mapping" in w.prompt.value and "<table>" in w.prompt.value
    assert w.check_button.description == "核对"
    w.answer.value = "3,4,5,6"
    w.check_button.click()
    assert "逻辑块号" in w.feedback.value
    w.answer.value = "23，8，9，10"
    assert w.check().correct and "正确" in w.feedback.value
    w.hint_button.click()
    assert "block_table" in w.feedback.value
    w.solution_button.click()
    assert "23" in w.feedback.value


def test_practice_sets_are_in_sync_with_the_files():
    for path, text in files(ROOT / "exercises").items():
        assert path.exists(), f"{path} is missing: run python -m blockviz.exercises.sets exercises"
        assert path.read_text(encoding="utf-8") == text, f"{path} is stale: run python -m blockviz.exercises.sets exercises"


def test_practice_sets_cover_every_kind_and_seed004():
    kinds = {item.kind for s in SETS.values() for item in s.items}
    assert kinds == set(exercises.kinds())
    # the course source's own exercise (seed 004) opens lesson 1's and lesson 2's sets
    assert [set_exercises(name)[0].answer() for name in ("lesson1", "lesson2")] == [[23, 8, 9, 10], [2, 2, 1]]


def test_a_practice_set_takes_its_lesson_title_from_the_catalog():
    for name, practice in SETS.items():  # every set is named after the lesson it practises
        number = practice.lesson.split("_")[0].lstrip("0") or "0"  # "3", or "10b" for a lesson's second part
        assert practice.lesson in LESSONS and name == f"lesson{number}", name
        assert f"ex.set.{name}.title" not in STRINGS, f"{name}: the lesson's title is the catalog's"
        for lang in ("en", "zh"):
            assert set_title(name, lang).split(" · ", 1)[1].startswith(LESSONS[practice.lesson][lang])
    assert set_title("lesson2", "en") == "Lesson 2 · The block lifecycle — six states, ref_count, free keeps content"
    assert set_title("lesson11", "zh") == "第 11 课 · 综合练习：预测一整段运行"
    assert set_title("lesson10b", "en").startswith("Lesson 10b · ")


def test_every_kind_and_set_has_its_strings():
    """The keys made from a kind's or a set's name; the keys written in the code are checked by
    tests/views/test_i18n.py, the languages and placeholders of every key there too."""
    keys = set()
    for kind in exercises.kinds():
        keys |= {f"{kind}.title", f"{kind}.task"} | ({f"{kind}.hint"} if kind != "slot" else set())
    for name, practice in SETS.items():
        keys.add(f"ex.set.{name}.intro")
    assert sorted(keys - set(STRINGS)) == []


def test_the_widget_does_not_import_core_back():
    """core.py builds the widget (Exercise.widget); widget.py names what it uses as Protocols and
    imports nothing of core, not even for type checkers (tests/test_import_cycles.py checks all modules)."""
    import ast
    import blockviz.exercises.widget as widget
    tree = ast.parse(Path(widget.__file__).read_text(encoding="utf-8"))
    imports = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert imports and all(getattr(node, "module", "") != "blockviz.exercises.core" for node in imports)


def test_every_set_command_in_the_docs_and_lessons_runs_as_written():
    """`blockviz exercise --set NAME ...` wherever a learner reads it: the set exists and the command runs."""
    import re
    import shlex
    texts = [*sorted((ROOT / "lesson").glob("*.md")), ROOT / "README.md", ROOT / "exercises" / "README.md",
             *sorted((ROOT / "docs").glob("*.md"))]
    commands = {m for path in texts for m in re.findall(r"blockviz exercise --set [^`\n#]*", path.read_text(encoding="utf-8"))}
    assert "blockviz exercise --set lesson0" in {c.strip() for c in commands}
    for command in sorted(commands):
        code, out = run(shlex.split(command)[2:])  # no answers: the first exercise, then the end of input
        assert code == 0 and "**" in out, command
