echo one
echo two
ls -la
