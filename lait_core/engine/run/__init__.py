"""One run of lait: the Interaction seam (:mod:`.interaction`), the run's session
(:mod:`.run_session`), the tool loop (:mod:`.tool_loop`), agent runs (:mod:`.agent_run`), the files
a run reads (:mod:`.run_files`) and the dry run of ``lait run --dry-run`` (:mod:`.dry_run`)."""
