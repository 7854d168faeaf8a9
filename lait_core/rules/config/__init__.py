"""LAIT1xx: lait.config.yml. One module per rule."""
