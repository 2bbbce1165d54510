"""The judge server: HTTP API, database queue, workers and sandbox backends."""
