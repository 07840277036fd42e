"""Each game's own tests, one folder a game (its room's tests live together)."""
