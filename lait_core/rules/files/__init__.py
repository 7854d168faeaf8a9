"""LAIT0xx: reading files and YAML syntax (any lait file). One module per rule."""
