"""Helpers the tests share: apptest (AppTest pages), apprun (a real app and
Chromium), task_audit and statement_audit (the two audits), classroom_db
(the class databases), required (a missing tool: skip here, fail in CI)."""
