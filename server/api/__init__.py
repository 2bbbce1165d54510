"""The HTTP API (FastAPI): the app factory and what every route shares (the caller, caches,
errors, middleware, schemas, the OpenAPI contract); the routes are in ``routes/``."""
