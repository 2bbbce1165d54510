"""The HTTP API (FastAPI): routes, dependencies, middleware and the app factory."""
