"""The wire: SSE decoding, recordings, event decoding and validation, legacy and retired
shapes, problems, canonical JSON and the stream layer's errors."""
