"""The documented facade: pipelines built with a database session factory.

A facade holds the session factory, its components and options and does nothing in
its constructor; ``run()`` hands the pure method (``hopkit.methods``) and the store to
the runner. The method never sees a session.
"""
