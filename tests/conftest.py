import sys

from lamina.lang.interpreter import RECURSION_LIMIT

# The interpreter raises the limit on first use; doing it up front keeps hypothesis quiet.
sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
