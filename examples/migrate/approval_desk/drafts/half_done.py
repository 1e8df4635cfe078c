"""A draft someone never finished: a syntax error `agui migrate` reports and counts."""

def approve(client, approval):
    client.add_tool_approval_response(id=approval.id, approved=True
