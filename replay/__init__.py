"""The AG-UI stream layer: decode, validate, fold, check and write recorded or live runs."""
