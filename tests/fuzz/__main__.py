"""`python -m tests.fuzz --n 10000 [--seed S] [--jobs 2]`: the fuzzer's long mode."""
import sys

from tests.fuzz.campaign import main

sys.exit(main())
