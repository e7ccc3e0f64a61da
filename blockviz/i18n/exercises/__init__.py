"""Strings of blockviz/exercises, one module per owner at the owner's path: the strings of
blockviz/exercises/kinds/slots.py are kinds/slots.py here. Placeholders use str.format.

Failure messages name the learner's mistake, never the right answer.
"""
