#!/usr/bin/env bash
cd /tmp
rm -rf proj
