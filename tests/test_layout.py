"""Test modules are named by subject (tests/README.md): a name that says which review round found
the bug tells a reader nothing about where the tests of a module are."""
import pathlib
import re

TESTS = pathlib.Path(__file__).parent

# review3, lead4, found_by, round2: who found the bug and when, not what the module tests
ROUND_NAME = re.compile(r"review|lead_?\d|found_by|round_?\d")


def test_no_test_module_is_named_after_a_review_round():
    named_by_round = sorted(str(path.relative_to(TESTS)) for path in TESTS.rglob("test_*.py")
                            if ROUND_NAME.search(path.stem))
    assert named_by_round == [], (
        f"name these test modules after the module or behaviour they test (tests/README.md): "
        f"{named_by_round}")


def test_test_module_names_are_unique_across_folders():
    seen = {}
    for path in sorted(TESTS.rglob("test_*.py")):
        seen.setdefault(path.name, []).append(str(path.relative_to(TESTS)))
    assert [paths for paths in seen.values() if len(paths) > 1] == []
