git branch -D main
