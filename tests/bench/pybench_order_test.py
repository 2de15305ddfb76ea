#!/usr/bin/python3
"""The Python readers' benchmark (bench/python/pybench.py) runs its methods in a balanced order:
over one cycle of rounds every method runs once at every place and right after every other
method equally often, so that what a run leaves behind falls on every method alike."""
import collections
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench",
                                "python"))
import pybench  # noqa: E402


class Orders(unittest.TestCase):
    def test_every_method_follows_every_other_equally_often(self):
        for methods in (pybench.METHODS, ["sec2", "preload", "sec2-again"], ["sec2", "preload"]):
            orders = pybench.balanced_orders(methods)
            places = collections.Counter()
            after = collections.Counter()
            for order in orders:
                self.assertEqual(sorted(order), sorted(methods), order)
                places.update(enumerate(order))
                after.update(zip(order, order[1:]))
            n = len(methods)
            self.assertEqual(set(places.values()), {len(orders) // n}, (methods, orders))
            self.assertEqual(len(after), n * (n - 1), (methods, orders))
            self.assertEqual(len(set(after.values())), 1, (methods, orders))


if __name__ == "__main__":
    unittest.main()
