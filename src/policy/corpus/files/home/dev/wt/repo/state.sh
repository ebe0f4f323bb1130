rm -rf /home/dev/.baton
