"""The repository as a whole: the packages' layers, import cycles, the engine's names, the docs."""
