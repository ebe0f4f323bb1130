#!/bin/sh
# The user's own: back to the last commit.
git reset --hard
git clean -fd
