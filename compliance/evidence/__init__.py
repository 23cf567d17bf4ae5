"""Evidence bundles for the Board: a facility's period, verifiable with nothing but the bundle, the anchors the
Board received and ``verify_bundle.py`` (standard library only)."""
