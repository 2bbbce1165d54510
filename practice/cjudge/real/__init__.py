"""The real runtime: each case's ranks as processes running real torch.

``runtime.run_case`` has the judge's zygote (``zygote``) fork the ranks, serves them the case's
switch and reports what happened. Each rank (``rank``) confines itself (``confine``), makes its
process group a channel to the switch (``judge_group``, ``c10d_ops``) and sends its printed output
to a judge-held file (``outputs``). Imports torch: never loaded by the browser.
"""
