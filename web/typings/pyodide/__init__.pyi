# Pyodide's own package, present only in the browser: see web/typings/README.md
