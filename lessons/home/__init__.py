"""Home page: what the course teaches, the lesson map with progress, how to use it."""
