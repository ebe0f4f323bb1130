#!/bin/sh
make -C gm nuke
