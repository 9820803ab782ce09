"""Pure renderers of the core's result data: text, markdown, the pull-request comment, JSON (and reading it back)."""
