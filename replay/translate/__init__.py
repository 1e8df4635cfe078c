"""Translation: legacy tool-approval streams rewritten into native AG-UI interrupts."""
