"""Settings shared by the whole suite."""

from hypothesis import settings

# Property tests check what a function does, not how fast: a per-example deadline only makes
# them fail when the machine is busy (CI beside a benchmark), so there is none.
settings.register_profile("hopkit", deadline=None)
settings.load_profile("hopkit")
