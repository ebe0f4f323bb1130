#!/bin/sh
sh ./scripts/tidy.sh
