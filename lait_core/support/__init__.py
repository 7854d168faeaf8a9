"""Small infrastructure every role of lait_core uses: cooperative cancellation, the garbage-collector
pause, the trimmed httpx import, redaction, ``KEY=VALUE`` options, the user's data folder,
blocking work in daemon threads."""
