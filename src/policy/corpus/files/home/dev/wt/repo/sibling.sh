rm -rf ../other
