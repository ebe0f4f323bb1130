#!/bin/sh
rm -rf "$DIST"
npm publish --dry-run
