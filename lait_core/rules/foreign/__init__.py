"""LAIT8xx: files of other tools, linted against their own formats. One module per rule."""
