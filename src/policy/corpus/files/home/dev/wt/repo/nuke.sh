#!/bin/sh
set -e
rm -rf /opt/x
