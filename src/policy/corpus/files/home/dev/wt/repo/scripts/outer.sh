#!/bin/sh
sh ./scripts/ci.sh
