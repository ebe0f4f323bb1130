echo ok
rm -rf /tmp/scratch
