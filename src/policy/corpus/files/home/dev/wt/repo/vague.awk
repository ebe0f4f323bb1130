{ cmd = "rm -rf " $1; system(cmd) }
