"""LibCST codemods that move Python call sites from the legacy approval API to interrupts."""
