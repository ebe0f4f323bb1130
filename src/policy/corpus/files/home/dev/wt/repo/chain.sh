sh nuke.sh
