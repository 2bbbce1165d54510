"""An exercise folder as the judge reads it: loading and checking it (``exercises``), its rules
(``rules``), whether a file's verdict depends on the draw (``draws``) and portable maths for
graders (``special``)."""
