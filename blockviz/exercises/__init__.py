"""Hand-calculation exercises whose answers the engine computes.

    >>> from blockviz import exercises
    >>> ex = exercises.make("slot_mapping", block_size=4, block_table=[5, 2, 7], positions=[3, 4, 5, 6])
    >>> ex.check("23, 8, 9, 10").correct
    True
    >>> exercises.make("slot", seed=7).id
    'slot-7'
"""
import json
import random
import re
from random import Random

from blockviz.exercises.core import LANGS, Exercise, Result
from blockviz.exercises.kinds import KINDS

__all__ = ["Exercise", "Result", "make", "kinds", "from_id"]


def kinds() -> list[str]:
    return list(KINDS)


def make(kind: str, seed: int | None = None, lang: str = "en", **params) -> Exercise:
    """An instance of `kind`: from a seed (shareable as "kind-seed"), from explicit params, or both
    (the seed's params with some replaced). With neither, a random seed is drawn."""
    if kind not in KINDS:
        raise ValueError(f"unknown exercise kind {kind!r}; choose one of {', '.join(KINDS)}")
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}, got {lang!r}")
    k = KINDS[kind]
    if seed is None and not params:
        seed = random.randrange(10000)
    if seed is None:
        return Exercise(k, k.validate(params), None, lang)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {seed!r}")
    exercise = None
    for attempt in range(8):  # draw again (deterministically) if the answer shows up in the prompt
        rng = Random(f"{kind}-{seed}" + (f"/{attempt}" if attempt else ""))
        exercise = Exercise(k, k.validate({**k.generate(rng), **params}), seed if not params else None, lang)
        if params or not shows_answer(exercise):
            break
    return exercise


def shows_answer(exercise: Exercise) -> bool:
    """True if the text of a multi-part answer ("23, 8, 9, 10") appears in a prompt (either language).
    A one-number answer is not checked: the same number can appear in a prompt for other reasons."""
    for lang in LANGS:
        text = exercise.answer_text(lang)
        pattern = rf"(?<![\w-]){re.escape(text)}(?![\w-])"
        if ("," in text or ":" in text) and re.search(pattern, exercise.prompt_in(lang)):
            return True
    return False


def from_id(exercise_id: str, lang: str = "en") -> Exercise:
    """Rebuild an exercise from its id: "slot_mapping-1234" or "slot_mapping:{json params}"."""
    exercise_id = exercise_id.strip()
    if ":" in exercise_id:
        kind, _, payload = exercise_id.partition(":")
        try:
            params = json.loads(payload)
        except json.JSONDecodeError as e:
            raise ValueError(f"the params after '{kind}:' are not valid JSON: {e}") from e
        return make(kind, lang=lang, **params)
    kind, sep, seed = exercise_id.rpartition("-")
    if not sep or not seed.isdigit():
        raise ValueError(f"an exercise id looks like 'slot_mapping-1234', got {exercise_id!r}")
    return make(kind, int(seed), lang=lang)
