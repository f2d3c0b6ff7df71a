"""Benchmarks, one subpackage each (hotpotqa, miniwob, awm, webarena), and their shared parts."""
