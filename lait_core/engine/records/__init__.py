"""What a run leaves behind (docs/workflows.md).

* :mod:`.key` -- the content key of a model request (one function for cassettes and the cache);
* :mod:`.record_files` -- atomic JSON writes, bounded reads, the stored shape of a response;
* :mod:`.cassette` -- ``--record DIR`` / ``--replay DIR``;
* :mod:`.response_cache` -- the response cache under ``.lait/cache/``;
* :mod:`.labels` -- the usage label of the code that is running (a step id, ``chat``...);
* :mod:`.trace_events` -- ``--trace-file`` events and reading them back (``lait trace``);
* :mod:`.sender` -- the sender that consults replay, cache and record and writes trace events;
* :mod:`.run_history` -- ``$XDG_DATA_HOME/lait/history.jsonl``;
* :mod:`.checkpoint` -- ``.lait/runs/<id>.json``;
* :mod:`.otlp` -- ``lait trace export``.
"""
