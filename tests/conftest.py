"""Hypothesis profiles: `ci` (the default) keeps the suite quick; set
HYPOTHESIS_PROFILE=thorough for a long hunt."""

import os

from hypothesis import settings

settings.register_profile("ci", max_examples=40, deadline=None)
settings.register_profile("thorough", max_examples=1500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
