"""chaodipi: audit and replay service for recorded games of 炒地皮 (Chao Di Pi)."""
