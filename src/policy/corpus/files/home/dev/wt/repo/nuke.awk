BEGIN { system("rm -rf /opt/x") }
