#!/bin/sh
# Runs after Edit/Write; prints the way id when the edited file has lint findings.
file="$1"
case "$file" in
  *.py) ruff check --quiet "$file" >/dev/null 2>&1 || echo softwaredev/code/quality ;;
  *.ts|*.tsx) npx --no-install eslint --quiet "$file" >/dev/null 2>&1 || echo softwaredev/code/quality ;;
esac
