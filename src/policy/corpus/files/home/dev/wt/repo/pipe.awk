BEGIN { print "git -C /tmp/proj reset --hard" | "sh" }
