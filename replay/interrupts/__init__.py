"""TanStack's interrupt contract: interrupt descriptors, resume-batch validation and chat
request parameters."""
