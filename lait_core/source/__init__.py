"""Text -> located YAML tree; frontmatter split; positions in code points and UTF-16."""
