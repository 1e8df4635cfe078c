"""The wire: SSE decoding, recordings, event decoding and validation, legacy and retired
shapes, problems, canonical JSON, JSON with a nesting limit (`bounded_json`), the stream
layer's errors, and writing a user's output file safely (`output_file`)."""
