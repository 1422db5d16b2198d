"""The lessons: one package per lesson, each with its page (the outline) and its parts."""
