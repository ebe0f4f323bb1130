#!/bin/sh
git clean -fdx
