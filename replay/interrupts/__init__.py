"""TanStack's interrupt contract: interrupt descriptors, resume-batch validation and chat
request parameters.

`descriptors` builds descriptors (and reads `--tools` files), `descriptor_reader` reads
one (`binding_of`, `kind_of`, `InterruptKind`, `approval_branches`, `parse_expires_at`),
`binding` holds the binding reader rules, `batch` validates a resume batch
(`validate_batch`) with `schema_issues` wording schema violations like zod and
`interrupt_errors` carrying the result (`InterruptError`, `run_error_event`), and
`chat_params` reads chat request parameters.
"""
