#!/usr/bin/awk -f
{ print }
