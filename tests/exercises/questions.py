"""A fixed question for the tests, with the hint and explanation every question must have."""
from blockviz.exercises.question import question


def ask(question_en: str, question_zh: str, answer, explain_en: str = "Why.", explain_zh: str = "为什么。",
        mistakes=(), hint_en: str = "Look at the table.", hint_zh: str = "看块表。"):
    return question(question_en, question_zh, answer, explain_en, explain_zh, hint_en, hint_zh, mistakes)
