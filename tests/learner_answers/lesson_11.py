"""Learner answers (see tests/learner_answers/__init__.py)."""

from __future__ import annotations
