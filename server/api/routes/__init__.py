"""The API's routes, one module per resource; the infrastructure they share is in ``server.api``."""
