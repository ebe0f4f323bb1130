echo hi > /etc/motd
