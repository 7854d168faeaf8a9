"""LAIT3xx: workflow files (version 2). One module per rule."""
