"""Translation: legacy tool-approval streams rewritten into native AG-UI interrupts.

`translation` is the stage (`Translator`, `translate_items`, `translate_stream`) and
`stream_rewriter` runs a stage over SSE bytes; under the stage, `run_record` keeps what a
run said, `native_terminal` builds the events a legacy pause becomes (with `snapshot`,
the `MESSAGES_SNAPSHOT` it carries), and `notices` names the three notice rules
(`translated`, `invented`, `lost`).
"""
