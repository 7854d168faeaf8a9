"""The work of single commands, apart from their typer layer in ``lait_cli/commands/``:
``lait doctor`` (:mod:`.setup_checks`), ``lait compare`` (:mod:`.model_compare`), ``lait graph``
(:mod:`.workflow_graph`), ``lait import`` (:mod:`.foreign_import`) and ``lait init``
(:mod:`.starter_files`)."""
