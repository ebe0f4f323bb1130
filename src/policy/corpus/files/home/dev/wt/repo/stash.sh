git stash clear
