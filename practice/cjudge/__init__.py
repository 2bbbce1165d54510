"""cjudge: the grading kernel shared by the CLI, the server and the browser."""

__version__ = "0.1.0"
