{ print $1 | "sort" }
END { system("echo done") }
