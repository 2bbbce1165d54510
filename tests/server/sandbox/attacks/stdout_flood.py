# attack: flood stdout and stderr, through print and straight to the file descriptors
# expect: output_limit|time_limit
import os
import sys


def ring_all_reduce(t):
    line = "spam " * 2000 + "\n"
    while True:
        print(line, end="")
        sys.stderr.write(line)
        os.write(1, line.encode())
        os.write(2, line.encode())
