"""approval-desk: reviews tool approvals for a payments assistant (legacy API sample)."""
