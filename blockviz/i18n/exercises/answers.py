"""Strings of blockviz/exercises/answers.py: reading answers."""

STRINGS: dict[str, dict[str, str]] = {
    "ex.answer.empty": {
        "en": "The answer is empty. Type your answer, or 'hint' for a hint.",
        "zh": "答案是空的。请输入答案，或输入“提示”获取提示。"},
    "ex.answer.type": {
        "en": "An answer must be text, a number or a list, not {type}.",
        "zh": "答案应是文字、数字或列表，而不是 {type}。"},
    "ex.answer.too_long": {
        "en": "The answer is longer than {limit} characters; write only what the question asks for.",
        "zh": "答案超过 {limit} 个字符；只写题目要求的内容即可。"},
    "ex.answer.not_number": {
        "en": "“{token}” is not a whole number. Write numbers separated by commas, e.g. 1, 2, 3.",
        "zh": "“{token}”不是整数。请用逗号分隔整数，例如 1, 2, 3。"},
    "ex.answer.count": {
        "en": "Expected {expected} number(s), got {got}.",
        "zh": "需要 {expected} 个数，你写了 {got} 个。"},
    "ex.answer.one_number": {
        "en": "Expected one number, got {got}.",
        "zh": "只需要一个数，你写了 {got} 个。"},
    "ex.answer.yes_no": {
        "en": "Answer yes or no (got “{token}”).",
        "zh": "请回答“是”或“否”（收到的是“{token}”）。"},
    "ex.answer.unknown_word": {
        "en": "“{token}” is not one of the accepted words for this exercise (see the answer format in the question).",
        "zh": "“{token}”不是本题接受的词（见题目中的答题格式）。"},
    "ex.answer.count_words": {
        "en": "Expected {expected} item(s), got {got}.",
        "zh": "需要 {expected} 项，你写了 {got} 项。"},
    "ex.answer.unknown_label": {
        "en": "“{token}” is not a request here; the requests are {known} (or write none).",
        "zh": "“{token}”不是本题中的请求；请求有 {known}（或写“无”）。"},
    "ex.answer.where": {"en": "Step {row}, {column}:", "zh": "第 {row} 步，{column}："},
    "ex.answer.rows": {
        "en": "Expected {expected} rows, one per step, got {got}.",
        "zh": "需要 {expected} 行（每步一行），你写了 {got} 行。"},
    "ex.answer.cells": {
        "en": "Row {row} has {got} cell(s); write {expected}, separated by |.",
        "zh": "第 {row} 行有 {got} 格；请写 {expected} 格，用 | 分隔。"},
    "ex.answer.row_number": {
        "en": "Row {row} is numbered {got}: write the rows in step order, one per step.",
        "zh": "第 {row} 行标的是 {got}：请按步骤顺序写，每步一行。"},
    "ex.answer.unreadable": {
        "en": "This answer could not be checked ({error}). Please rephrase it in the format the question asks for.",
        "zh": "无法核对这个答案（{error}）。请按题目要求的格式重写。"},
}
