git fetch origin
git reset --hard origin/main
