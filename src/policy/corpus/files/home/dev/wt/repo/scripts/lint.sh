#!/bin/sh
sh ./scripts/test.sh
sh ./scripts/fmt.sh
