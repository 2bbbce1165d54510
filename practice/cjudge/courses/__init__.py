"""Where courses already are: a verdict as a Gradescope, PrairieLearn or GitHub Classroom result
(:mod:`.results`), and each platform's ready autograder bundle (:mod:`.bundles`); see
``docs/courses.md``."""
