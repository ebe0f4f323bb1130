#!/bin/sh
npx vitest run "$@"
