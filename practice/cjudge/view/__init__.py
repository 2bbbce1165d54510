"""The trace view: a case's run as a space-time diagram (pure Python: the browser has it too).

:mod:`.timeline` turns a case's switch trace into the compact ``timeline`` of the verdict JSON
(lanes per rank, messages, collectives, waits, deadlock edges, the critical path); the CLI's
table and SVG (``cjudge.cli.trace_view``) and the web app's ``timeline.js`` draw that JSON.
"""
