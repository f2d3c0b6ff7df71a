"""Running evaluations: jobs on workers (or Ray), resumable results, progress, lessons."""
