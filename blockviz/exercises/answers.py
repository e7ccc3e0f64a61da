"""Reading a learner's answer: numbers, lists, yes/no, words, labels, in ASCII or Chinese punctuation.

Every reader returns a plain Python value or raises AnswerError, whose `key` names a message in
blockviz/i18n/exercises/answers.py. Nothing here knows the right answer.
"""
import math
import re
import unicodedata
from numbers import Integral, Real

# Full-width forms are folded by NFKC; these are the ones it leaves alone.
_FOLD = str.maketrans({
    "、": ",", "；": ";", "：": ":", "。": ".", "【": "[", "】": "]", "〔": "[", "〕": "]",
    "《": " ", "》": " ", "「": " ", "」": " ", "『": " ", "』": " ", "“": " ", "”": " ", "‘": " ", "’": " ",
    "\"": " ", "'": " ", "`": " ", "−": "-", "–": "-", "—": "-", "→": " ", "·": " ",
})
_BRACKETS = str.maketrans({c: " " for c in "[](){}<>"})
_INT = re.compile(r"[+-]?\d+(?:\.0*)?")
_THOUSANDS = re.compile(r"(?<=\d)[,_ ](?=\d{3}(?!\d))")
# Unit words a number may carry ("36 slots", "36 个槽位", "3块", "28 MiB"): read past, never converted.
_UNIT_WORDS = r"bytes?|b|kib|mib|gib|blocks?|tokens?|slots?|keys?|字节|块|槽位|槽|个"
_UNITS_AFTER_NUMBER = re.compile(rf"(?<=\d)(?:\s*(?:{_UNIT_WORDS}))+(?=[\s,;:)\]]|$)", re.IGNORECASE)


MAX_ANSWER = 2000  # characters: every real answer is far shorter
MAX_ITEMS = 512
MAX_DIGITS = 18    # a whole number fits in 64 bits; longer digit strings are no answer


class AnswerError(ValueError):
    """A malformed answer. `key` and `fmt` name the message shown to the learner."""

    def __init__(self, key: str, **fmt):
        super().__init__(key)
        self.key = key
        self.fmt = fmt
        self.where: tuple[int, str] | None = None  # (row, column key) of a table's cell that could not be read


def normalize(answer, depth: int = 0) -> str:
    """Text of any accepted answer: str, int, a whole float (36.0), bool or a (nested) list of them."""
    if answer is None:
        raise AnswerError("ex.answer.empty")
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    if isinstance(answer, Integral):
        return to_text(int(answer))
    if isinstance(answer, Real):
        if not math.isfinite(answer) or answer != int(answer):
            raise AnswerError("ex.answer.not_number", token=str(answer))
        return to_text(int(answer))
    if isinstance(answer, (list, tuple)):
        if depth > 2 or len(answer) > MAX_ITEMS:
            raise AnswerError("ex.answer.too_long", limit=MAX_ANSWER)
        return to_text(", ".join(normalize(item, depth + 1) for item in answer) if answer else "none")
    if not isinstance(answer, str):
        raise AnswerError("ex.answer.type", type=type(answer).__name__)
    text = unicodedata.normalize("NFKC", to_text(answer)).translate(_FOLD).strip()
    if "=" in text:  # "slot_mapping = [23, 8, 9, 10]"
        text = text.rsplit("=", 1)[1].strip()
    text = text.rstrip(".").strip()
    if not text:
        raise AnswerError("ex.answer.empty")
    return text


def to_text(text) -> str:
    text = str(text)
    if len(text) > MAX_ANSWER:
        raise AnswerError("ex.answer.too_long", limit=MAX_ANSWER)
    return text


def split_items(text: str) -> list[str]:
    """Items separated by commas, semicolons or new lines; by spaces when there are none."""
    text = text.translate(_BRACKETS)
    if re.search(r"[,;\n]", text):
        items = re.split(r"[,;\n]+", text)
    else:
        items = text.split()
    return [item.strip() for item in items if item.strip()]


def to_int(token: str) -> int:
    """'36', '-3', '36.0' or any script's digits ('٣٦'): int() reads every Unicode decimal digit."""
    if not _INT.fullmatch(token) or len(token.split(".")[0].lstrip("+-")) > MAX_DIGITS:
        raise AnswerError("ex.answer.not_number", token=token[:40])
    return int(token.split(".")[0])


def parse_ints(answer, count: int | None = None) -> list[int]:
    """Whole numbers in any notation: '23, 8, 9, 10', '23，8，9，10', '[23 8 9 10]', '3 blocks, 4 blocks'."""
    text = _UNITS_AFTER_NUMBER.sub("", normalize(answer).translate(_BRACKETS))
    tokens = text.replace(",", " ").replace(";", " ").replace(":", " ").split()
    if not tokens:
        raise AnswerError("ex.answer.empty")
    values = [to_int(token) for token in tokens]
    if count is not None and len(values) != count:
        raise AnswerError("ex.answer.count", expected=count, got=len(values))
    return values


def parse_int(answer) -> int:
    """One whole number, perhaps followed by a unit word: '36', '36 slots', '３６', 36.0."""
    values = parse_ints(answer)
    if len(values) != 1:
        raise AnswerError("ex.answer.one_number", got=len(values))
    return values[0]


def parse_amount(answer) -> int:
    """One whole number, perhaps with thousands separators (1,835,008) and a unit word (28 MiB, 1170 blocks).
    The unit is only read past, never converted: the question says which unit it asks for."""
    return parse_int(_THOUSANDS.sub("", normalize(answer)))


YES = {"yes", "y", "true", "t", "1", "是", "是的", "对", "对的", "要", "需要", "会", "会的", "有", "能", "可以"}
NO = {"no", "n", "false", "f", "0", "否", "不", "不是", "不对", "不要", "不需要", "不会", "没有", "无", "不能", "不可以",
      "错"}


def parse_yes_no(answer) -> bool:
    word = normalize(answer).translate(_BRACKETS).lower().strip(" !")
    if word in YES:
        return True
    if word in NO:
        return False
    raise AnswerError("ex.answer.yes_no", token=word)


def squash(word: str) -> str:
    return re.sub(r"[\s_\-]+", "", word.lower())


def parse_words(answer, vocabulary: dict[str, str], count: int | None = None) -> list[str]:
    """Map each item through `vocabulary` (keys compared without case, spaces, '-' or '_')."""
    table = {squash(k): v for k, v in vocabulary.items()}
    items = split_items(normalize(answer))
    if not items:
        raise AnswerError("ex.answer.empty")
    values = []
    for item in items:
        item = re.sub(r"^\d+\s*:\s*", "", item)  # "3: shared" names the block; the order is what counts
        value = table.get(squash(item))
        if value is None:
            raise AnswerError("ex.answer.unknown_word", token=item)
        values.append(value)
    if count is not None and len(values) != count:
        raise AnswerError("ex.answer.count_words", expected=count, got=len(values))
    return values


NONE_WORDS = {"none", "nobody", "no", "nothing", "empty", "-", "无", "没有", "都不", "都不需要", "空"}


def parse_labels(answer, known: list[str]) -> list[str]:
    """Request labels (A, B, ...) in the order given; 'none' for an empty list."""
    text = normalize(answer)
    if squash(text) in NONE_WORDS or text.strip() in NONE_WORDS or squash(text) in ("[]", "()"):
        return []
    items = text.translate(_BRACKETS).replace(",", " ").replace(";", " ").replace(":", " ").split()
    if not items:
        raise AnswerError("ex.answer.empty")
    labels = []
    for token in items:
        if squash(token) in NONE_WORDS or token in NONE_WORDS:
            continue
        label = token.upper()
        if label not in known:
            raise AnswerError("ex.answer.unknown_label", token=token, known=", ".join(known))
        labels.append(label)
    return labels


def tokens(answer) -> list[str]:
    """Every item of an answer, brackets and separators removed."""
    text = normalize(answer).translate(_BRACKETS).replace(",", " ").replace(";", " ").replace(":", " ")
    return text.split()


_ROW_BREAK = re.compile(r"\n|/")
_CELL_BREAK = re.compile(r"[|\t]")
_RULE = re.compile(r"[\s|:+-]*")  # a Markdown table's |---|---| line
HEADER_WORDS = {"step", "steps", "#", "步", "步骤", "第几步"}


def parse_rows(answer, cells: int, count: int) -> list[list[str]]:
    """A table typed one row a line (or rows separated by '/'), its cells separated by '|' or a tab:
    `A B | 3 | 0 | 0`. A first cell numbering the row (`1 | A B | 3 | 0 | 0`), a header line, Markdown
    table pipes and rules are read past. A list of rows (Python values) is read the same way.
    Returns each row's cells as text for the caller's cell readers (see cell())."""
    if isinstance(answer, (list, tuple)) and answer and all(isinstance(row, (list, tuple)) for row in answer):
        answer = "\n".join(" | ".join(normalize(c, 1) for c in row) for row in answer)
    text = normalize(answer)
    if text[0] in "[(" and text[-1] in "])":  # the whole table in brackets
        text = text[1:-1]
    rows = []
    for line in _ROW_BREAK.split(text):
        line = line.strip().strip("|").strip()
        if _RULE.fullmatch(line):
            continue
        parts = [part.strip() for part in _CELL_BREAK.split(line)]
        if squash(parts[0]) in HEADER_WORDS:
            continue
        if len(parts) == cells + 1:  # the row's number first
            number = to_int(parts[0].translate(_BRACKETS).strip())
            if number != len(rows) + 1:
                raise AnswerError("ex.answer.row_number", row=len(rows) + 1, got=number)
            parts = parts[1:]
        if len(parts) != cells:
            raise AnswerError("ex.answer.cells", row=len(rows) + 1, expected=cells, got=len(parts))
        rows.append(parts)
    if not rows:
        raise AnswerError("ex.answer.empty")
    if len(rows) != count:
        raise AnswerError("ex.answer.rows", expected=count, got=len(rows))
    return rows


def cell(read, text: str, row: int, column: str):
    """`read(text)`, an AnswerError marked with the cell it came from (row, column key)."""
    try:
        return read(text)
    except AnswerError as e:
        e.where = (row, column)
        raise
