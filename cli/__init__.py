"""The ``chaodipi`` command line: the top layer, which calls every other part."""
