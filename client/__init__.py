"""Placeholder: built in a later issue (see issues)."""
