"""LAIT4xx: templates, jq and the references inside them. One module per rule."""
