"""Test oracles: rules stated a second, independent way (batch NumPy), for tests to check the engines against.

Not part of the package: the package states each rule once, in the code the games run.
"""
