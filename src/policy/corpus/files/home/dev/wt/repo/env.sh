export FOO=1
rm -rf ~
