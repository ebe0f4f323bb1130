rm -rf /home/dev
