"""Helpers the test modules share (imported as ``helpers.<module>``; pytest puts tests/ on sys.path)."""
