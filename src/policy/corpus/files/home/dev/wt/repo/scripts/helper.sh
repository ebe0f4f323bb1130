rm -rf /opt/x
