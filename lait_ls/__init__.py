"""The lait language server (pygls); features live in lait_core, this package only adapts them."""
