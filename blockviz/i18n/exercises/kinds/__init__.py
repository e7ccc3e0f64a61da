"""Strings of the exercise kinds (blockviz/exercises/kinds/), one module per kind module."""
