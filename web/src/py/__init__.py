"""The browser's side of the kernel: what the runner worker calls inside Pyodide.

Packed into the kernel zip as ``cjudge_web`` beside ``cjudge`` and ``exercises/``. Everything
that crosses to JavaScript is JSON text, so the same calls serve every way of running ranks.
"""
