#!/bin/sh
# Prepends the current context usage to the way body.
printf 'Context in use: %s tokens\n' "${WAYS_TOKEN_POSITION:-unknown}"
