"""What runs inside a rank or a sandbox, on the untrusted side: loading the learner's file
(``learner``), the judge's functions and symmetric memory as a rank holds them (``judge_fns``,
``symm_mem``), CUDA calls on the CPU lane (``cuda_note``) and the sandbox's end (``runner``)."""
