"""Reflections: the lesson records, their retrieval score, and consolidation into insights."""
