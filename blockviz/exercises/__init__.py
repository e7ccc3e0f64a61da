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

from blockviz.checks import whole
from blockviz.exercises.core import Exercise, Result
from blockviz.i18n import LANGS
from blockviz.exercises.kinds import KINDS
from blockviz.exercises.params import check_params
from blockviz.brief import brief

MAX_SEED = 10**9
MAX_ID_LENGTH = 20_000

__all__ = ["Exercise", "Result", "make", "kinds", "from_id"]


def kinds() -> list[str]:
    return list(KINDS)


def make(kind: str, seed: int | None = None, lang: str = "en", **params) -> Exercise:
    """An instance of `kind`: from a seed (shareable as "kind-seed"), from explicit params, or both
    (the seed's params with some replaced). With neither, a random seed is drawn."""
    return instance(kind, seed, lang, params)


def instance(kind: str, seed: int | None, lang: str, params: dict) -> Exercise:
    if not isinstance(kind, str) or kind not in KINDS:
        raise ValueError(f"unknown exercise kind {brief(kind, 40)}; choose one of {', '.join(KINDS)}")
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}, got {brief(lang, 40)}")
    k = KINDS[kind]
    params = check_params(kind, k.param_names, params)
    if seed is None and not params:
        seed = random.randrange(10000)
    if seed is None:
        return Exercise(k, k.validate(params), None, lang)
    whole("seed", seed, 0, MAX_SEED)
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
    if not isinstance(exercise_id, str) or len(exercise_id) > MAX_ID_LENGTH:
        raise ValueError(f"an exercise id is text of at most {MAX_ID_LENGTH} characters, got {brief(exercise_id, 80)}")
    exercise_id = exercise_id.strip()
    if ":" in exercise_id:
        kind, _, payload = exercise_id.partition(":")
        try:
            params = json.loads(payload)
        except (json.JSONDecodeError, RecursionError) as e:
            raise ValueError(f"the params after '{kind:.40}:' are not valid JSON: {e}") from None
        if not isinstance(params, dict):
            raise ValueError(f"the params after '{kind:.40}:' must be a JSON object such as "
                             f'{{"block_size": 4}}, got {brief(payload, 80)}')
        return instance(kind, None, lang, params)  # not make(**params): a param named seed or lang stays a param
    kind, sep, seed = exercise_id.rpartition("-")
    if not sep or not seed.isascii() or not seed.isdigit() or len(seed) > len(str(MAX_SEED)):
        raise ValueError(f"an exercise id looks like 'slot_mapping-1234', got {brief(exercise_id, 80)}")
    return make(kind, int(seed), lang=lang)
