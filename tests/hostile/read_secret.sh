#!/bin/sh
# Tries to read a file ($1) and list a directory ($2) it should not see; prints one line each.
echo "secret:$(cat "$1" 2>&1 | head -c 200)" | tr '\n' ' '; echo
echo "other:$(ls -a "$2" 2>&1 | tr '\n' ' ')"
echo "uid:$(id -u)"
read -r _ignored
