git status --short
git log -1
