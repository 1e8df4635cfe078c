"""The wire: SSE decoding, recordings, event decoding and validation, legacy and retired
shapes, problems, canonical JSON, JSON with a nesting limit (`bounded_json`) and the
stream layer's errors."""
