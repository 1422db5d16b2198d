"""Playground: the learner's own sentence and feature vectors through the attention explorer."""
