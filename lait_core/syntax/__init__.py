"""Text -> located trees: YAML (:mod:`.yaml`), Markdown frontmatter (:mod:`.frontmatter`),
Handlebars templates (:mod:`.template`) and jq programs (:mod:`.jq`, run in :mod:`.jq_worker`);
positions in code points and UTF-16 (:mod:`.positions`), the located :mod:`.diagnostics`, the one
bounded file reader (:mod:`.bounded_read`) and the log of the files a piece of work read
(:mod:`.read_log`)."""
