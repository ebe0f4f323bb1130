#!/bin/sh
rm -rf "$1"
