"""The teacher's page: a class's progress, live."""
