#!/bin/sh
git checkout -- .
git clean -fd
