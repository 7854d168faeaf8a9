"""Child processes of a run: spawning in process groups (:mod:`.spawn`), environment and
working-directory containment, and ``confine: project`` paths."""
