"""Glossary: every term the course uses, each with its own anchor (/glossary#<term>),"""
