#!/bin/sh
sh ./scripts/helper.sh
./scripts/test.sh
rm -rf "$DIST"
