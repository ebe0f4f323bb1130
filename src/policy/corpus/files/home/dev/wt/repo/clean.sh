#!/bin/sh
rm -rf build dist
mkdir -p build
cp -r src build/
