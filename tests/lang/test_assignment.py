"""lang/assignment.py: a nested or compound target evaluates each index once, left to right,
and writes back where it read."""
from __future__ import annotations


def test_a_nested_target_evaluates_each_index_once(run):
    lines, _ = run(
        'function k(i)\n  print("k", i)\n  return i\nend function\n'
        'L = [{x = 1}, {x = 2}]\nL[k(1)].x = 5\nprint(L)\n'
        'M = [[1, 2], [3, 4]]\nM[k(0)][k(1)] = 9\nprint(M)\n'
        'r = {v = [1, 2]}\nr.v[k(0)] = 7\nprint(r)\n')
    assert lines == ["k 1", "[{x=1}, {x=5}]", "k 0", "k 1", "[[1, 9], [3, 4]]", "k 0", "{v=[7, 2]}"]


def test_a_nested_target_with_a_random_index_writes_where_it_read(run):
    # read at one draw and written back at another, L[i] used to become a copy of L[j]
    lines, _ = run('seed(3)\nL = [{x = 0}, {x = 1}, {x = 2}, {x = 3}, {x = 4}]\n'
                   'for t = 1 to 40\n  L[randint(0, 4)].seen = t\nend for\n'
                   'print(map(L, r -> r.x))')
    assert lines == ["[0, 1, 2, 3, 4]"]


def test_a_compound_target_evaluates_its_indices_left_to_right(run):
    lines, _ = run('function k(i)\n  print("k", i)\n  return i\nend function\n'
                   'M = [[1, 2], [3, 4]]\nM[k(0)][k(1)] += 10\nprint(M)')
    assert lines == ["k 0", "k 1", "[[1, 12], [3, 4]]"]
