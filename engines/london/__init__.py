"""London: rules in progress; see seeds/london.md."""
